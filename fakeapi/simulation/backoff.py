"""client-go's flowcontrol.Backoff as the kubelet uses it, without jitter: per key a delay that starts at
10 s and doubles at each `next` up to 5 min, and starts over once nothing happened for twice the maximum
(10 min). Times are the server clock's monotonic seconds."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

INITIAL, MAXIMUM = 10.0, 300.0  # the kubelet's backOffPeriod and MaxContainerBackOff (MaxImageBackOff)


@dataclass(slots=True)
class _Entry:
    delay: float
    last_update: float


class Backoff:
    def __init__(self, initial: float = INITIAL, maximum: float = MAXIMUM) -> None:
        self.initial = initial
        self.maximum = maximum
        self._entries: dict[Hashable, _Entry] = {}

    def delay(self, key: Hashable) -> float:
        entry = self._entries.get(key)
        return entry.delay if entry is not None else 0.0

    def next(self, key: Hashable, event_time: float, now: float) -> None:
        """Count a try: the delay starts (or starts over), else doubles."""
        entry = self._entries.get(key)
        if entry is None or self._expired(event_time, entry):
            self._entries[key] = _Entry(self.initial, now)
            return
        entry.delay = min(entry.delay * 2, self.maximum)
        entry.last_update = now

    def in_backoff_since(self, key: Hashable, event_time: float, now: float) -> bool:
        """IsInBackOffSince: less than the delay has passed since `event_time` (an exit)."""
        entry = self._entries.get(key)
        if entry is None or self._expired(event_time, entry):
            return False
        return now - event_time < entry.delay

    def remaining(self, key: Hashable, event_time: float, now: float) -> float:
        """How long until the back-off since `event_time` ends."""
        return max(0.0, event_time + self.delay(key) - now)

    def _expired(self, event_time: float, entry: _Entry) -> bool:
        return event_time - entry.last_update > 2 * self.maximum
