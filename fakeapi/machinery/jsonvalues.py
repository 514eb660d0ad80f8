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


def deep_equal(a: Any, b: Any) -> bool:
    """Go's reflect.DeepEqual on decoded JSON: true and 1 differ, as do 1 and 1.0; map order does not count."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(deep_equal(item, b[key]) for key, item in a.items())
    if isinstance(a, list):
        return len(a) == len(b) and all(deep_equal(item, other) for item, other in zip(a, b, strict=True))
    return bool(a == b)
