"""The simulation's to-do list on a frozen clock: a step that fails runs again with back-off, under its key,
so a loop that re-arms itself keeps one timer and carries on once it passes."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from fakeapi.machinery.clock import Clock
from fakeapi.machinery.errors import NotFound, UnknownError
from fakeapi.simulation.work import Work

START = datetime(2030, 1, 1, tzinfo=UTC)


@pytest.fixture
async def work() -> Work:
    clock = Clock()
    clock.freeze(START)
    work = Work(clock)
    work.start(asyncio.get_running_loop())
    return work


def seconds(work: Work) -> float:
    return (work.clock.now() - START).total_seconds()


async def test_a_loop_that_fails_is_retried_with_back_off_and_keeps_its_period_after(work: Work) -> None:
    runs: list[float] = []

    def renew() -> None:  # re-arms itself first, as the lease renewal does, then writes
        runs.append(seconds(work))
        work.later(10, renew, ("lease", "node-1"))
        if len(runs) in (2, 3, 4):
            raise UnknownError("the storage file fakeapi.db is read-only")

    work.later(10, renew, ("lease", "node-1"))
    work.clock.advance(60)
    assert runs == [10.0, 20.0, 21.0, 23.0, 27.0, 37.0, 47.0, 57.0]  # 1 s, 2 s, 4 s, then every 10 s again


async def test_a_step_whose_object_is_gone_is_dropped_and_others_are_not(work: Work) -> None:
    runs: list[str] = []

    def gone() -> None:
        runs.append("gone")
        raise NotFound("pods \"web\" not found")

    def failing() -> None:
        runs.append("failing")
        raise RuntimeError("a bug")

    work.soon(("a",), gone)
    work.soon(("b",), failing)
    work.clock.advance(0)
    work.run_pending()
    assert runs == ["gone", "failing"]
    work.clock.advance(1)
    assert runs == ["gone", "failing", "failing"]  # retried; the 404 was not
    work.cancel(("b",))
    work.clock.advance(100)
    assert runs == ["gone", "failing", "failing"]  # a cancelled step's retry is dropped with it


async def test_a_step_that_waits_for_storage_lets_other_steps_run_and_is_cancelled_with_its_key() -> None:
    from fakeapi.machinery.waiting import wait

    work = Work(Clock(), storage_waits=True)  # a live clock, a store whose writes are round trips (etcd)
    work.start(asyncio.get_running_loop())
    done: list[str] = []

    def renew(node: str, seconds: float) -> None:
        wait(asyncio.sleep(seconds))  # (where the etcd store waits for its round trip)
        done.append(node)

    work.while_storage_waits(("lease", "node-1"), lambda: renew("node-1", 0.05))
    work.while_storage_waits(("lease", "node-2"), lambda: renew("node-2", 0.4))
    work.soon("other", lambda: done.append("other"))
    await asyncio.sleep(0.2)
    assert done == ["other", "node-1"]  # the other step did not wait for the renewals
    work.cancel(("lease", "node-2"))
    await asyncio.sleep(0.4)
    assert done == ["other", "node-1"]  # node-2's renewal was cancelled while it waited
    work.stop()


async def test_without_storage_that_waits_the_step_runs_at_once(work: Work) -> None:
    done: list[str] = []
    work.while_storage_waits(("lease", "node-1"), lambda: done.append("node-1"))
    assert done == ["node-1"]  # (a frozen clock: also on etcd, a test stepping the clock sees it at once)


async def test_steps_in_turn_keep_their_order_under_a_key_and_let_the_loop_go_on_while_they_wait() -> None:
    from fakeapi.machinery.waiting import wait

    work = Work(Clock(), storage_waits=True)
    work.start(asyncio.get_running_loop())
    done: list[str] = []

    def write(name: str, seconds: float) -> None:
        wait(asyncio.sleep(seconds))
        done.append(name)

    def failing() -> None:
        done.append("failing")
        raise UnknownError("etcdserver: request timed out")

    work.in_turn_while_storage_waits(("events", "kubelet", "node-1"), lambda: write("pulled", 0.1))
    work.in_turn_while_storage_waits(("events", "kubelet", "node-1"), failing)
    work.in_turn_while_storage_waits(("events", "kubelet", "node-1"), lambda: write("started", 0.01))
    work.in_turn_while_storage_waits(("events", "kubelet", "node-2"), lambda: write("node-2", 0.05))
    work.soon("other", lambda: done.append("other"))
    await asyncio.sleep(0.3)
    # the other step and node-2's event did not wait for node-1's; node-1's came in the order recorded,
    # the failing one not holding up the next (it is retried on its own, a second later)
    assert done == ["other", "node-2", "pulled", "failing", "started"]
    work.in_turn_while_storage_waits(("events", "kubelet", "node-1"), lambda: write("killing", 0.5))
    work.cancel(("events", "kubelet", "node-1"))
    await asyncio.sleep(0.6)
    assert done == ["other", "node-2", "pulled", "failing", "started"]  # cancelled while it waited
    work.stop()


async def test_without_storage_that_waits_steps_in_turn_run_at_once(work: Work) -> None:
    done: list[str] = []
    work.in_turn_while_storage_waits(("events", "kubelet", "node-1"), lambda: done.append("pulled"))
    work.in_turn_while_storage_waits(("events", "kubelet", "node-1"), lambda: done.append("started"))
    assert done == ["pulled", "started"]
