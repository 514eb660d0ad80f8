"""The one clock the server reads time from; tests can freeze, set and advance it."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta


class Clock:
    """Wall-clock time unless frozen; `advance` moves frozen time (or offsets live time)."""

    def __init__(self) -> None:
        self._frozen: datetime | None = None
        self._offset = timedelta()

    def now(self) -> datetime:
        if self._frozen is not None:
            return self._frozen
        return datetime.now(UTC) + self._offset

    def freeze(self, when: datetime | None = None) -> datetime:
        self._frozen = _utc(when) if when is not None else self.now()
        return self._frozen

    def unfreeze(self) -> None:
        if self._frozen is not None:
            self._offset = self._frozen - datetime.now(UTC)
        self._frozen = None

    def set(self, when: datetime) -> None:
        when = _utc(when)
        if self._frozen is not None:
            self._frozen = when
        else:
            self._offset = when - datetime.now(UTC)

    def advance(self, seconds: float) -> datetime:
        step = timedelta(seconds=seconds)
        if self._frozen is not None:
            self._frozen += step
        else:
            self._offset += step
        return self.now()

    @property
    def frozen(self) -> bool:
        return self._frozen is not None

    def monotonic(self) -> float:
        """Seconds for intervals (bookmarks, history age): follows `advance` when frozen."""
        if self._frozen is not None:
            return self._frozen.timestamp()
        return time.monotonic() + self._offset.total_seconds()

    def timestamp(self) -> str:
        """RFC 3339 at second precision, as `metav1.Time` is written."""
        return rfc3339(self.now())


def _utc(when: datetime) -> datetime:
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)


def rfc3339(when: datetime) -> str:
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_rfc3339(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))
