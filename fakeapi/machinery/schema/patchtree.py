"""The PatchTree of a kind: the strategic-merge-patch metadata of its schema, as nested dicts.

A node maps each wire field that is an object, a list of objects, or a list carrying patch metadata to
a child node. A child node may also hold the reserved keys below, taken from the field's
`x-kubernetes-*` metadata, e.g. for Pod:

    tree["spec"]["containers"] == {"$mergeKey": "name", "$strategy": "merge", "$listType": "map",
                                   "$listMapKeys": ["name"], "ports": {...}, "env": {...}, ...}

Trees are shared by everything that patches or tracks fields of a kind: treat them as read-only. The
node of a recursive definition contains itself.
"""

from __future__ import annotations

from typing import Any

from fakeapi.machinery.schema.structural import Field, Structural

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


def patch_tree(schema: Structural) -> dict[str, Any]:
    """The PatchTree of a compiled schema, built anew: a kind builds its own once."""
    return _tree(schema, {})


def _tree(schema: Structural, building: dict[int, dict[str, Any]]) -> dict[str, Any]:
    node = building.get(id(schema))
    if node is not None:
        return node  # a recursive definition: the node being built
    node = building[id(schema)] = {}
    for name, prop in schema.properties.items():
        child = _field_node(prop, building)
        if child is not None:
            node[name] = child
    return node


def _field_node(prop: Field, building: dict[int, dict[str, Any]]) -> dict[str, Any] | None:
    target = prop.schema.items if prop.schema.type == "array" and prop.schema.items is not None else prop.schema
    nested = _tree(target, building) if target.properties else None
    reserved = {key: prop.extension(ext) for ext, key in _RESERVED if prop.extension(ext) is not None}
    if not reserved:
        return nested
    return {**(nested or {}), **reserved}
