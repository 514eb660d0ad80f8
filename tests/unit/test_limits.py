"""How deep a request body may nest (limits.MAX_DEPTH), and where a deeper one goes too deep."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from fakeapi.machinery.limits import MAX_DEPTH, load_json, nesting_error


def nested(depth: int, inner: Any = None) -> Any:
    value = inner
    for _ in range(depth):
        value = {"a": value}
    return value


@pytest.mark.parametrize("value", [
    nested(MAX_DEPTH),
    [nested(MAX_DEPTH - 1)],
    {"wide": [[1, 2]] * 500},  # many brackets, little depth
    {"managedFields": [{f"f:{n}": {} for n in range(500)}], "deep": nested(MAX_DEPTH - 2, {})},  # many `{}`
    nested(MAX_DEPTH - 1, {}),
    nested(MAX_DEPTH - 1, ["{}", "[]"]),
    "text",
])
def test_values_within_the_depth_pass(value: Any) -> None:
    assert nesting_error(value) is None
    assert nesting_error(value, orjson.dumps(value)) is None
    assert load_json(orjson.dumps(value)) == value


@pytest.mark.parametrize(("value", "where"), [
    (nested(MAX_DEPTH + 1), "a.a.a.a.a.a.a.a.a.a ..."),
    ({"spec": {"volumes": [{"flexVolume": nested(200)}]}}, "spec.volumes[0].flexVolume.a.a.a.a.a.a ..."),
    ([[nested(MAX_DEPTH)]], "[0][0].a.a.a.a.a.a.a.a ..."),
    (nested(MAX_DEPTH, {}), "a.a.a.a.a.a.a.a.a.a ..."),  # the last level empty
    (nested(MAX_DEPTH, []), "a.a.a.a.a.a.a.a.a.a ..."),
    ({"text": "{}" * 200, "deep": nested(MAX_DEPTH, {"b": [{}, []]})}, "deep.a.a.a.a.a.a.a.a.a ..."),
])
def test_a_deeper_value_is_refused_naming_where(value: Any, where: str) -> None:
    assert nesting_error(value) == f"exceeded max depth of {MAX_DEPTH} at {where}"
    with pytest.raises(ValueError, match="exceeded max depth of 100 at "):
        load_json(orjson.dumps(value))


def test_the_limit_is_below_what_the_store_can_encode() -> None:
    orjson.dumps({"watch event": {"table": {"rows": [{"object": nested(MAX_DEPTH)}]}}})
