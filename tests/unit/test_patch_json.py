"""JSON patch (RFC 6902): every operation, upstream's evanphx v4 quirks, and the exact error Statuses."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from fakeapi.machinery.errors import StatusError
from fakeapi.machinery.patch import MAX_COPY_BYTES, MAX_OPERATIONS, apply_json_patch


def pod() -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "web-1", "labels": {"app": "web", "p": "x"}, "finalizers": ["a", "b"]},
        "spec": {
            "containers": [{"name": "nginx", "image": "nginx:1.25"}, {"name": "side", "image": "busybox"}]
        },
    }


def patched(*operations: dict[str, Any]) -> dict[str, Any]:
    return apply_json_patch(pod(), list(operations))


def with_changes(change: Any) -> dict[str, Any]:
    expected = pod()
    change(expected)
    return expected


@pytest.mark.parametrize(
    ("operations", "expected"),
    [
        pytest.param(
            [{"op": "replace", "path": "/metadata/labels/p", "value": "json"}],
            with_changes(lambda o: o["metadata"]["labels"].update(p="json")),
            id="kubectl patch --type=json",
        ),
        pytest.param(
            [{"op": "add", "path": "/metadata/labels/new", "value": "1"}],
            with_changes(lambda o: o["metadata"]["labels"].update(new="1")),
            id="add a member",
        ),
        pytest.param(
            [{"op": "add", "path": "/metadata/finalizers/1", "value": "m"}],
            with_changes(lambda o: o["metadata"]["finalizers"].insert(1, "m")),
            id="add inserts into an array",
        ),
        pytest.param(
            [{"op": "add", "path": "/metadata/finalizers/-", "value": "z"}],
            with_changes(lambda o: o["metadata"]["finalizers"].append("z")),
            id="add appends with -",
        ),
        pytest.param(
            [{"op": "add", "path": "/metadata/annotations", "value": {"a": "b"}}],
            with_changes(lambda o: o["metadata"].update(annotations={"a": "b"})),
            id="add an object",
        ),
        pytest.param(
            [{"op": "remove", "path": "/metadata/labels/p"}],
            with_changes(lambda o: o["metadata"]["labels"].pop("p")),
            id="remove a member",
        ),
        pytest.param(
            [{"op": "remove", "path": "/spec/containers/1"}],
            with_changes(lambda o: o["spec"]["containers"].pop(1)),
            id="remove an array item",
        ),
        pytest.param(
            [{"op": "replace", "path": "/spec/containers/0/image", "value": "nginx:1.26"}],
            with_changes(lambda o: o["spec"]["containers"][0].update(image="nginx:1.26")),
            id="replace",
        ),
        pytest.param(
            [{"op": "move", "from": "/metadata/labels/p", "path": "/metadata/labels/q"}],
            with_changes(lambda o: o["metadata"]["labels"].update(q=o["metadata"]["labels"].pop("p"))),
            id="move",
        ),
        pytest.param(
            [{"op": "move", "from": "/spec/containers/1", "path": "/spec/containers/0"}],
            with_changes(lambda o: o["spec"]["containers"].reverse()),
            id="move within an array",
        ),
        pytest.param(
            [{"op": "copy", "from": "/metadata/labels", "path": "/metadata/annotations"}],
            with_changes(lambda o: o["metadata"].update(annotations=dict(o["metadata"]["labels"]))),
            id="copy",
        ),
        pytest.param(
            [
                {"op": "test", "path": "/metadata/labels/app", "value": "web"},
                {"op": "replace", "path": "/metadata/labels/app", "value": "api"},
            ],
            with_changes(lambda o: o["metadata"]["labels"].update(app="api")),
            id="test that passes guards",
        ),
        pytest.param(
            [{"op": "test", "path": "/spec/containers/0", "value": {"image": "nginx:1.25", "name": "nginx"}}],
            pod(),
            id="test compares objects",
        ),
        pytest.param([], pod(), id="an empty patch changes nothing"),
        pytest.param(None, pod(), id="a null patch changes nothing"),
        # evanphx/json-patch v4, which kube-apiserver uses, does not follow the RFC here
        pytest.param(
            [{"op": "replace", "path": "/metadata/labels/new", "value": "1"}],
            with_changes(lambda o: o["metadata"]["labels"].update(new="1")),
            id="replace of a missing member adds it",
        ),
        pytest.param(
            [{"op": "add", "path": "/metadata/labels/new"}],
            with_changes(lambda o: o["metadata"]["labels"].update(new=None)),
            id="add without a value adds null",
        ),
        pytest.param(
            [{"op": "test", "path": "/metadata/labels/absent", "value": None}],
            pod(),
            id="testing a missing member against null passes",
        ),
        pytest.param(
            [{"op": "copy", "from": "/metadata/labels/absent", "path": "/metadata/labels/c"}],
            with_changes(lambda o: o["metadata"]["labels"].update(c=None)),
            id="copying a missing member copies null",
        ),
        pytest.param(
            [{"op": "add", "path": "junk/metadata/labels/new", "value": "1"}],
            with_changes(lambda o: o["metadata"]["labels"].update(new="1")),
            id="text before the first slash is ignored",
        ),
        pytest.param(
            [{"op": "replace", "path": "", "value": {"kind": "Pod"}}], {"kind": "Pod"}, id="replace the root"
        ),
        pytest.param(
            [{"op": "replace", "path": "", "value": None}], {}, id="a null root decodes as an empty object"
        ),
    ],
)
def test_operations(operations: Any, expected: dict[str, Any]) -> None:
    assert apply_json_patch(pod(), operations) == expected


# ---- errors, as whole Status bodies

UNPROCESSABLE = {
    "kind": "Status",
    "apiVersion": "v1",
    "metadata": {},
    "status": "Failure",
    "message": "the server rejected our request due to an error in our request",
    "reason": "Invalid",
    "details": {},
    "code": 422,
}


@pytest.mark.parametrize(
    "operations",
    [
        pytest.param([{"op": "test", "path": "/metadata/labels/app", "value": "other"}], id="failed test"),
        pytest.param(
            [{"op": "test", "path": "/metadata/labels/absent", "value": "x"}], id="test of a missing member"
        ),
        pytest.param(
            [{"op": "test", "path": "/metadata/labels/app"}], id="test without a value of a present member"
        ),
        pytest.param(
            [{"op": "test", "path": "/spec/containers/0/name", "value": 1}], id="test of another type"
        ),
        pytest.param(
            [{"op": "test", "path": "/metadata/generation", "value": 1.0}], id="test of 1.0 against a missing"
        ),
        pytest.param([{"op": "remove", "path": "/metadata/labels/x"}], id="remove of a missing member"),
        pytest.param([{"op": "remove", "path": "/metadata/nope/x"}], id="remove under a missing path"),
        pytest.param([{"op": "add", "path": "/metadata/nope/x", "value": 1}], id="add under a missing path"),
        pytest.param([{"op": "add", "path": "/metadata/finalizers/9", "value": "z"}], id="add past the end"),
        pytest.param(
            [{"op": "replace", "path": "/spec/containers/5", "value": {}}], id="replace of a missing index"
        ),
        pytest.param(
            [{"op": "replace", "path": "/spec/containers/x", "value": {}}], id="array index that is not one"
        ),
        pytest.param([{"op": "add", "path": "/metadata/name/x", "value": 1}], id="path through a string"),
        pytest.param(
            [{"op": "move", "from": "/metadata/absent", "path": "/metadata/x"}], id="move of a missing member"
        ),
        pytest.param(
            [{"op": "move", "from": "/metadata", "path": "/metadata/labels/m"}], id="move into itself"
        ),
        pytest.param(
            [{"op": "copy", "from": "/spec/containers/7", "path": "/metadata/x"}],
            id="copy of a missing index",
        ),
        pytest.param([{"op": "copy", "path": "/metadata/x"}], id="copy without from"),
        pytest.param([{"op": "add", "path": "", "value": {}}], id="add at the root"),
        pytest.param([{"op": "remove", "path": ""}], id="remove the root"),
        pytest.param([{"op": "replace", "path": "", "value": 5}], id="replace the root with a scalar"),
        pytest.param([{"op": "add", "value": 1}], id="no path"),
        pytest.param([{"op": "add", "path": "nolash", "value": 1}], id="path without a slash"),
        pytest.param([{"op": "append", "path": "/metadata/name", "value": "x"}], id="unknown op"),
        pytest.param([{"path": "/metadata/name"}], id="no op"),
        pytest.param([None], id="null operation"),
        pytest.param(
            [
                {"op": "add", "path": "/metadata/labels/x", "value": "1"},
                {"op": "test", "path": "/metadata/labels/x", "value": "2"},
            ],
            id="a later failure fails it all",
        ),
    ],
)
def test_failed_operations_get_upstreams_generic_422(operations: Any) -> None:
    doc = pod()
    with pytest.raises(StatusError) as caught:
        apply_json_patch(doc, operations)
    assert caught.value.to_status() == UNPROCESSABLE
    assert doc == pod()


STRICT = "error decoding patch: json: cannot unmarshal "


def _bad_request(message: str) -> dict[str, Any]:
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": "BadRequest",
        "code": 400,
    }


@pytest.mark.parametrize(
    ("patch", "strict", "expected"),
    [
        pytest.param(
            {"op": "add"},
            True,
            _bad_request(
                STRICT + "object into Go value of type []handlers.jsonPatchOp"
            ),
            id="object body",
        ),
        pytest.param(
            {"op": "add"},
            False,
            _bad_request("json: cannot unmarshal object into Go value of type jsonpatch.Patch"),
            id="object body, Ignore",
        ),
        pytest.param(
            "x",
            True,
            _bad_request(
                STRICT + "string into Go value of type []handlers.jsonPatchOp"
            ),
            id="string body",
        ),
        pytest.param(
            [1],
            True,
            _bad_request(
                STRICT + "number into Go value of type handlers.jsonPatchOp"
            ),
            id="operation that is a number",
        ),
        pytest.param(
            [["add"]],
            False,
            _bad_request("json: cannot unmarshal array into Go value of type jsonpatch.Operation"),
            id="operation array, Ignore",
        ),
        pytest.param(
            [{"op": 5, "path": "/a"}],
            True,
            _bad_request(
                STRICT + "number into Go struct field jsonPatchOp.op of type string"
            ),
            id="op that is not a string",
        ),
        pytest.param(
            [{"op": "add", "path": True}],
            True,
            _bad_request(
                STRICT + "bool into Go struct field jsonPatchOp.path of type string"
            ),
            id="path that is not a string",
        ),
        pytest.param(
            [{"op": "move", "path": "/a", "from": {}}],
            True,
            _bad_request(
                STRICT + "object into Go struct field jsonPatchOp.from of type string"
            ),
            id="from that is not a string",
        ),
    ],
)
def test_undecodable_patches_are_400(patch: Any, strict: bool, expected: dict[str, Any]) -> None:
    with pytest.raises(StatusError) as caught:
        apply_json_patch(pod(), patch, strict=strict)
    assert caught.value.to_status() == expected


def test_an_op_that_is_not_a_string_is_a_422_when_decoding_loosely() -> None:
    with pytest.raises(StatusError) as caught:
        apply_json_patch(pod(), [{"op": 5, "path": "/a"}], strict=False)
    assert caught.value.to_status() == UNPROCESSABLE


def test_too_many_operations_is_413() -> None:
    operations = [{"op": "test", "path": "/kind", "value": "Pod"}] * (MAX_OPERATIONS + 1)
    with pytest.raises(StatusError) as caught:
        apply_json_patch(pod(), operations)
    assert caught.value.to_status() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": "Request entity too large: "
        "The allowed maximum operations in a JSON patch is 10000, got 10001",
        "reason": "RequestEntityTooLarge",
        "code": 413,
    }


def test_the_maximum_number_of_operations_is_allowed() -> None:
    operations = [{"op": "test", "path": "/kind", "value": "Pod"}] * MAX_OPERATIONS
    assert apply_json_patch(pod(), operations) == pod()


def test_copies_may_not_grow_the_object_past_the_limit() -> None:
    big = {"kind": "Pod", "data": "x" * (MAX_COPY_BYTES // 4)}
    grow = [{"op": "copy", "from": "/data", "path": f"/copy{i}"} for i in range(4)]
    assert len(apply_json_patch(big, grow[:3])) == 5
    with pytest.raises(StatusError) as caught:
        apply_json_patch(big, grow)
    assert caught.value.to_status() == UNPROCESSABLE


def test_a_result_that_is_not_an_object_is_an_invalid_patch() -> None:
    with pytest.raises(StatusError) as caught:
        apply_json_patch(pod(), [{"op": "replace", "path": "", "value": [1, {"b": 2, "a": 1}]}])
    detail = (
        "couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type "
        'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; '
        'Kind string "json:\\"kind,omitempty\\"" }'
    )
    assert caught.value.to_status() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": f' "" is invalid: patch: Invalid value: "[1,{{\\"a\\":1,\\"b\\":2}}]": {detail}',
        "reason": "Invalid",
        "details": {
            "causes": [
                {
                    "reason": "FieldValueInvalid",
                    "field": "patch",
                    "message": f'Invalid value: "[1,{{\\"a\\":1,\\"b\\":2}}]": {detail}',
                }
            ]
        },
        "code": 422,
    }


# ---- purity


@pytest.mark.parametrize(
    "operations",
    [
        [{"op": "add", "path": "/metadata/annotations", "value": {"a": {"b": "c"}}}],
        [{"op": "replace", "path": "/spec/containers/0", "value": {"name": "n", "env": [{"name": "A"}]}}],
        [{"op": "replace", "path": "", "value": {"kind": "Pod", "metadata": {"labels": {}}}}],
        [
            {"op": "copy", "from": "/spec/containers", "path": "/spec/initContainers"},
            {"op": "move", "from": "/metadata/labels", "path": "/metadata/annotations"},
        ],
        [
            {"op": "remove", "path": "/metadata/finalizers/0"},
            {"op": "test", "path": "/kind", "value": "Nope"},
        ],
    ],
)
def test_applying_never_changes_its_inputs(operations: list[dict[str, Any]]) -> None:
    doc, before = pod(), copy.deepcopy(operations)
    try:
        result = apply_json_patch(doc, operations)
    except StatusError:
        result = {}
    assert doc == pod() and operations == before
    for value in result.values():
        if isinstance(value, dict):
            for inner in value.values():
                if isinstance(inner, (dict, list)):
                    inner.clear()
    assert doc == pod() and operations == before
