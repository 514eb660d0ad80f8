"""Helpers over decoded JSON values: the name Go gives their type, and cheap deep copies."""

from __future__ import annotations

from typing import Any

import orjson

_CONTAINERS = (dict, list)

# upstream's json decoder names a value by its JSON type in "cannot unmarshal" errors
_JSON_TYPE_NAMES: dict[type, str] = {
    dict: "object", list: "array", str: "string", bool: "bool", int: "number", float: "number",
}


def json_type_name(value: Any) -> str:
    """The name Go's encoding/json gives a decoded value in an UnmarshalTypeError."""
    return _JSON_TYPE_NAMES.get(type(value), "null")


def same_json(a: Any, b: Any) -> bool:
    """Whether two decoded JSON values are the same JSON. Python's == is not enough: it equates
    `true` with `1` and `1` with `1.0`, which a strict decoder tells apart."""
    if a is b:
        return True
    kind = type(a)
    if kind is not type(b):
        return False
    if kind is dict or kind is list:
        try:  # serialised, a number or bool inside keeps its type
            return orjson.dumps(a) == orjson.dumps(b)
        except (orjson.JSONEncodeError, TypeError):  # not plain JSON (a YAML date): decoded afresh
            return False
    return bool(a == b)


def copy_json(value: Any) -> Any:
    """An independent copy of a JSON value: an orjson round trip, much faster than copy.deepcopy."""
    if type(value) not in _CONTAINERS:
        return value
    try:
        return orjson.loads(orjson.dumps(value))
    except orjson.JSONEncodeError:  # integers beyond 64 bits, non-string keys (YAML), very deep nesting
        return _copy_tree(value)


def _copy_tree(value: Any) -> Any:
    if type(value) is dict:
        return {key: _copy_tree(item) if type(item) in _CONTAINERS else item for key, item in value.items()}
    return [_copy_tree(item) if type(item) in _CONTAINERS else item for item in value]


def _member_head(key: str) -> bytes:
    """`"key":` as orjson writes it (the same few top-level keys every time)."""
    return orjson.dumps(key) + b":"


def parse_sharing(data: bytes, like: dict[str, Any]) -> dict[str, Any]:
    """Parse the JSON object `data`, taking its leading members from `like` where they serialise to
    the very same bytes (so they are equal): an update mostly resends the stored metadata and spec,
    and parsing them again is most of the cost of reading the stored object.

    The result shares those values with `like`; the rest is parsed fresh.
    """
    pos = 1  # after "{"; orjson writes no whitespace, so members follow each other directly
    shared: dict[str, Any] = {}
    for key, value in like.items():
        try:
            member = _member_head(key) + orjson.dumps(value)
        except (orjson.JSONEncodeError, TypeError):  # e.g. a YAML body's non-string keys
            break
        end = pos + len(member)
        if not data.startswith(member, pos) or data[end:end + 1] not in (b",", b"}"):
            break
        shared[key] = value
        pos = end + 1
        if data[end:end + 1] == b"}":
            return shared
    if not shared:
        return orjson.loads(data)  # type: ignore[no-any-return]
    rest: dict[str, Any] = orjson.loads(b"{" + data[pos:])
    return {**shared, **rest}
