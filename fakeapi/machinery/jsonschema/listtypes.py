"""`x-kubernetes-list-type: set` and `map` lists hold no duplicates (upstream's listtype validation):
a repeated item is `Duplicate value` at its index, each repetition reported once."""

from __future__ import annotations

from typing import Any

import orjson

from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.jsonschema.schema import Schema
from fakeapi.machinery.validation.values import GoText


def validate_list_types(schema: Schema, obj: Any, path: str = "") -> list[FieldError]:
    errors: list[FieldError] = []
    _walk(schema, obj, path, errors)
    return errors


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _walk(schema: Schema, value: Any, path: str, errors: list[FieldError]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            child = schema.properties.get(key)
            if child is not None:
                _walk(child, item, _join(path, key), errors)
            elif schema.additional is not None:
                _walk(schema.additional, item, f"{path}[{key}]", errors)
    elif isinstance(value, list):
        if schema.list_type == "set":
            errors.extend(fe.duplicate(f"{path}[{index}]", value[index]) for index in _repeated(value, _identity))
        elif schema.list_type == "map":
            errors.extend(_map_errors(schema, value, path))
        if schema.items is not None:
            for index, item in enumerate(value):
                _walk(schema.items, item, f"{path}[{index}]", errors)


def _identity(item: Any) -> bytes:
    return orjson.dumps(item, option=orjson.OPT_SORT_KEYS)


def _repeated(items: list[Any], key: Any) -> list[int]:
    """Indexes of the second occurrence of each repeated item."""
    counts: dict[bytes, int] = {}
    repeated: list[int] = []
    for index, item in enumerate(items):
        identity = key(item)
        counts[identity] = counts.get(identity, 0) + 1
        if counts[identity] == 2:
            repeated.append(index)
    return repeated


def _map_errors(schema: Schema, items: list[Any], path: str) -> list[FieldError]:
    for index, item in enumerate(items):
        if item is not None and not isinstance(item, dict):
            return [fe.invalid(f"{path}[{index}]", item, "must be an object for an array of list-type map")]
    keys = schema.list_map_keys

    def identity(item: Any) -> bytes:
        item = item or {}
        return _identity([item.get(key) for key in keys])

    return [fe.duplicate(f"{path}[{index}]", _key_map({key: (items[index] or {}).get(key) for key in keys
                                                     if key in (items[index] or {})}))
            for index in _repeated(items, identity)]


def _key_map(keys: dict[str, Any]) -> GoText:
    """The keys of a map list item, as Go's %#v of a map[string]interface{} prints them."""
    inner = ", ".join(f"{orjson.dumps(key).decode()}:{_go_sharp(value)}" for key, value in sorted(keys.items()))
    return GoText("map[string]interface {}{" + inner + "}")


def _go_sharp(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return orjson.dumps(value).decode()
    if value is None:
        return "interface {}(nil)"
    return str(value)
