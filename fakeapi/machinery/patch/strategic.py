"""Strategic merge patch as kube-apiserver applies it (apimachinery strategicpatch), driven by a PatchTree.

Upstream finds each patch item in the list it merges into by scanning that list; here the lists are
indexed by merge key (listindex.py), with the same outcome, so a patch costs time in proportion to its
size and the object's, however long their lists.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from types import MappingProxyType
from typing import Any

from fakeapi.machinery.errors import BadRequest, StatusError
from fakeapi.machinery.jsonvalues import copy_json, json_type_name
from fakeapi.machinery.patch.json_patch import UnprocessablePatch
from fakeapi.machinery.patch.listindex import ByMergeKey, ByValue, deduplicate, delete_in_place, value_key
from fakeapi.machinery.patch.merge import too_deep
from fakeapi.machinery.types import JSON

PatchTree = Mapping[str, Any]
"""How to merge one object type, built from the schemas. For each field name the node may hold a child
node describing that field's type (for a list: its element type) with these reserved keys:
  "$strategy": "merge" | "retainKeys" | "merge,retainKeys" | "replace"  (the Go patchStrategy tag)
  "$mergeKey": "name"                                                   (the Go patchMergeKey tag)
A primitive list with strategy merge is merged as a set. A field absent from the tree is atomic: lists
are replaced and maps merged key by key. "$listType" and "$listMapKeys" may be present and are ignored:
upstream's strategic merge reads only the struct tags.
"""

_EMPTY_TREE: PatchTree = MappingProxyType({})
_DIRECTIVE = "$patch"
_RETAIN_KEYS = "$retainKeys"
_DELETE_PREFIX = "$deleteFromPrimitiveList"
_ORDER_PREFIX = "$setElementOrder"
_MAP_TYPE = "map[string]interface {}"
_LIST_TYPE = "[]interface {}"
_GO_TYPES: dict[type, str] = {
    dict: _MAP_TYPE, list: _LIST_TYPE, str: "string", bool: "bool", int: "int64", float: "float64",
}
_INSERTION_SORT = 12  # Go's sort.Slice sorts this many items or fewer by insertion


class StrategicPatchError(BadRequest):
    """A malformed strategic merge patch, with the message of upstream's strategicpatch package.

    kube-apiserver passes these plain Go errors on as a reasonless 500; a 500 for bad input would
    read as a server bug here, so fakeapi answers 400 BadRequest with the same message.
    """


def apply_strategic_merge_patch(doc: JSON, patch: Any, tree: PatchTree) -> JSON:
    """Apply a strategic merge patch to `doc` and return a new object; neither input is changed."""
    if patch is None:  # upstream decodes a null body into an empty patch
        unchanged: JSON = copy_json(doc)
        return unchanged
    if type(patch) is not dict:
        raise BadRequest(f"json: cannot unmarshal {json_type_name(patch)} "
                         f"into Go value of type map[string]interface {{}}")
    try:
        # upstream's merge works in place on both maps, so it gets private copies
        return _merge_map(copy_json(doc), copy_json(patch), tree)
    except RecursionError:
        raise too_deep() from None


# ---- maps


def _merge_map(original: JSON, patch: JSON, tree: PatchTree) -> JSON:
    if _DIRECTIVE in patch:
        return _map_directive(patch[_DIRECTIVE], patch)
    _retain_keys(original, patch)
    _merge_ordered_lists(original, patch, tree)
    for key, value in list(patch.items()):
        is_delete_list = key.startswith(_DELETE_PREFIX)
        if is_delete_list:
            key = _strip_prefix(key, _DELETE_PREFIX, "invalid patch format of primitive list") or key
        if value is None:
            original.pop(key, None)
            continue
        if key not in original or type(original[key]) is not type(value):
            if not is_delete_list:
                _set_patch_value(original, key, value)
            continue
        current = original[key]
        if type(value) is dict:
            child, strategy, _ = _field(tree, key)
            original[key] = value if strategy == "replace" else _merge_map(current, value, child)
        elif type(value) is list:
            child, strategy, merge_key = _field(tree, key)
            if strategy == "merge" or is_delete_list:
                original[key] = _merge_list(current, value, child, merge_key, is_delete_list)
            else:
                original[key] = value
        else:
            original[key] = value
    return original


def _map_directive(directive: Any, patch: JSON) -> JSON:
    if directive == "replace" and type(directive) is str:
        del patch[_DIRECTIVE]
        return patch
    if directive == "delete" and type(directive) is str:
        return {}
    raise _bad_patch_type(directive, patch)


def _set_patch_value(original: JSON, key: str, value: Any) -> None:
    """A value with nothing to merge into is taken from the patch without its nulls and directives."""
    _discard_nulls(value)
    cleaned, keep = _remove_directives(value)
    if keep:
        original[key] = cleaned
    else:
        original.pop(key, None)


def _retain_keys(original: JSON, patch: JSON) -> None:
    if _RETAIN_KEYS not in patch:
        return
    retained = patch.pop(_RETAIN_KEYS)
    if type(retained) is not list:
        raise BadRequest("invalid patch format of retainKeys")
    keep = {item for item in retained if type(item) is str}
    for key, value in patch.items():
        if value is None or key.startswith((_DELETE_PREFIX, _ORDER_PREFIX)):
            continue
        if key not in keep:
            raise BadRequest("invalid patch format of retainKeys")
    for key in [key for key in original if key not in keep]:
        del original[key]


def _merge_ordered_lists(original: JSON, patch: JSON, tree: PatchTree) -> None:
    """$setElementOrder/<list>: merge that list now, then order it as the directive says."""
    for directive in [key for key in patch if key.startswith(_ORDER_PREFIX)]:
        order = patch.pop(directive)
        if type(order) is not list:
            raise _bad_arg_type(_LIST_TYPE, order)
        key = _strip_prefix(directive, _ORDER_PREFIX, "invalid patch format of setElementOrder list")
        in_original, in_patch = key in original, key in patch
        original_items: list[Any] = original.get(key, [])
        patch_items: list[Any] = patch.get(key, [])
        if type(original_items) is not list:
            raise _bad_arg_type(_LIST_TYPE, original_items)
        if type(patch_items) is not list:
            raise _bad_arg_type(_LIST_TYPE, patch_items)
        child, strategy, merge_key = _field(tree, key)
        _check_order(patch_items, order, merge_key)
        if not in_original and not in_patch:
            continue
        if not in_patch:
            merged = original_items
        elif not in_original:
            merged = _remove_directives(patch_items)[0]
        elif strategy == "merge":
            live_length = len(original_items)
            merged = _merge_list(original_items, patch_items, child, merge_key, False)
            # upstream orders by its view of the live list after the merge wrote into that list's
            # array: deleted items shifted out, appended ones in the freed slots
            original_items = original_items[:live_length]
        else:
            merged = patch_items
        if merge_key:
            listed, unlisted = _partition_maps(merged, order, merge_key)
        else:
            listed, unlisted = _partition_scalars(merged, order)
        is_map = _element_type(original_items, patch_items) is dict
        original[key] = _normalize_order(listed, unlisted, order, original_items, merge_key, is_map)
        patch.pop(key, None)


def _check_order(patch_list: list[Any], order: list[Any], merge_key: str) -> None:
    """Every item of the patch list must appear in $setElementOrder, in the same relative order."""
    if not order or not patch_list:
        return
    items = patch_list
    if merge_key:
        items = [item for item in patch_list if not _is_delete_item(item)]
    at_item = at_order = 0
    while at_item < len(items) and at_order < len(order):
        item = items[at_item]
        if type(item) is dict and _DIRECTIVE in item:
            at_item += 1
            continue
        if _merge_keys_equal(item, order[at_order], merge_key):
            at_item += 1
        at_order += 1
    if at_item < len(items):
        raise StrategicPatchError(f"The order in patch list:\n{_go_v(patch_list)}\n doesn't match "
                                  f"{_ORDER_PREFIX} list:\n{_go_v(order)}\n")


def _merge_keys_equal(left: Any, right: Any, merge_key: str) -> bool:
    if not merge_key:
        return _go_equal(left, right)
    for item in (left, right):
        if type(item) is not dict:
            raise _bad_arg_type(_MAP_TYPE, item)
    for item in (left, right):
        if merge_key not in item:
            raise _no_merge_key(item, merge_key)
    return _go_equal(left[merge_key], right[merge_key])


# ---- lists


def _merge_list(original: list[Any], patch: list[Any], tree: PatchTree, merge_key: str,
                is_delete_list: bool) -> list[Any]:
    """Upstream's mergeSlice. It deletes and appends inside `original` the way Go's append reuses a
    slice's array, and the $setElementOrder path depends on seeing that; so does this."""
    if not original and not patch:
        return original
    is_map = _element_type(original, patch) is dict
    if not is_map:
        if is_delete_list:
            doomed = {_hash_key(item) for item in patch}
            return [item for item in original if _hash_key(item) not in doomed]
        merged = deduplicate(original + patch)
        live = original
    else:
        if not merge_key:
            raise StrategicPatchError(f"cannot merge lists without merge key for {_kind_name(tree)}")
        patch, replace, length = _special_items(original, patch, merge_key)
        if replace:
            merged, live = list(patch), patch
            patch = []
        else:
            merged = original[:_merge_items(original, length, patch, merge_key, tree)]
            live = original[:length]
    if merge_key:
        listed, unlisted = _partition_maps(merged, patch, merge_key)
    else:
        listed, unlisted = _partition_scalars(merged, patch)
    return _normalize_order(listed, unlisted, patch, live, merge_key, is_map)


def _special_items(original: list[Any], patch: list[Any], merge_key: str) -> tuple[list[Any], bool, int]:
    """Items carrying $patch: delete removes matching items (in place, shifting the rest left, as Go's
    append does), replace makes the patch the whole list. Returns the plain items, whether to replace,
    and how many live items are left at the front of `original`."""
    plain: list[Any] = []
    replace = False
    doomed: list[Any] = []
    for item in patch:
        if _DIRECTIVE not in item:
            plain.append(item)
            continue
        directive = item[_DIRECTIVE]
        if directive == "delete" and type(directive) is str:
            if merge_key not in item:
                raise _no_merge_key(item, merge_key)
            doomed.append(value_key(item[merge_key]))
        elif directive == "replace" and type(directive) is str:
            replace = True
        elif directive == "merge" and type(directive) is str:
            raise StrategicPatchError("merging lists cannot yet be specified in the patch")
        else:
            raise _bad_patch_type(directive, item)
    return plain, replace, delete_in_place(original, doomed, merge_key)


def _merge_items(original: list[Any], length: int, patch: list[Any], merge_key: str, tree: PatchTree) -> int:
    """Merges each patch item into the live item with its key, or appends it; returns the new length."""
    index = ByMergeKey(original[:length], merge_key)
    for item in patch:
        if merge_key not in item:
            raise _no_merge_key(item, merge_key)
        value = item[merge_key]
        at = _find(index, value)
        if at >= 0:
            merged = original[at] = _merge_map(original[at], item, tree)
            if merge_key not in merged or value_key(merged[merge_key]) != value_key(value):  # (a null key, gone)
                index = ByMergeKey(original[:length], merge_key)
            continue
        if length < len(original):
            original[length] = item
        else:
            original.append(item)
        index.add(value, length)
        length += 1
    return length


def _partition_scalars(items: list[Any], by: list[Any]) -> tuple[list[Any], list[Any]]:
    present = {_hash_key(item) for item in by}
    listed: list[Any] = []
    unlisted: list[Any] = []
    for item in items:
        (listed if _hash_key(item) in present else unlisted).append(item)
    return listed, unlisted


def _partition_maps(items: list[Any], by: list[Any], merge_key: str) -> tuple[list[Any], list[Any]]:
    listed: list[Any] = []
    unlisted: list[Any] = []
    index: ByMergeKey | None = None  # (made at the first lookup: its failure comes where upstream's does)
    for item in items:
        if type(item) is not dict:
            raise _bad_arg_type(_MAP_TYPE, item)
        if merge_key not in item:
            raise _no_merge_key(item, merge_key)
        index = index or ByMergeKey(by, merge_key)
        (listed if _find(index, item[merge_key]) >= 0 else unlisted).append(item)
    return listed, unlisted


def _find(index: ByMergeKey, value: Any) -> int:
    """Upstream's findMapInSliceBasedOnKeyValue over the indexed list: the first map with the key's value,
    -1, or its failure on an item that is not a map."""
    at = index.find(value)
    if at < 0 and index.not_a_map >= 0:
        raise StrategicPatchError(f"value for key {index.not_a_map} is not a map.")
    return at


def _normalize_order(listed: list[Any], unlisted: list[Any], patch_order: list[Any], server_order: list[Any],
                     merge_key: str, is_map: bool) -> list[Any]:
    """Patch items in patch order, the others in live order, interleaved where the live order allows."""
    listed = _sort_by(listed, patch_order, merge_key, is_map)
    unlisted = _sort_by(unlisted, server_order, merge_key, is_map)
    if not listed or not unlisted:
        return unlisted + listed
    server = ByValue(server_order, merge_key, is_map)
    merged: list[Any] = []
    i = j = 0
    while i < len(unlisted) and j < len(listed):
        left = server.find(unlisted[i])
        right = server.find(listed[j])
        if 0 <= left < right:
            merged.append(unlisted[i])
            i += 1
        else:
            merged.append(listed[j])
            j += 1
    return merged + unlisted[i:] + listed[j:]


def _sort_by(items: list[Any], order: list[Any], merge_key: str, is_map: bool) -> list[Any]:
    deleted: list[Any] = []
    if is_map:
        for item in (*items, *order):
            if type(item) is not dict:
                raise _bad_arg_type(_MAP_TYPE, item)
            if merge_key not in item:
                raise _no_merge_key(item, merge_key)
        doomed = [_is_delete_item(item) for item in items]
        if any(doomed):
            deleted = [item for item, delete in zip(items, doomed, strict=True) if delete]
            items = [item for item, delete in zip(items, doomed, strict=True) if not delete]
    index = ByValue(order, merge_key, is_map)
    positions = [index.find(item) for item in items]
    if all(position >= 0 for position in positions):
        ranked = sorted(range(len(items)), key=positions.__getitem__)
        return [items[at] for at in ranked] + deleted
    if len(items) > _INSERTION_SORT:
        # upstream's comparison claims "less" both ways for an item missing from `order`, and what Go's
        # pdqsort makes of that is not reproduced: those items go first, the others in order
        missing = [item for item, position in zip(items, positions, strict=True) if position < 0]
        known = sorted((position, at) for at, position in enumerate(positions) if position >= 0)
        return missing + [items[at] for _position, at in known] + deleted
    # replay the insertion sort Go's sort.Slice runs on so few items, so the outcome is the same
    items = list(items)
    for i in range(1, len(items)):
        j = i
        while j > 0 and (positions[j] < 0 or positions[j - 1] < 0 or positions[j] < positions[j - 1]):
            items[j], items[j - 1] = items[j - 1], items[j]
            positions[j], positions[j - 1] = positions[j - 1], positions[j]
            j -= 1
    return items + deleted


def _element_type(*lists: list[Any]) -> type:
    """Upstream's sliceElementType: every item of the lists must have one (non-list) type."""
    found: type | None = None
    for items in lists:
        for item in items:
            if found is None:
                if type(item) is list:
                    raise UnprocessablePatch("lists of lists are not supported")
                if item is None:  # upstream dereferences the nil type here and panics
                    raise StrategicPatchError(
                        "runtime error: invalid memory address or nil pointer dereference")
                found = type(item)
            elif type(item) is not found:
                raise StrategicPatchError(f"list element types are not identical: {_go_v(list(lists))}")
    if found is None:
        raise StrategicPatchError("no elements in any of the given slices")
    return found


# ---- patch values taken as they are


def _discard_nulls(value: Any) -> None:
    if type(value) is dict:
        for key in [key for key, item in value.items() if item is None]:
            del value[key]
        for item in value.values():
            _discard_nulls(item)
    elif type(value) is list:
        for item in value:
            _discard_nulls(item)


def _remove_directives(value: Any) -> tuple[Any, bool]:
    """The value without $patch maps at any depth, and whether anything is left to keep."""
    if type(value) is dict:
        if _DIRECTIVE in value:
            return None, False
        for key in list(value):
            cleaned, keep = _remove_directives(value[key])
            if keep:
                value[key] = cleaned
            else:
                del value[key]
        return value, True
    if type(value) is list:
        return [cleaned for cleaned, keep in map(_remove_directives, value) if keep], True
    return value, True


# ---- the tree


def _field(tree: PatchTree, key: str) -> tuple[PatchTree, str, str]:
    """The field's own tree, its patch strategy (retainKeys aside) and its merge key."""
    child = tree.get(key)
    if not isinstance(child, Mapping):
        return _EMPTY_TREE, "", ""
    return child, _strategy(child.get("$strategy")), str(child.get("$mergeKey") or "")


def _strategy(tag: Any) -> str:
    """Upstream's extractRetainKeysPatchStrategy: retainKeys only matters when a patch is computed."""
    parts = tag.split(",") if type(tag) is str else [""]
    if len(parts) == 1:
        return "" if parts[0] == "retainKeys" else parts[0]
    if len(parts) == 2 and "retainKeys" in parts:
        return parts[1] if parts[0] == "retainKeys" else parts[0]
    raise StrategicPatchError(f"unexpected patch strategy: [{' '.join(parts)}]")


def _kind_name(tree: PatchTree) -> str:
    """The Go kind upstream names for a list's element type: a struct if the tree knows its fields."""
    return "struct" if any(not key.startswith("$") for key in tree) else "string"


# ---- Go semantics: equality, hashing, error texts


def _go_equal(left: Any, right: Any) -> bool:
    """Go's == on decoded JSON: the types must match too (1, 1.0 and true all differ)."""
    return type(left) is type(right) and bool(left == right)


def _hash_key(value: Any) -> tuple[type, Any]:
    if type(value) in (dict, list):  # upstream puts list items in a Go map and panics on these
        raise StrategicPatchError(f"runtime error: hash of unhashable type {_go_type(value)}")
    return type(value), value


def _is_delete_item(item: Any) -> bool:
    if type(item) is not dict:
        raise _bad_arg_type(_MAP_TYPE, item)
    directive = item.get(_DIRECTIVE)
    return type(directive) is str and directive == "delete"


def _strip_prefix(key: str, prefix: str, bad_format: str) -> str:
    head, slash, rest = key.partition("/")
    if not slash or head != prefix:
        raise BadRequest(bad_format)
    return rest


def _bad_arg_type(expected: str, actual: Any) -> StatusError:
    return StrategicPatchError(f"expected a {expected}, but received a {_go_type(actual)}")


def _no_merge_key(item: JSON, merge_key: str) -> StatusError:
    return StrategicPatchError(f"map: {_go_v(item)} does not contain declared merge key: {merge_key}")


def _bad_patch_type(directive: Any, patch: JSON) -> StatusError:
    return StrategicPatchError(f"unknown patch type: {_go_s(directive)} in map: {_go_v(patch)}")


def _go_type(value: Any) -> str:
    return _GO_TYPES.get(type(value), "%!s(<nil>)")


def _go_v(value: Any) -> str:
    """fmt's %v of a decoded JSON value."""
    if value is None:
        return "<nil>"
    if type(value) is bool:
        return "true" if value else "false"
    if type(value) is float:
        return _go_float(value)
    if type(value) is list:
        return "[" + " ".join(map(_go_v, value)) + "]"
    if type(value) is dict:
        return "map[" + " ".join(f"{key}:{_go_v(value[key])}" for key in sorted(value)) + "]"
    return str(value)


def _go_s(value: Any) -> str:
    """fmt's %s, which flags every value that is not a string."""
    if type(value) is str:
        return value
    if type(value) is list:
        return "[" + " ".join(map(_go_s, value)) + "]"
    if type(value) is dict:
        return "map[" + " ".join(f"{key}:{_go_s(value[key])}" for key in sorted(value)) + "]"
    if value is None:
        return "%!s(<nil>)"
    return f"%!s({_go_type(value)}={_go_v(value)})"


def _go_float(value: float) -> str:
    """strconv's shortest %g, as fmt prints a float64."""
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "+Inf" if value > 0 else "-Inf"
    sign, digit_tuple, exponent = Decimal(repr(value)).as_tuple()
    digits = "".join(map(str, digit_tuple)).rstrip("0") or "0"
    assert isinstance(exponent, int)
    point = len(digit_tuple) + exponent  # where the decimal point sits in `digits`
    prefix = "-" if sign else ""
    if digits == "0":
        return prefix + "0"
    power = point - 1
    if power < -4 or power >= 6:
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{prefix}{mantissa}e{'+' if power >= 0 else '-'}{abs(power):02d}"
    if point <= 0:
        return f"{prefix}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return prefix + digits + "0" * (point - len(digits))
    return f"{prefix}{digits[:point]}.{digits[point:]}"
