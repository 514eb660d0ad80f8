"""The list operations of the strategic merge patch in linear time give what upstream's scans give: its
dedup and its in-place deletes, checked against literal transcriptions of the Go loops."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from fakeapi.machinery.patch.listindex import ByMergeKey, deduplicate, delete_in_place, value_key

SCALARS = st.one_of(st.sampled_from(["a", "b", "c", "d"]), st.integers(0, 3), st.booleans(), st.sampled_from([1.0]))


def go_equal(left: Any, right: Any) -> bool:
    return type(left) is type(right) and bool(left == right)


def go_dedup(items: list[Any]) -> list[Any]:
    """strategicpatch's deduplicate, line by line."""
    last = len(items) - 1
    i = 0
    while i < last:
        j = i + 1
        while j <= last:
            if go_equal(items[i], items[j]):
                items[j] = items[last]
                del items[last]
                last -= 1
                j -= 1
            j += 1
        i += 1
    return items


def go_deletes(original: list[Any], doomed: list[Any], merge_key: str) -> int:
    """mergeSliceWithSpecialElements' deletes, line by line: each found item shifted out with append."""
    length = len(original)
    for value in doomed:
        while True:
            at = next((at for at, item in enumerate(original[:length])
                       if merge_key in item and go_equal(item[merge_key], value)), -1)
            if at < 0:
                break
            original[at:length - 1] = original[at + 1:length]
            length -= 1
    return length


@given(st.lists(SCALARS, max_size=30))
def test_dedup_leaves_the_list_as_upstreams_does(items: list[Any]) -> None:
    assert repr(deduplicate(list(items))) == repr(go_dedup(list(items)))


@given(st.lists(st.fixed_dictionaries({"name": st.sampled_from("abcde")}, optional={"x": st.integers(0, 2)}),
                max_size=20),
       st.lists(st.sampled_from("abcdef"), max_size=6))
def test_deletes_leave_the_same_array_and_length_as_upstreams(original: list[Any], doomed: list[str]) -> None:
    ours, theirs = [dict(item) for item in original], [dict(item) for item in original]
    length = delete_in_place(ours, [value_key(value) for value in doomed], "name")
    assert (length, ours) == (go_deletes(theirs, doomed, "name"), theirs)  # the freed slots too


def test_a_merge_key_is_found_where_a_scan_finds_it_first_and_not_past_an_item_that_is_no_map() -> None:
    index = ByMergeKey([{"name": "a"}, {"name": 1}, {"other": 2}, {"name": "a"}, "not a map", {"name": "z"}],
                       "name")
    assert (index.find("a"), index.find(1), index.find(True), index.find(1.0)) == (0, 1, -1, -1)
    assert (index.find("z"), index.not_a_map) == (-1, 4)  # past the item that is no map: the scan fails there
