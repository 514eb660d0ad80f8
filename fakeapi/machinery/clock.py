"""The one clock the server reads time from; tests can freeze, set and advance it.

Timers run on this clock too (`call_later`): while it is live they fire as time passes, on the event
loop; while it is frozen they fire only when `advance` or `set` moves time past them, in time order and
before the call returns, so a test steps everything that waits on the clock deterministically.
`advance_in_slices` does the same for the control API, letting other requests in between timers.

A timer whose callback raises is logged and tried again later (a second, doubling to a minute): a
failing callback (a store write on a full or read-only disk, say) never stops the other timers.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import logging
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from fakeapi.machinery.errors import StatusError

# The years RFC 3339 (and so metav1.Time) can write: the clock stays between these.
MIN_TIME = datetime(1, 1, 1, tzinfo=UTC)
MAX_TIME = datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC)
_MAX_SECOND = int(MAX_TIME.timestamp())
OUT_OF_RANGE = "the clock must stay between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z"
# A timer due within this of now is due: due times are sums of floats (a timer set by a timer...), which
# land a hair past the time they add up to, and `advance(1)` ten times must fire a timer ten seconds away.
TIMER_SLACK = 1e-6
RETRY_FIRST, RETRY_MAX = 1.0, 60.0  # seconds before a failed timer is tried again, doubling
SLICE_SECONDS = 0.005  # timer work `advance_in_slices` does before other requests get a turn

log = logging.getLogger("fakeapi.clock")


class Timer:
    """A callback due at a time on the clock's monotonic scale; `cancel()` before it fires to drop it
    (or before a retry, once it failed)."""

    __slots__ = ("due", "callback", "cancelled", "failures")

    def __init__(self, due: float, callback: Callable[[], None]) -> None:
        self.due = due
        self.callback = callback
        self.cancelled = False
        self.failures = 0

    def cancel(self) -> None:
        self.cancelled = True


class Clock:
    """Wall-clock time unless frozen. `advance` and `set` move frozen time, or offset live time.

    Intervals (bookmarks, history age) read `monotonic()`, which moves with `advance` and never
    jumps when the clock is frozen or unfrozen.
    """

    def __init__(self) -> None:
        self._timers: list[tuple[float, int, Timer]] = []
        self._order = itertools.count()
        self._wakeup: asyncio.TimerHandle | None = None
        self._firing = False
        self.reset()

    def reset(self) -> None:
        """Live time again, and no timers."""
        self._timers.clear()
        self._disarm()
        self._wall_offset = timedelta()
        self._mono_offset = 0.0
        self._frozen_wall: datetime | None = None
        self._frozen_mono = 0.0
        self._stamped_second, self._stamp = -1, ""

    def now(self) -> datetime:
        if self._frozen_wall is not None:
            return self._frozen_wall
        try:
            return datetime.now(UTC) + self._wall_offset
        except OverflowError:  # a live clock set near the end of year 9999 stops there
            return MAX_TIME

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
        self._arm()

    def set(self, when: datetime) -> None:
        """Jump to `when`; intervals move by the same amount (never backwards). ValueError when `when`
        is outside MIN_TIME..MAX_TIME."""
        when = in_range(when)
        step = (when - self.now()).total_seconds()
        if self._frozen_wall is not None:
            self._frozen_wall = when
            self._frozen_mono += max(0.0, step)
        else:
            self._wall_offset += timedelta(seconds=step)
            self._mono_offset += max(0.0, step)
        self._fire_due()

    def advance(self, seconds: float) -> datetime:
        """Move time on by `seconds`; timers due meanwhile fire at their own times, in order. ValueError
        when that would leave MIN_TIME..MAX_TIME."""
        if shifted(self.now(), seconds) is None:
            raise ValueError(OUT_OF_RANGE)
        if self._frozen_wall is None:
            self._wall_offset += timedelta(seconds=seconds)
            self._mono_offset += seconds
            self._fire_due()
            return self.now()
        target = self._frozen_mono + max(0.0, seconds)
        end_wall = self._frozen_wall + timedelta(seconds=seconds)
        if self._firing:  # a timer moved the clock: the timers loop running it fires what became due
            self._frozen_wall, self._frozen_mono = end_wall, target
            return self.now()
        while self._fire_next(target):
            pass
        self._frozen_wall, self._frozen_mono = end_wall, max(self._frozen_mono, target)
        return self.now()

    async def advance_in_slices(self, seconds: float, slice_seconds: float = SLICE_SECONDS) -> datetime:
        """`advance`, letting the event loop run other work every `slice_seconds` of timers. The work is
        that of the timers due (none for a clock nothing waits on), whatever the seconds. Between two
        slices the clock shows the time of the last timer fired, so a caller cancelled meanwhile (a
        request timeout, a server stopping) leaves it there, every timer up to then fired. A live clock
        moves at once: each timer due fires once, at the new time."""
        if shifted(self.now(), seconds) is None:
            raise ValueError(OUT_OF_RANGE)
        if self._frozen_wall is None or seconds <= 0 or self._firing:
            return self.advance(seconds)
        target = self._frozen_mono + seconds
        until = time.perf_counter() + slice_seconds
        while self._frozen_wall is not None and self._fire_next(target):
            if time.perf_counter() >= until:
                await asyncio.sleep(0)
                until = time.perf_counter() + slice_seconds
        if self._frozen_wall is not None and target > self._frozen_mono:  # (unless reset or unfrozen meanwhile)
            self._frozen_wall += timedelta(seconds=target - self._frozen_mono)
            self._frozen_mono = target
        return self.now()

    def _fire_next(self, target: float) -> bool:
        """On a frozen clock, move to the earliest timer due by `target` and fire what is due then;
        False when none is due by then."""
        assert self._frozen_wall is not None
        if not self._timers or self._timers[0][0] > target + TIMER_SLACK:
            return False
        due = self._timers[0][0]
        if due > self._frozen_mono:  # each timer sees the time it was due at
            self._frozen_wall += timedelta(seconds=due - self._frozen_mono)
            self._frozen_mono = due
        self._fire_due()
        return True

    # ---- timers

    def call_later(self, seconds: float, callback: Callable[[], None]) -> Timer:
        """Run `callback` once `seconds` have passed on this clock."""
        timer = Timer(self.monotonic() + max(0.0, seconds), callback)
        heapq.heappush(self._timers, (timer.due, next(self._order), timer))
        if self._timers[0][2] is timer:
            self._arm()
        return timer

    def _fire_due(self) -> None:
        """Run every timer due by now (those they add too, if due), earliest first."""
        if self._firing:
            return  # a timer's callback moved the clock: the loop below picks up what became due
        self._firing = True
        try:
            while self._timers and self._timers[0][0] <= self.monotonic() + TIMER_SLACK:
                _due, _order, timer = heapq.heappop(self._timers)
                if not timer.cancelled:
                    self._run(timer)
        finally:
            self._firing = False
            self._arm()

    def _run(self, timer: Timer) -> None:
        try:
            timer.callback()
        except Exception as error:
            timer.failures += 1
            delay = min(RETRY_MAX, RETRY_FIRST * 2 ** (timer.failures - 1))
            if timer.failures & (timer.failures - 1) == 0:  # the 1st, 2nd, 4th, 8th... failure in a row
                # (an API error, a storage failure, says what it is in a line; anything else is a bug)
                log.error("a timer on the server clock failed (%s: %s); trying it again in %gs",
                          type(error).__name__, error, delay,
                          exc_info=timer.failures == 1 and not isinstance(error, StatusError))
            timer.due = self.monotonic() + delay
            heapq.heappush(self._timers, (timer.due, next(self._order), timer))

    def _arm(self) -> None:
        """While live, wake the event loop when the earliest timer is due."""
        self._disarm()
        while self._timers and self._timers[0][2].cancelled:
            heapq.heappop(self._timers)
        if self._frozen_wall is not None or not self._timers:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop yet: the next call on the loop arms it
        self._wakeup = loop.call_later(max(0.0, self._timers[0][0] - self.monotonic()), self._fire_due)

    def _disarm(self) -> None:
        if self._wakeup is not None:
            self._wakeup.cancel()
            self._wakeup = None

    @property
    def frozen(self) -> bool:
        return self._frozen_wall is not None

    def timestamp(self) -> str:
        """RFC 3339 at second precision, as `metav1.Time` is written (strftime once per second)."""
        if self._frozen_wall is not None:
            second = int(self._frozen_wall.timestamp())
        else:  # no datetime built: this runs on every write
            second = min(int(time.time() + self._wall_offset.total_seconds()), _MAX_SECOND)
        if second != self._stamped_second:
            self._stamped_second, self._stamp = second, rfc3339(datetime.fromtimestamp(second, UTC))
        return self._stamp


def shifted(when: datetime, seconds: float) -> datetime | None:
    """`when` moved by `seconds`, or None when that leaves MIN_TIME..MAX_TIME (or `seconds` is NaN)."""
    if not (MIN_TIME - when).total_seconds() <= seconds <= (MAX_TIME - when).total_seconds():
        return None
    try:
        return when + timedelta(seconds=seconds)
    except OverflowError:  # a rounding hair beyond year 1
        return None


def later(when: datetime, seconds: float) -> datetime:
    """`when` plus `seconds` (a grace period), stopping at MAX_TIME: upstream writes deadlines past
    year 9999, which RFC 3339 text in Python cannot."""
    return shifted(when, seconds) or (MAX_TIME if seconds > 0 else MIN_TIME)


def in_range(when: datetime) -> datetime:
    """`when` in UTC (a naive time is taken as UTC); ValueError outside MIN_TIME..MAX_TIME."""
    try:
        when = when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)
    except OverflowError:  # e.g. 9999-12-31T23:00:00-05:00, in year 10000 once in UTC
        raise ValueError(OUT_OF_RANGE) from None
    if not MIN_TIME <= when <= MAX_TIME:
        raise ValueError(OUT_OF_RANGE)
    return when


def rfc3339(when: datetime) -> str:
    """RFC 3339 at second precision, the year always in four digits (`0999-...`, as Go writes it; strftime's
    %Y drops the zeros, and the server could not read back what it wrote)."""
    return when.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="seconds") + "Z"


def rfc3339_micro(when: datetime) -> str:
    """RFC 3339 with microseconds, as `metav1.MicroTime` is written."""
    return when.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"


def parse_rfc3339(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))
