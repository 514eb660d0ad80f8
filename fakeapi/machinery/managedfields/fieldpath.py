"""Field sets in upstream's FieldsV1 form (structured-merge-diff's fieldpath): elements, algebra, encoding.

A field set is a trie: keys are path elements (`f:<field>`, `k:<keys as JSON>` for items of a keyed
list, `v:<JSON>` for items of a set list), and the key `.` marks the node itself as a member. A leaf
member is `{".": {}}` here and `{}` on the wire. Tries are never mutated once built, so subtries are
shared freely. Which lists are keyed, sets or atomic comes from the schema's PatchTree
(`fakeapi.machinery.schema.patchtree`), the metadata strategic merge patch reads too.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from typing import Any

import orjson

from fakeapi.machinery.schema.patchtree import LIST_MAP_KEYS, LIST_TYPE, MERGE_KEY, STRATEGY
from fakeapi.machinery.types import JSON

Trie = dict[str, "Trie"]
MEMBER = "."
LEAF: Trie = {MEMBER: {}}
EMPTY: Trie = {}
# a key field missing from a list item takes the schema default, as upstream's key lookup does
_KEY_DEFAULTS: dict[str, Any] = {"protocol": "TCP"}
_ELEMENT_ORDER = {"f": 0, "k": 1, "v": 2, "i": 3}


# ---- trie algebra


def is_member(node: Trie) -> bool:
    return MEMBER in node


def union(a: Trie, b: Trie) -> Trie:
    if not a or a is b:
        return b
    if not b:
        return a
    out = dict(a)
    for key, child in b.items():
        if key in out and key != MEMBER:
            out[key] = union(out[key], child)
        else:
            out[key] = child
    return out


def difference(a: Trie, b: Trie) -> Trie:
    """Members of `a` that are not members of `b` (membership only: b's members keep a's children)."""
    if not b or not a:
        return a
    out: Trie = {}
    for key, child in a.items():
        if key == MEMBER:
            if MEMBER not in b:
                out[MEMBER] = EMPTY
        elif key in b:
            rest = difference(child, b[key])
            if rest:
                out[key] = rest
        else:
            out[key] = child
    return out


def intersection(a: Trie, b: Trie) -> Trie:
    if not a or not b:
        return EMPTY
    out: Trie = {}
    for key, child in a.items():
        if key == MEMBER:
            if MEMBER in b:
                out[MEMBER] = EMPTY
        elif key in b:
            both = intersection(child, b[key])
            if both:
                out[key] = both
    return out


def without_subtrees(a: Trie, b: Trie) -> Trie:
    """`a` minus every member of `b` and everything beneath it (upstream's RecursiveDifference)."""
    if not b or not a:
        return a
    out: Trie = {}
    for key, child in a.items():
        other = b.get(key) if key != MEMBER else None
        if other is None:
            out[key] = child
        elif not is_member(other):
            rest = without_subtrees(child, other)
            if rest:
                out[key] = rest
    return out


def paths(node: Trie, prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """Every member path, in upstream's order."""
    if MEMBER in node:
        yield prefix
    for key in ordered(node):
        yield from paths(node[key], (*prefix, key))


def path_string(path: tuple[str, ...]) -> str:
    """A path as upstream prints it: `.spec.containers[name="ap"].image`."""
    parts: list[str] = []
    for element in path:
        kind, text = element[0], element[2:]
        if kind == "f":
            parts.append("." + text)
        elif kind == "k":
            keys = orjson.loads(text)
            parts.append("[" + ",".join(f"{name}={go_json(value)}" for name, value in keys.items()) + "]")
        elif kind == "v":
            parts.append("[=" + text + "]")
        else:
            parts.append("[" + text + "]")
    return "".join(parts)


# ---- path elements


def field_element(name: str) -> str:
    return "f:" + name


def go_json(value: Any) -> str:
    # Go's encoder escapes HTML characters; keys rarely hold them, but match it anyway
    text = orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()
    if "<" in text or ">" in text or "&" in text:
        text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return text


def list_kind(node: JSON | None, items: list[Any]) -> str:
    """`map` (keyed), `set` or `atomic`, from the list's PatchTree node."""
    if node is None:
        return "atomic"
    declared = node.get(LIST_TYPE)
    if declared is not None:
        return str(declared)
    if MERGE_KEY in node:
        return "map"
    if "merge" in str(node.get(STRATEGY, "")) and not any(isinstance(item, dict) for item in items):
        return "set"
    return "atomic"


def list_keys(node: JSON) -> list[str]:
    keys = node.get(LIST_MAP_KEYS)
    if keys:
        return list(keys)
    return [str(node[MERGE_KEY])] if MERGE_KEY in node else []


def item_element(item: Any, kind: str, keys: list[str]) -> str | None:
    """The path element of a list item; None when a keyed item lacks a key (upstream rejects it)."""
    if kind == "set":
        return "v:" + go_json(item)
    if not isinstance(item, dict):
        return None
    values: dict[str, Any] = {}
    for key in sorted(keys):
        if key in item and item[key] is not None:
            values[key] = item[key]
        elif key in _KEY_DEFAULTS:
            values[key] = _KEY_DEFAULTS[key]
        else:
            return None
    return "k:" + go_json(values)


def keyed_items(items: list[Any], kind: str, keys: list[str]) -> dict[str, Any]:
    """Items by path element, in list order; a repeated element keeps its first item, as upstream."""
    by_element: dict[str, Any] = {}
    for item in items:
        element = item_element(item, kind, keys)
        if element is not None and element not in by_element:
            by_element[element] = item
    return by_element


def ordered(elements: Collection[str]) -> list[str]:
    """Path elements in upstream's order: fields by name, then keyed items, values, indexes (no `.`)."""
    names = [e for e in elements if e[0] == "f"]
    names.sort()  # "f:" + name sorts as the name does, and fast
    if len(names) + (MEMBER in elements) < len(elements):
        names.extend(sorted((e for e in elements if e[0] not in "f."), key=_element_order))
    return names


def _element_order(element: str) -> tuple[int, Any]:
    kind = element[0]
    if kind == "k":
        # upstream compares keyed elements field by field: name, then value
        return 1, [(name, _value_order(value)) for name, value in orjson.loads(element[2:]).items()]
    if kind == "v":
        return 2, _value_order(orjson.loads(element[2:]))
    if kind == "i":
        return 3, int(element[2:])
    return _ELEMENT_ORDER.get(kind, 4), element[2:]


def _value_order(value: Any) -> tuple[int, Any]:
    if isinstance(value, bool):
        return 1, value
    if isinstance(value, int | float):
        return 2, value
    if isinstance(value, str):
        return 3, value
    return 4, go_json(value)


# ---- the wire form


class EncodedTrie(dict[str, Trie]):
    """A trie that comes up again (a remembered compare's) with its wire form, worked out once. Wire
    sets are never mutated either, so the encoding is shared too."""

    __slots__ = ("wire",)

    def __init__(self, trie: Trie) -> None:
        super().__init__(trie)
        self.wire = encode_fields(trie)


def encode_fields(node: Trie) -> JSON:
    """A trie as FieldsV1 JSON, keys in upstream's order (`.` first)."""
    if len(node) == 1 and MEMBER in node:
        return {}  # a leaf: most nodes
    if type(node) is EncodedTrie:
        return node.wire
    out: JSON = {MEMBER: {}} if MEMBER in node else {}
    for key in ordered(node):
        out[key] = encode_fields(node[key])
    return out


def decode_fields(wire: Any) -> Trie:
    """A FieldsV1 set (a root: `{}` is the empty set) as a trie. Raises ValueError when malformed."""
    if not isinstance(wire, dict):
        raise ValueError("fieldsV1 must be an object")
    return {key: _decode_node(child, key) for key, child in wire.items()}


def _decode_node(wire: Any, key: str) -> Trie:
    if not isinstance(wire, dict) or len(key) < 3 or key[1] != ":" or key[0] not in _ELEMENT_ORDER:
        raise ValueError(f"bad path element {key!r}")
    if not wire:
        return LEAF
    return {child_key: EMPTY if child_key == MEMBER else _decode_node(child, child_key)
            for child_key, child in wire.items()}


# ---- the same algebra on the wire form, copying only the nodes a (small) trie reaches


def wire_difference(wire: JSON, trie: Trie) -> JSON:
    """A FieldsV1 set (its root) without the members of `trie`; `wire` itself when nothing is removed."""
    kept = _wire_without(wire, trie, member=False)
    return wire if kept is wire else (kept or {})


def wire_union(wire: JSON, trie: Trie) -> JSON:
    """A FieldsV1 set (its root) with the members of `trie` added, keys in upstream's order."""
    return _wire_with(wire, trie, member=False) if trie else wire


def _wire_without(wire: JSON, trie: Trie, member: bool) -> JSON | None:
    """One node: `member` says whether the wire node is a member (a leaf `{}` always is)."""
    drop_member = member and MEMBER in trie
    replaced: JSON = {}
    for key, sub in trie.items():
        child = wire.get(key) if key != MEMBER else None
        if child is not None:
            kept = _wire_without(child, sub, not child or MEMBER in child)
            if kept is not child:
                replaced[key] = kept
    if not drop_member and not replaced:
        return wire
    children: JSON = {}
    for key, child in wire.items():
        if key in replaced:
            child = replaced[key]
        if key != MEMBER and child is not None:
            children[key] = child
    still_member = member and not drop_member
    if not children:
        return {} if still_member else None
    return {MEMBER: {}, **children} if still_member else children


def _wire_with(wire: JSON, trie: Trie, member: bool) -> JSON:
    """One node with the members of `trie` added; `wire` itself when it has them all already."""
    grown: JSON = {}
    for key, sub in trie.items():
        if key == MEMBER:
            continue
        child = wire.get(key)
        if child is None:
            grown[key] = encode_fields(sub)
        else:
            bigger = _wire_with(child, sub, not child or MEMBER in child)
            if bigger is not child:
                grown[key] = bigger
    becomes_member = MEMBER in trie and not member
    if not grown and not becomes_member:
        return wire
    children = {key: child for key, child in wire.items() if key != MEMBER}
    children.update(grown)
    if not children:
        return {}
    out: JSON = {MEMBER: {}} if member or becomes_member else {}
    for key in ordered(children):
        out[key] = children[key]
    return out
