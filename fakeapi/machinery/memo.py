"""A bounded memo for pure results that many objects share (decoded template parts, field sets)."""

from __future__ import annotations

from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Memo(dict[K, V], Generic[K, V]):
    """A dict that forgets its oldest entry when full. Servers in several threads of one process
    share these memos: a lost race only forgets one entry more or less."""

    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size

    def put(self, key: K, value: V) -> None:
        if len(self) >= self.size:
            try:
                del self[next(iter(self))]
            except (KeyError, RuntimeError, StopIteration):  # another thread changed it meanwhile
                pass
        self[key] = value
