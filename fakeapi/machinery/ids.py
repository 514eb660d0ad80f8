"""Unique ids and generated-name suffixes; seedable so a whole run can be reproduced."""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

T = TypeVar("T")

# upstream's utilrand alphabet: no vowels (no words) and no confusable characters
_SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"


class IdSource:
    def __init__(self, seed: int | str | None = None) -> None:
        self.reseed(seed)

    def reseed(self, seed: int | str | None) -> None:
        self._random: random.Random | None = random.Random(seed) if seed is not None else None
        self._tape: list[Any] | None = None
        self._played = 0

    @contextmanager
    def replaying(self, tape: list[Any]) -> Iterator[None]:
        """Within this block, draws repeat those recorded on `tape` by an earlier run of the same work (a write
        run again once its admission webhooks answered), new ones are recorded; a draw of another kind than
        recorded ends the replay."""
        self._tape, self._played = tape, 0
        try:
            yield
        finally:
            self._tape = None

    def _draw(self, key: tuple[Any, ...], make: Callable[[], T]) -> T:
        tape = self._tape
        if tape is None:
            return make()
        if self._played < len(tape) and tape[self._played][0] == key:
            value: T = tape[self._played][1]
        else:
            del tape[self._played:]
            value = make()
            tape.append((key, value))
        self._played += 1
        return value

    def uid(self) -> str:
        return self._draw(("uid",), self._uid)

    def _uid(self) -> str:
        bits = self._random.getrandbits(128) if self._random is not None else int.from_bytes(os.urandom(16))
        return _uuid4_text(bits)

    def below(self, bound: int) -> int:
        """A number in [0, bound), from the seeded source when there is one (allocators' random picks)."""
        return self._draw(("below", bound), lambda: (self._random or random).randrange(bound))

    def suffix(self, length: int = 5) -> str:
        rng = self._random or random
        return self._draw(("suffix", length), lambda: "".join(rng.choice(_SUFFIX_ALPHABET) for _ in range(length)))


def _uuid4_text(bits: int) -> str:
    """`str(uuid.UUID(int=bits, version=4))` without building the object (a third of the cost)."""
    bits = (bits & ~(0xF000 << 64) & ~(0xC000 << 48)) | (0x4000 << 64) | (0x8000 << 48)
    text = f"{bits:032x}"
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"
