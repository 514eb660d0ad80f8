"""The one clock the server reads time from; tests can freeze, set and advance it."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta


class Clock:
    """Wall-clock time unless frozen. `advance` and `set` move frozen time, or offset live time.

    Intervals (bookmarks, history age) read `monotonic()`, which moves with `advance` and never
    jumps when the clock is frozen or unfrozen.
    """

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self._wall_offset = timedelta()
        self._mono_offset = 0.0
        self._frozen_wall: datetime | None = None
        self._frozen_mono = 0.0
        self._stamped_second, self._stamp = -1, ""

    def now(self) -> datetime:
        if self._frozen_wall is not None:
            return self._frozen_wall
        return datetime.now(UTC) + self._wall_offset

    def monotonic(self) -> float:
        if self._frozen_wall is not None:
            return self._frozen_mono
        return time.monotonic() + self._mono_offset

    def freeze(self, when: datetime | None = None) -> datetime:
        if self._frozen_wall is None:
            self._frozen_mono = self.monotonic()
            self._frozen_wall = self.now()
        if when is not None:
            self.set(when)
        return self.now()

    def unfreeze(self) -> None:
        if self._frozen_wall is not None:
            self._wall_offset = self._frozen_wall - datetime.now(UTC)
            self._mono_offset = self._frozen_mono - time.monotonic()
        self._frozen_wall = None

    def set(self, when: datetime) -> None:
        """Jump to `when`; intervals move by the same amount (never backwards)."""
        step = (_utc(when) - self.now()).total_seconds()
        if self._frozen_wall is not None:
            self._frozen_wall = _utc(when)
            self._frozen_mono += max(0.0, step)
        else:
            self._wall_offset += timedelta(seconds=step)
            self._mono_offset += max(0.0, step)

    def advance(self, seconds: float) -> datetime:
        step = timedelta(seconds=seconds)
        if self._frozen_wall is not None:
            self._frozen_wall += step
            self._frozen_mono += seconds
        else:
            self._wall_offset += step
            self._mono_offset += seconds
        return self.now()

    @property
    def frozen(self) -> bool:
        return self._frozen_wall is not None

    def timestamp(self) -> str:
        """RFC 3339 at second precision, as `metav1.Time` is written (strftime once per second)."""
        if self._frozen_wall is not None:
            second = int(self._frozen_wall.timestamp())
        else:  # no datetime built: this runs on every write
            second = int(time.time() + self._wall_offset.total_seconds())
        if second != self._stamped_second:
            self._stamped_second, self._stamp = second, rfc3339(datetime.fromtimestamp(second, UTC))
        return self._stamp


def _utc(when: datetime) -> datetime:
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)


def rfc3339(when: datetime) -> str:
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_rfc3339(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))
