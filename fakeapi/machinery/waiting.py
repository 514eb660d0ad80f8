"""Synchronous code that may wait for I/O without holding up the event loop.

A store call on etcd is a round trip that the calling code (registry, strategies, admission) makes
synchronously. `run_waiting(call)` runs `call` in a greenlet of its own: where the store waits (`wait`),
the greenlet hands the awaitable to the coroutine that runs it and the event loop goes on with other work
meanwhile; the call resumes where it stopped once the awaitable is done. Outside such a greenlet
(`can_wait()` is False) nothing changes: the store blocks as before.

This is what SQLAlchemy's asyncio extension does for its synchronous core, with the same library.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar, cast

from greenlet import getcurrent, greenlet

T = TypeVar("T")


class _Waiting(greenlet):
    """A greenlet whose waits go to the coroutine that runs it."""


async def run_waiting(call: Callable[[], T]) -> T:
    """Run `call` to its end on the event loop's thread, awaiting what it waits for."""
    child = _Waiting(call, getcurrent())
    switched: Any = child.switch()
    while not child.dead:
        try:
            value = await cast(Awaitable[Any], switched)
        except BaseException as error:  # (the call sees what the awaitable raised, or the task's cancellation)
            switched = child.throw(error)
        else:
            switched = child.switch(value)
    return cast(T, switched)


def can_wait() -> bool:
    """True inside `run_waiting`: `wait` lets the event loop go on."""
    return isinstance(getcurrent(), _Waiting)


def wait(awaitable: Awaitable[T]) -> T:
    """Wait for `awaitable` from synchronous code inside `run_waiting` (check `can_wait` first)."""
    current = getcurrent()
    parent = current.parent
    if not isinstance(current, _Waiting) or parent is None:
        raise RuntimeError("wait() outside run_waiting()")
    return cast(T, parent.switch(awaitable))
