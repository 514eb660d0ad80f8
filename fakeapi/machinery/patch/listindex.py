"""Lists as upstream's strategic merge patch scans them, in linear time: where a value or a merge key is
found first, and the list operations whose result depends on the order of Go's scans (its dedup, its
in-place deletes). Upstream scans a list for every patch item; a patch of a few megabytes made that hours.

Equality is Go's `==` on decoded JSON, which `_go_equal` in strategic.py spells out: the types of the two
values must match (1, 1.0 and true differ), and below the top they compare as Python compares them.
"""

from __future__ import annotations

import heapq
from collections.abc import Hashable
from typing import Any


def value_key(value: Any) -> Hashable:
    """A hashable stand-in for a decoded JSON value: two values have equal keys when Go's == holds."""
    kind = type(value)
    if kind is str:  # most merge keys: the string itself (no other value's key is a string)
        return value  # type: ignore[no-any-return]
    if kind is dict or kind is list:
        return kind, _frozen(value)
    return kind, value


def _frozen(value: Any) -> Hashable:
    if type(value) is dict:
        return frozenset((key, _frozen(item)) for key, item in value.items())
    if type(value) is list:
        return tuple(_frozen(item) for item in value)
    return value  # type: ignore[no-any-return]


class ByMergeKey:
    """The first position of each merge key value among a list's maps, as a scan from the start finds it;
    such a scan stops at an item that is not a map (`not_a_map`, -1 if none), and upstream's fails there."""

    def __init__(self, items: list[Any], merge_key: str) -> None:
        self.merge_key = merge_key
        self.positions: dict[Hashable, int] = {}
        self.not_a_map = -1
        for at, item in enumerate(items):
            if type(item) is not dict:
                self.not_a_map = at
                break
            if merge_key in item:
                self.positions.setdefault(value_key(item[merge_key]), at)

    def find(self, value: Any) -> int:
        """The position, or -1 when the scan finds none before its end or `not_a_map`."""
        return self.positions.get(value_key(value), -1)

    def add(self, value: Any, at: int) -> None:
        """An item appended at `at` (after every position known)."""
        if self.not_a_map < 0:
            self.positions.setdefault(value_key(value), at)


class ByValue:
    """The first position of each value (for a list of maps: of each item's merge key value, None for an
    item without one), as upstream's `index` finds it."""

    def __init__(self, items: list[Any], merge_key: str, is_map: bool) -> None:
        self.merge_key, self.is_map = merge_key, is_map
        positions: dict[Hashable, int] = {}
        for at, item in enumerate(items):
            value = (item.get(merge_key) if type(item) is dict else None) if is_map else item
            positions.setdefault(value_key(value), at)
        self.positions = positions

    def find(self, item: Any) -> int:
        if self.is_map:
            item = item.get(self.merge_key) if type(item) is dict else None
        return self.positions.get(value_key(item), -1)


def deduplicate(items: list[Any]) -> list[Any]:
    """Upstream's dedup of a merged list of primitives, which fills each duplicate's place with the list's
    last item (checking that one again): each value's positions in a heap replace its nested scans."""
    positions: dict[Hashable, list[int]] = {}
    keys = [value_key(item) for item in items]
    for at, key in enumerate(keys):
        positions.setdefault(key, []).append(at)  # ascending: already a heap
    last = len(items) - 1
    i = 0
    while i < last:
        key, heap = keys[i], positions[keys[i]]
        while heap:
            j = heapq.heappop(heap)
            if j <= i or j > last or keys[j] != key:
                continue  # itself, gone past the end, or since replaced
            while True:  # a duplicate: the last item takes its place, and is looked at in turn
                moved, moved_key = items.pop(), keys.pop()
                last -= 1
                if j > last:
                    break  # it was the last item
                items[j], keys[j] = moved, moved_key
                if moved_key != key:
                    heapq.heappush(positions[moved_key], j)
                    break
        i += 1
    return items


def delete_in_place(original: list[Any], doomed: list[Hashable], merge_key: str) -> int:
    """Upstream's deletes of the maps whose merge key values (keys of `value_key`) are `doomed`, in that
    order, each shifting the items after it left inside `original` as Go's append does: the slots freed at
    the end keep the last live item of the moment. Returns how many items are live at the front."""
    length = len(original)
    if not doomed:
        return length
    by_key: dict[Hashable, list[int]] = {}
    for at, item in enumerate(original):
        if merge_key in item:
            by_key.setdefault(value_key(item[merge_key]), []).append(at)
    deleted: set[int] = set()
    freed: list[Any] = []  # what each delete leaves in the slot it frees, the first delete's first
    top = length - 1
    for key in doomed:
        for at in by_key.pop(key, ()):
            while top in deleted:
                top -= 1
            freed.append(original[top])
            deleted.add(at)
    if not deleted:
        return length
    live = [item for at, item in enumerate(original) if at not in deleted]
    original[:] = live + freed[::-1]
    return len(live)
