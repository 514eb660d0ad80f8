"""Synchronous code run with `run_waiting` waits for awaitables while the event loop goes on."""

from __future__ import annotations

import asyncio

import pytest

from fakeapi.machinery.waiting import can_wait, run_waiting, wait


def test_synchronous_code_waits_while_other_coroutines_run() -> None:
    steps: list[str] = []

    async def other() -> None:
        steps.append("other ran")

    def sync(name: str, seconds: float) -> str:
        steps.append(f"{name} waits")
        wait(asyncio.sleep(seconds))
        steps.append(f"{name} resumed")
        return name.upper()

    async def main() -> list[str]:
        return await asyncio.gather(run_waiting(lambda: sync("a", 0.02)), run_waiting(lambda: sync("b", 0.01)),
                                    other())

    assert asyncio.run(main()) == ["A", "B", None]
    assert steps == ["a waits", "b waits", "other ran", "b resumed", "a resumed"]


def test_what_the_awaitable_raises_reaches_the_synchronous_code() -> None:
    async def fails() -> None:
        raise ValueError("no")

    def sync() -> str:
        try:
            wait(fails())
        except ValueError as error:
            return f"caught {error}"
        return "not raised"

    assert asyncio.run(run_waiting(sync)) == "caught no"

    def raises() -> None:
        wait(fails())

    with pytest.raises(ValueError, match="no"):
        asyncio.run(run_waiting(raises))


def test_a_cancelled_task_unwinds_the_synchronous_code() -> None:
    unwound: list[bool] = []

    def sync() -> None:
        try:
            wait(asyncio.sleep(10))
        finally:
            unwound.append(True)

    async def main() -> None:
        task = asyncio.create_task(run_waiting(sync))
        await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert unwound == [True]


def test_outside_run_waiting_nothing_may_wait() -> None:
    assert not can_wait()
    assert asyncio.run(run_waiting(can_wait)) is True
    pending = asyncio.sleep(0)
    with pytest.raises(RuntimeError):
        wait(pending)
    pending.close()
