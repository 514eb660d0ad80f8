"""Memo: bounded, forgets the oldest entry first."""

from fakeapi.machinery.memo import Memo


def test_memo_keeps_at_most_its_size_and_forgets_the_oldest():
    memo: Memo[str, int] = Memo(2)
    memo.put("a", 1)
    memo.put("b", 2)
    memo.put("c", 3)
    assert dict(memo) == {"b": 2, "c": 3}


def test_memo_replaces_nothing_while_there_is_room():
    memo: Memo[str, int] = Memo(3)
    for index, key in enumerate("ab"):
        memo.put(key, index)
    assert dict(memo) == {"a": 0, "b": 1}
