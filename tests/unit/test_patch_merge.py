"""JSON merge patch (RFC 7386) as upstream applies it, its error Statuses, and the helpers all three share."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from fakeapi.machinery.errors import StatusError
from fakeapi.machinery.patch import apply_json_patch, apply_merge_patch, apply_strategic_merge_patch, copy_json

# RFC 7386 Appendix A, the examples whose target is an object (an API object always is)
RFC_7386_EXAMPLES = [
    ({"a": "b"}, {"a": "c"}, {"a": "c"}),
    ({"a": "b"}, {"b": "c"}, {"a": "b", "b": "c"}),
    ({"a": "b"}, {"a": None}, {}),
    ({"a": "b", "b": "c"}, {"a": None}, {"b": "c"}),
    ({"a": ["b"]}, {"a": "c"}, {"a": "c"}),
    ({"a": "c"}, {"a": ["b"]}, {"a": ["b"]}),
    ({"a": {"b": "c"}}, {"a": {"b": "d", "c": None}}, {"a": {"b": "d"}}),
    ({"a": [{"b": "c"}]}, {"a": [1]}, {"a": [1]}),
    ({"e": None}, {"a": 1}, {"e": None, "a": 1}),
    ({}, {"a": {"bb": {"ccc": None}}}, {"a": {"bb": {}}}),
]


@pytest.mark.parametrize(("target", "patch", "expected"), RFC_7386_EXAMPLES)
def test_rfc_7386_examples(target: dict[str, Any], patch: dict[str, Any], expected: dict[str, Any]) -> None:
    assert apply_merge_patch(target, patch) == expected


def pod() -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "web-1", "labels": {"a": "b", "keep": "1"}},
        "spec": {"containers": [{"name": "nginx", "image": "nginx:1.25"}]},
        "status": {"phase": "Running"},
    }


@pytest.mark.parametrize(
    ("patch", "path", "expected"),
    [
        pytest.param(
            {"metadata": {"labels": {"p": "merge"}}},
            ("metadata", "labels"),
            {"a": "b", "keep": "1", "p": "merge"},
            id="kubectl patch --type=merge",
        ),
        pytest.param(
            {"metadata": {"labels": {"a": None}}},
            ("metadata", "labels"),
            {"keep": "1"},
            id="kubectl label a-",
        ),
        pytest.param(
            {"metadata": {"annotations": {"note": "hello"}}},
            ("metadata", "annotations"),
            {"note": "hello"},
            id="kubectl annotate",
        ),
        pytest.param(
            {"status": {"phase": "Failed", "reason": "Evicted"}},
            ("status",),
            {"phase": "Failed", "reason": "Evicted"},
            id="kubectl patch --subresource=status",
        ),
        pytest.param(
            {"spec": {"containers": [{"name": "other"}]}},
            ("spec", "containers"),
            [{"name": "other"}],
            id="arrays are replaced whole",
        ),
        # evanphx/json-patch v4's own ways, which kube-apiserver inherits
        pytest.param(
            {"spec": {"x": [{"a": None, "b": 1}, None]}},
            ("spec", "x"),
            [{"b": 1}, None],
            id="a new array loses the nulls of its objects but keeps null items",
        ),
        pytest.param(
            {"spec": {"containers": {"n": None}}},
            ("spec", "containers"),
            {},
            id="an object replacing an array loses its nulls",
        ),
        pytest.param(
            {"metadata": {"labels": [{"n": None}]}},
            ("metadata", "labels"),
            [{"n": None}],
            id="an array replacing an object keeps its nulls",
        ),
    ],
)
def test_kubectl_bodies_and_upstream_quirks(patch: Any, path: tuple[str, ...], expected: Any) -> None:
    value: Any = apply_merge_patch(pod(), patch)
    for step in path:
        value = value[step]
    assert value == expected


def _status(code: int, reason: str, message: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    status: dict[str, Any] = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
    }
    if details is not None:
        status["details"] = details
    status["code"] = code
    return status


_TYPE_META = (
    'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }'
)


_ARRAY_BODY = (
    'Invalid value: "[\\"c\\",{}]": couldn\'t get version/kind; json parse error: '
    f"json: cannot unmarshal array into Go value of type {_TYPE_META}"
)


@pytest.mark.parametrize(
    ("patch", "strict", "expected"),
    [
        pytest.param(None, True, _status(400, "BadRequest", "Invalid JSON Patch"), id="null"),
        pytest.param(None, False, _status(400, "BadRequest", "Invalid JSON Patch"), id="null, Ignore"),
        pytest.param(
            ["c"],
            True,
            _status(
                400,
                "BadRequest",
                "error decoding patch: json: cannot unmarshal array "
                "into Go value of type map[string]interface {}",
            ),
            id="array",
        ),
        pytest.param(
            "bar",
            True,
            _status(
                400,
                "BadRequest",
                "error decoding patch: json: cannot unmarshal string "
                "into Go value of type map[string]interface {}",
            ),
            id="string",
        ),
        pytest.param(
            3,
            True,
            _status(
                400,
                "BadRequest",
                "error decoding patch: json: cannot unmarshal number "
                "into Go value of type map[string]interface {}",
            ),
            id="number",
        ),
        pytest.param("bar", False, _status(400, "BadRequest", "Invalid JSON Patch"), id="string, Ignore"),
        pytest.param(True, False, _status(400, "BadRequest", "Invalid JSON Patch"), id="bool, Ignore"),
        # RFC 7386: an array patch replaces the document, which then is no object upstream can decode
        pytest.param(
            ["c", {"x": None}],
            False,
            _status(
                422,
                "Invalid",
                f' "" is invalid: patch: {_ARRAY_BODY}',
                {"causes": [{"reason": "FieldValueInvalid", "field": "patch", "message": _ARRAY_BODY}]},
            ),
            id="array, Ignore",
        ),
    ],
)
def test_patches_that_are_not_objects_get_upstream_statuses(
    patch: Any, strict: bool, expected: dict[str, Any]
) -> None:
    with pytest.raises(StatusError) as caught:
        apply_merge_patch(pod(), patch, strict=strict)
    assert caught.value.to_status() == expected


@pytest.mark.parametrize(
    "patch",
    [
        {"metadata": {"labels": {"a": None, "new": {"deep": [1, {"x": None}]}}}},
        {"spec": {"containers": [{"name": "n", "env": [{"name": "A"}]}]}},
        {"metadata": None, "status": {"phase": None, "conditions": [{"type": "Ready"}]}},
    ],
)
def test_applying_never_changes_its_inputs(patch: dict[str, Any]) -> None:
    doc, before = pod(), copy.deepcopy(patch)
    result = apply_merge_patch(doc, patch)
    assert doc == pod() and patch == before
    for value in result.values():
        if isinstance(value, dict):
            for inner in value.values():
                if isinstance(inner, (dict, list)):
                    inner.clear()
    assert doc == pod() and patch == before


@pytest.mark.parametrize(
    "value",
    [
        {"a": [1, {"b": None}], "c": "d"},
        {"big": 2**70, "nested": [[{"x": True}]]},  # orjson cannot encode it: the fallback copies
        "scalar",
    ],
)
def test_copy_json_returns_an_equal_independent_value(value: Any) -> None:
    copied = copy_json(value)
    assert copied == value
    if isinstance(value, dict):
        assert copied is not value
        next(v for v in copied.values() if isinstance(v, list)).append("more")
        assert copied != value


def _nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {"leaf": None}
    for _ in range(depth):
        value = {"x": value}
    return value


_APPLY_EACH = {
    "merge": lambda value: apply_merge_patch({"kind": "Pod"}, {"spec": value}),
    "strategic": lambda value: apply_strategic_merge_patch({"kind": "Pod"}, {"spec": value}, {}),
    "json": lambda value: apply_json_patch({"kind": "Pod"}, [{"op": "add", "path": "/spec", "value": value}]),
}


@pytest.mark.parametrize("kind", sorted(_APPLY_EACH))
def test_deep_patches_apply_and_absurdly_deep_ones_are_a_400(kind: str) -> None:
    # 300 levels is past orjson's copy limit, so this also covers the fallback copy
    assert "spec" in _APPLY_EACH[kind](_nested(300))
    with pytest.raises(StatusError) as caught:
        _APPLY_EACH[kind](_nested(5000))
    assert caught.value.to_status() == _status(400, "BadRequest", "the patch is nested too deeply")
