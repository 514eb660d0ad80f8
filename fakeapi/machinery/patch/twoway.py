"""Strategic merge patches computed from two versions of an object, as apimachinery's
CreateTwoWayMergePatch makes them (what kubelets and controllers send to `.../status`).

Maps are compared key by key (a key gone from the new version is patched to null); a list of maps
with a patch merge key carries only its new and changed items (each with its merge key), deletion
directives for items gone, and `$setElementOrder/<list>` whenever the list changed; any other value
that differs is sent whole. Lists of primitives with a merge strategy (which upstream patches with
`$deleteFromPrimitiveList`) are sent whole, as are `retainKeys` fields.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fakeapi.machinery.patch.strategic import PatchTree
from fakeapi.machinery.types import JSON

_EMPTY_TREE: PatchTree = {}
_ORDER_PREFIX = "$setElementOrder/"


def create_two_way_merge_patch(original: JSON, modified: JSON, tree: PatchTree) -> JSON:
    """The patch that turns `original` into `modified` (neither is changed); `{}` when they are equal."""
    return _diff_maps(original, modified, tree)


def _diff_maps(original: JSON, modified: JSON, tree: PatchTree) -> JSON:
    patch: JSON = {}
    for key, new in modified.items():
        if key not in original:
            patch[key] = new
            continue
        old = original[key]
        if _same(old, new):
            continue
        child, strategy, merge_key = _field(tree, key)
        if type(old) is dict and type(new) is dict and strategy != "replace":
            patch[key] = _diff_maps(old, new, child)
        elif (type(old) is list and type(new) is list and strategy == "merge" and merge_key
              and all(type(item) is dict for item in (*old, *new))):
            _diff_list_of_maps(patch, key, old, new, child, merge_key)
        else:
            patch[key] = new
    for key in original:
        if key not in modified:
            patch[key] = None
    return patch


def _diff_list_of_maps(patch: JSON, key: str, original: list[JSON], modified: list[JSON], tree: PatchTree,
                       merge_key: str) -> None:
    """Upstream's diffListsOfMaps: changed and new items in the new order, then the deletions."""
    by_key = {item.get(merge_key): item for item in original}
    new_keys = {item.get(merge_key) for item in modified}
    changes: list[Any] = []
    for item in modified:
        old = by_key.get(item.get(merge_key))
        if old is None:
            changes.append(item)
            continue
        diff = _diff_maps(old, item, tree)
        if diff:
            changes.append({**diff, merge_key: item.get(merge_key)})
    changes.extend({"$patch": "delete", merge_key: item.get(merge_key)} for item in original
                   if item.get(merge_key) not in new_keys)
    same_order = [item.get(merge_key) for item in original] == [item.get(merge_key) for item in modified]
    if changes or not same_order:
        patch[_ORDER_PREFIX + key] = [{merge_key: item.get(merge_key)} for item in modified]
    if changes:
        patch[key] = changes


def _field(tree: PatchTree, key: str) -> tuple[PatchTree, str, str]:
    child = tree.get(key)
    if not isinstance(child, Mapping):
        return _EMPTY_TREE, "", ""
    strategies = str(child.get("$strategy") or "").split(",")
    strategy = "merge" if "merge" in strategies else "replace" if "replace" in strategies else ""
    return child, strategy, str(child.get("$mergeKey") or "")


def _same(left: Any, right: Any) -> bool:
    """Go's equality of decoded JSON: the types must match too (1, 1.0 and true all differ)."""
    return type(left) is type(right) and bool(left == right)
