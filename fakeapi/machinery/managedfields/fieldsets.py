"""The field sets of objects: what an applied configuration sets, what changed between two versions of
an object, and what a create sets (structured-merge-diff's ToFieldSet and Compare, over wire dicts).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import orjson

from fakeapi.machinery.managedfields.fieldpath import (
    EMPTY,
    LEAF,
    MEMBER,
    EncodedTrie,
    Trie,
    field_element,
    keyed_items,
    list_keys,
    list_kind,
    ordered,
)
from fakeapi.machinery.types import JSON

STRIPPED_META = ("name", "namespace", "creationTimestamp", "selfLink", "uid", "clusterName",
                 "generation", "managedFields", "resourceVersion")


# ---- field sets of objects


def fields_of(value: Any, node: JSON | None) -> Trie:
    """The fields an applied configuration sets (upstream's ToFieldSet), for the value at one node."""
    if isinstance(value, dict):
        if not value:
            return EMPTY
        out: Trie = {}
        struct = node is not None
        for key, child in value.items():
            child_node = node.get(key) if struct and node is not None else None
            sub = fields_of(child, child_node)
            if child is None or child == {} or not struct:
                sub = {**sub, MEMBER: EMPTY}
            if sub:
                out[field_element(key)] = sub
        return out
    if isinstance(value, list):
        kind = list_kind(node, value)
        if kind == "atomic":
            return LEAF
        keys = list_keys(node) if node is not None else []
        out = {}
        for element, item in keyed_items(value, kind, keys).items():
            out[element] = {**fields_of(item, node if kind == "map" else None), MEMBER: EMPTY}
        return out
    return LEAF


class Changes(NamedTuple):
    """Upstream's Compare result with its Added and Modified sets as one (every caller merges them)."""

    changed: Trie  # added or modified
    removed: Trie


_ABSENT = object()
_CONTAINERS = (dict, list)


class AddedFields:
    """The field sets of values a write adds, remembered by their JSON for one field manager: the
    conditions and container statuses pods report are often alike, and walking them is most of a
    first status write (figures in docs/performance.md). Its tries are shared, as tries are never
    mutated. The nodes come from the manager's own tree, which outlives this memo: their ids stay
    theirs."""

    def __init__(self, size: int = 256) -> None:
        self._size = size
        self._tries: dict[tuple[bytes, int], Trie] = {}

    def of(self, value: Any, node: JSON | None) -> Trie:
        if not isinstance(value, _CONTAINERS):
            return LEAF
        try:
            key = orjson.dumps(value), id(node)
        except TypeError:  # not plain JSON (a YAML date, a non-string key)
            return _added(value, node)
        trie = self._tries.get(key)
        if trie is None:
            trie = _added(value, node)
            if len(trie) > 1:
                trie = EncodedTrie(trie)  # the field manager encodes what was added
            if len(self._tries) >= self._size:
                del self._tries[next(iter(self._tries))]  # the oldest goes
            self._tries[key] = trie
        return trie


def compare(old: Any, new: Any, node: JSON | None, added: AddedFields | None = None) -> Changes:
    """What changed from `old` to `new` (upstream's TypedValue.Compare), per member path. `added`
    remembers the field sets of values that were absent from `old`."""
    changes = Changes({}, {})
    _compare_into(old, new, node, "", changes, added)
    return Changes(changes.changed.get("", EMPTY), changes.removed.get("", EMPTY))


def _compare_into(old: Any, new: Any, node: JSON | None, element: str, into: Changes,
                  added: AddedFields | None) -> None:
    """Compare one node and record its changes under `element` of the three tries in `into`."""
    before = None if old is _ABSENT else old
    after = None if new is _ABSENT else new
    if isinstance(before, dict) or isinstance(after, dict):
        if not _empty_or(before, dict) or not _empty_or(after, dict) or (not before and not after):
            return _leaf_change(old, new, element, into)
        changes = Changes({}, {})
        _compare_maps(before or {}, after or {}, node, changes, added)
    elif isinstance(before, list) or isinstance(after, list):
        if not _empty_or(before, list) or not _empty_or(after, list) or (not before and not after):
            return _leaf_change(old, new, element, into)
        kind = list_kind(node, (before or []) + (after or []))
        if kind == "atomic":
            return _leaf_change(old, new, element, into)
        changes = Changes({}, {})
        _compare_lists(before or [], after or [], kind, node, changes, added)
    else:
        return _leaf_change(old, new, element, into)
    # a map or list node itself is added or removed only when it was absent (not null) on one side
    if old is _ABSENT:
        changes.changed[MEMBER] = EMPTY
    elif new is _ABSENT:
        changes.removed[MEMBER] = EMPTY
    if changes.changed:
        into.changed[element] = changes.changed
    if changes.removed:
        into.removed[element] = changes.removed


def _empty_or(value: Any, kind: type) -> bool:
    return value is None or isinstance(value, kind)


def _leaf_change(old: Any, new: Any, element: str, into: Changes) -> None:
    if new is _ABSENT:
        into.removed[element] = LEAF
    elif old is _ABSENT or old != new:
        into.changed[element] = LEAF


def _compare_maps(old: JSON, new: JSON, node: JSON | None, into: Changes, added: AddedFields | None) -> None:
    for key, after in new.items():
        before = old.get(key, _ABSENT)
        if before is after or before == after:
            continue  # the common case on updates: whole subtrees equal, compared in C
        if isinstance(after, _CONTAINERS) or isinstance(before, _CONTAINERS):
            if before is _ABSENT:  # e.g. a first status write: everything below is added
                child = node.get(key) if node else None
                into.changed["f:" + key] = added.of(after, child) if added else _added(after, child)
            else:
                _compare_into(before, after, node.get(key) if node else None, "f:" + key, into, added)
        else:  # a scalar added or modified, the common case: _leaf_change inlined
            into.changed["f:" + key] = LEAF
    if old.keys() <= new.keys():
        return  # nothing removed (the common case), checked in C
    for key, before in old.items():
        if key not in new:
            _compare_into(before, _ABSENT, node.get(key) if node else None, "f:" + key, into, added)


def _compare_lists(old: list[Any], new: list[Any], kind: str, node: JSON | None, into: Changes,
                   added: AddedFields | None) -> None:
    keys = list_keys(node) if node is not None else []
    old_items = keyed_items(old, kind, keys)
    new_items = keyed_items(new, kind, keys)
    item_node = node if kind == "map" else None
    for element, after in new_items.items():
        before = old_items.get(element, _ABSENT)
        if before is _ABSENT:
            into.changed[element] = _added(after, item_node)
        elif before != after:
            _compare_into(before, after, item_node, element, into, added)
    for element, before in old_items.items():
        if element not in new_items:
            _compare_into(before, _ABSENT, item_node, element, into, added)


def _added(value: Any, node: JSON | None) -> Trie:
    """What `_compare_into` finds for a value that was absent before (every member it sets), in one
    simpler walk: first status writes add most of a status."""
    if isinstance(value, dict):
        if not value:
            return LEAF
        out: Trie = {MEMBER: EMPTY}
        for key, child in value.items():
            out["f:" + key] = (_added(child, node.get(key) if node else None)
                               if isinstance(child, _CONTAINERS) else LEAF)
        return out
    if isinstance(value, list) and value:
        kind = list_kind(node, value)
        if kind == "atomic":
            return LEAF
        item_node = node if kind == "map" else None
        out = {MEMBER: EMPTY}
        for element, item in keyed_items(value, kind, list_keys(node) if node is not None else []).items():
            out[element] = _added(item, item_node)
        return out
    return LEAF


# ---- what never belongs to a manager


def _stripped() -> Trie:
    meta: Trie = {field_element(name): LEAF for name in STRIPPED_META}
    meta[MEMBER] = EMPTY
    return {field_element("apiVersion"): LEAF, field_element("kind"): LEAF, field_element("metadata"): meta}


STRIPPED = _stripped()
"""apiVersion, kind and the system metadata: upstream's stripMetaManager drops them from every set."""


def reset_fields(paths: tuple[str, ...]) -> Trie:
    """The set of fields at these dotted paths (`status`, `metadata.ownerReferences`): what a write through
    an endpoint cannot set (upstream's GetResetFields), ignored when tracking."""
    trie: Trie = {}
    for path in paths:
        node = trie
        parts = path.split(".")
        for part in parts[:-1]:
            node = node.setdefault(field_element(part), {})
        node[field_element(parts[-1])] = LEAF
    return trie


def created_fields(obj: JSON, tree: JSON, zero: JSON, ignored: Trie) -> JSON:
    """The FieldsV1 (wire form) a create gives its manager: everything the object sets that its zero
    value does not, less apiVersion, kind, system metadata and the endpoint's reset fields."""
    out: JSON = {}
    for key in sorted(obj):
        if key in ("apiVersion", "kind") or MEMBER in ignored.get(field_element(key), EMPTY):
            continue
        value = obj[key]
        if key == "metadata" and isinstance(value, dict):
            value = {k: v for k, v in value.items() if k not in STRIPPED_META}
        wire = _created(value, tree.get(key), zero.get(key, _ABSENT))
        if wire is not None:
            out[field_element(key)] = wire
    return out


def _created(value: Any, node: JSON | None, zero: Any) -> JSON | None:
    present = zero is not _ABSENT
    if present and value == zero:
        return None
    if isinstance(value, dict) and value:
        out: JSON = {} if present else {MEMBER: {}}
        child_zero = zero if isinstance(zero, dict) else {}
        for key in sorted(value):
            child = value[key]
            if not isinstance(child, _CONTAINERS) and key not in child_zero:
                out["f:" + key] = {}  # a scalar: the common case, kept cheap
                continue
            wire = _created(child, node.get(key) if node is not None else None, child_zero.get(key, _ABSENT))
            if wire is not None:
                out["f:" + key] = wire
        return out if len(out) > (0 if present else 1) else ({} if not present else None)
    if isinstance(value, list) and value:
        kind = list_kind(node, value)
        if kind == "atomic":
            return {}
        items = keyed_items(value, kind, list_keys(node) if node is not None else [])
        out = {} if present else {MEMBER: {}}
        item_node = node if kind == "map" else None
        for element in ordered(items):
            out[element] = _created(items[element], item_node, _ABSENT)
        return out
    return {}
