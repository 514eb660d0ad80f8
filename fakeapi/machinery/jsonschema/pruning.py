"""Pruning: the fields a schema does not declare are dropped (upstream's structural pruning), and their
paths are reported for `fieldValidation` (`unknown field "spec.foo"`).

`x-kubernetes-preserve-unknown-fields` keeps them (what is below declared fields is still pruned); an
embedded resource and the root keep `apiVersion`, `kind` and `metadata`.
"""

from __future__ import annotations

from typing import Any

from fakeapi.machinery.jsonschema.schema import Schema

META_FIELDS = frozenset({"apiVersion", "kind", "metadata"})


def prune(obj: Any, schema: Schema | None, resource_root: bool = True) -> list[str]:
    """Drop what `schema` does not declare from `obj` (in place); the dropped fields' paths, sorted."""
    unknown: list[str] = []
    _prune(obj, schema, "", unknown, resource_root or (schema is not None and schema.embedded), True)
    unknown.sort()
    return unknown


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _prune(value: Any, schema: Schema | None, path: str, unknown: list[str], embedded: bool, root: bool) -> None:
    if schema is not None and schema.preserve_unknown:
        _keep_unknown(value, schema, path, unknown, embedded)
        return
    if isinstance(value, dict):
        if schema is None:
            unknown.extend(_join(path, key) for key in value)
            value.clear()
            return
        for key in list(value):
            if embedded and key in META_FIELDS:
                continue
            child = schema.properties.get(key)
            if child is None:
                child = schema.additional
            if child is not None:
                _prune(value[key], child, _join(path, key), unknown, child.embedded, False)
                continue
            if key not in META_FIELDS or not root:
                unknown.append(_join(path, key))
            del value[key]
    elif isinstance(value, list):
        items = schema.items if schema is not None else None
        for index, item in enumerate(value):
            _prune(item, items, f"{path}[{index}]", unknown, items is not None and items.embedded, False)


def _keep_unknown(value: Any, schema: Schema, path: str, unknown: list[str], embedded: bool) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            if embedded and key in META_FIELDS:
                continue
            child = schema.properties.get(key)
            if child is None:
                child = schema.additional
            if child is not None:
                _prune(item, child, _join(path, key), unknown, child.embedded, False)
    elif isinstance(value, list) and schema.items is not None:
        for index, item in enumerate(value):
            _keep_unknown(item, schema.items, f"{path}[{index}]", unknown, schema.items.embedded)
