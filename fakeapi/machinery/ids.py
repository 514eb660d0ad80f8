"""Unique ids and generated-name suffixes; seedable so a whole run can be reproduced."""

from __future__ import annotations

import os
import random

# upstream's utilrand alphabet: no vowels (no words) and no confusable characters
_SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"


class IdSource:
    def __init__(self, seed: int | str | None = None) -> None:
        self.reseed(seed)

    def reseed(self, seed: int | str | None) -> None:
        self._random: random.Random | None = random.Random(seed) if seed is not None else None

    def uid(self) -> str:
        bits = self._random.getrandbits(128) if self._random is not None else int.from_bytes(os.urandom(16))
        return _uuid4_text(bits)

    def below(self, bound: int) -> int:
        """A number in [0, bound), from the seeded source when there is one (allocators' random picks)."""
        return (self._random or random).randrange(bound)

    def suffix(self, length: int = 5) -> str:
        rng = self._random or random
        return "".join(rng.choice(_SUFFIX_ALPHABET) for _ in range(length))


def _uuid4_text(bits: int) -> str:
    """`str(uuid.UUID(int=bits, version=4))` without building the object (a third of the cost)."""
    bits = (bits & ~(0xF000 << 64) & ~(0xC000 << 48)) | (0x4000 << 64) | (0x8000 << 48)
    text = f"{bits:032x}"
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"
