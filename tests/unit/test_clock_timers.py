"""Timers on the server's clock: frozen, they fire only as `advance` moves time past them, in order and
each at its own time; live, they fire on the event loop as time passes."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime

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
