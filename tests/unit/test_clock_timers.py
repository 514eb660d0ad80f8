"""Timers on the server's clock: frozen, they fire only as `advance` moves time past them, in order and
each at its own time; live, they fire on the event loop as time passes."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest

from fakeapi.machinery.clock import Clock

START = datetime(2026, 1, 1, tzinfo=UTC)


def test_frozen_timers_fire_in_order_each_at_its_own_time() -> None:
    clock = Clock()
    clock.freeze(START)
    fired: list[tuple[str, float]] = []
    clock.call_later(5, lambda: fired.append(("b", (clock.now() - START).total_seconds())))
    clock.call_later(2, lambda: fired.append(("a", (clock.now() - START).total_seconds())))
    clock.advance(1)
    assert fired == []
    clock.advance(10)
    assert fired == [("a", 2.0), ("b", 5.0)]
    assert clock.now() == datetime(2026, 1, 1, 0, 0, 11, tzinfo=UTC)


def test_a_timer_can_schedule_the_next_one_within_the_same_advance() -> None:
    clock = Clock()
    clock.freeze(START)
    ticks: list[float] = []

    def tick() -> None:
        ticks.append((clock.now() - START).total_seconds())
        if len(ticks) < 5:
            clock.call_later(10, tick)

    clock.call_later(10, tick)
    clock.advance(35)
    assert ticks == [10.0, 20.0, 30.0]
    clock.advance(100)
    assert ticks == [10.0, 20.0, 30.0, 40.0, 50.0]


def test_timers_set_by_timers_fire_when_their_float_sums_land_a_hair_late(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(time, "monotonic", lambda: 10981.234567)  # where ten steps of 0.1 overshoot 1.0
    clock = Clock()
    clock.freeze(START)
    ticks: list[int] = []

    def tick() -> None:
        ticks.append(len(ticks) + 1)
        clock.call_later(0.1, tick)

    clock.call_later(0.1, tick)
    clock.advance(1)
    assert ticks == list(range(1, 11))


def test_a_cancelled_timer_never_fires() -> None:
    clock = Clock()
    clock.freeze(START)
    fired: list[int] = []
    timer = clock.call_later(1, lambda: fired.append(1))
    timer.cancel()
    clock.advance(2)
    assert fired == []


async def test_live_timers_fire_on_the_event_loop() -> None:
    clock = Clock()
    done = asyncio.Event()
    clock.call_later(0.01, done.set)
    await asyncio.wait_for(done.wait(), 2)


async def test_timers_wait_while_frozen_and_fire_once_unfrozen() -> None:
    clock = Clock()
    clock.freeze()
    done = asyncio.Event()
    clock.call_later(0.01, done.set)
    await asyncio.sleep(0.05)
    assert not done.is_set()
    clock.unfreeze()
    await asyncio.wait_for(done.wait(), 2)


def _failing(calls: list[float], clock: Clock, failures: int) -> Callable[[], None]:
    """A callback that records when it ran and raises its first `failures` times (a full disk, say)."""

    def callback() -> None:
        calls.append((clock.now() - START).total_seconds())
        if len(calls) <= failures:
            raise OSError("database or disk is full")

    return callback


def test_a_timer_that_raises_is_tried_again_with_back_off_and_the_others_still_fire(
        caplog: pytest.LogCaptureFixture) -> None:
    clock = Clock()
    clock.freeze(START)
    calls: list[float] = []
    others: list[float] = []
    clock.call_later(1, _failing(calls, clock, failures=3))
    for seconds in (2, 5, 20):
        clock.call_later(seconds, lambda: others.append((clock.now() - START).total_seconds()))
    clock.advance(30)
    assert calls == [1.0, 2.0, 4.0, 8.0]  # retried 1 s, 2 s, then 4 s later, until it passed
    assert others == [2.0, 5.0, 20.0]
    assert "a timer on the server clock failed (OSError: database or disk is full); trying it again in 1s" \
        in caplog.text
    assert "Traceback" in caplog.text  # not an API error: a bug, with its traceback


def test_a_cancelled_timer_is_not_tried_again() -> None:
    clock = Clock()
    clock.freeze(START)
    calls: list[float] = []
    timer = clock.call_later(1, _failing(calls, clock, failures=100))
    clock.advance(1)
    timer.cancel()
    clock.advance(100)
    assert calls == [1.0]


async def test_a_live_clock_keeps_firing_after_a_timer_raised() -> None:
    clock = Clock()
    calls: list[float] = []
    clock.call_later(0.01, _failing(calls, clock, failures=1))
    done = asyncio.Event()
    clock.call_later(0.03, done.set)
    await asyncio.wait_for(done.wait(), 2)
    assert len(calls) == 1


async def test_advancing_in_slices_lets_other_work_run_between_timers() -> None:
    clock = Clock()
    clock.freeze(START)
    ticks: list[float] = []

    def tick() -> None:  # a periodic timer that costs a millisecond
        ticks.append((clock.now() - START).total_seconds())
        time.sleep(0.001)
        clock.call_later(10, tick)

    clock.call_later(10, tick)
    seen: list[int] = []

    async def other_request() -> None:
        while len(ticks) < 100:
            seen.append(len(ticks))
            await asyncio.sleep(0)

    other = asyncio.create_task(other_request())
    assert await clock.advance_in_slices(1000, slice_seconds=0.005) == START + timedelta(seconds=1000)
    await other
    assert ticks == [10.0 * n for n in range(1, 101)]  # each at its own time, as `advance` fires them
    assert len(set(seen)) > 5  # the other task ran at many points of the advance


async def test_an_advance_cancelled_midway_leaves_the_clock_at_the_last_timer_fired() -> None:
    clock = Clock()
    clock.freeze(START)
    ticks: list[float] = []

    def tick() -> None:
        ticks.append((clock.now() - START).total_seconds())
        time.sleep(0.001)
        clock.call_later(10, tick)

    clock.call_later(10, tick)
    advance = asyncio.create_task(clock.advance_in_slices(1e6, slice_seconds=0.002))
    await asyncio.sleep(0.05)
    advance.cancel()
    with pytest.raises(asyncio.CancelledError):
        await advance
    assert 0 < len(ticks) < 100_000
    assert clock.now() == START + timedelta(seconds=ticks[-1])
    clock.advance(10)  # and it carries on from there
    assert ticks[-1] == (clock.now() - START).total_seconds()
