"""Unique ids and generated-name suffixes; seedable so a whole run can be reproduced."""

from __future__ import annotations

import random
import uuid

# upstream's utilrand alphabet: no vowels (no words) and no confusable characters
_SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"


class IdSource:
    def __init__(self, seed: int | None = None) -> None:
        self.reseed(seed)

    def reseed(self, seed: int | None) -> None:
        self._random: random.Random | None = random.Random(seed) if seed is not None else None

    def uid(self) -> str:
        if self._random is None:
            return str(uuid.uuid4())
        return str(uuid.UUID(int=self._random.getrandbits(128), version=4))

    def suffix(self, length: int = 5) -> str:
        rng = self._random or random
        return "".join(rng.choice(_SUFFIX_ALPHABET) for _ in range(length))
