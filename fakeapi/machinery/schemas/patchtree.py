"""The PatchTree of a kind: the strategic-merge-patch metadata of its schema, as nested dicts.

A node maps each wire field that is an object, a list of objects, or a list carrying patch metadata to
a child node. A child node may also hold the reserved keys below, taken from the field's
`x-kubernetes-*` metadata, e.g. for Pod:

    tree["spec"]["containers"] == {"$mergeKey": "name", "$strategy": "merge", "$listType": "map",
                                   "$listMapKeys": ["name"], "ports": {...}, "env": {...}, ...}

Trees are shared by everything that patches or tracks fields of a kind: treat them as read-only.
"""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields

MERGE_KEY = "$mergeKey"
STRATEGY = "$strategy"
LIST_TYPE = "$listType"
LIST_MAP_KEYS = "$listMapKeys"

_RESERVED = (
    ("x-kubernetes-patch-merge-key", MERGE_KEY),
    ("x-kubernetes-patch-strategy", STRATEGY),
    ("x-kubernetes-list-type", LIST_TYPE),
    ("x-kubernetes-list-map-keys", LIST_MAP_KEYS),
)


def patch_tree(schema: Schema | type[Schema]) -> dict[str, Any]:
    """The PatchTree of `schema` (an instance or a class), built anew: a registry builds its kind's once."""
    return _tree(schema if isinstance(schema, type) else type(schema))


def _tree(schema_class: type[Schema]) -> dict[str, Any]:
    node: dict[str, Any] = {}
    for name, declared in schema_class._declared_fields.items():
        child = _field_node(declared)
        if child is not None:
            node[declared.data_key or name] = child
    return node


def _field_node(declared: fields.Field[Any]) -> dict[str, Any] | None:
    target = declared.inner if isinstance(declared, fields.List) else declared
    nested = _tree(_nested_class(target)) if isinstance(target, fields.Nested) else None
    reserved = {key: declared.metadata[ext] for ext, key in _RESERVED if ext in declared.metadata}
    if not reserved:
        return nested
    return {**(nested or {}), **reserved}


def _nested_class(declared: fields.Nested) -> type[Schema]:
    nested = declared.nested
    if isinstance(nested, type) and issubclass(nested, Schema):
        return nested
    if isinstance(nested, Schema):
        return type(nested)
    return type(declared.schema)
