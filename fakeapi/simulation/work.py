"""The simulation's to-do list. A step that reacts to a change runs on the event loop right after the
change (never inside it: a store listener only queues), in batches that leave the loop free for API
requests; a step that waits runs on the server clock, so a frozen clock holds it until `advance()`.

Steps are idempotent: each reads the state it acts on when it runs. A step that fails, whatever the error
(a fault rule aimed at the simulation, a conflict, a storage error), is tried again on the clock, a second
later, then 2, 4... up to a minute, as a component's rate-limited work queue retries; one whose object is
gone (404) is dropped. Steps that wait on the clock are keyed: a step re-arming itself under its key (a
lease renewal, a monitor pass) replaces what waited under it, and its retry takes the same key, so a loop
that fails keeps one timer, and keeps going.

On a store other servers share (etcd), a step may run `while_storage_waits`: its writes wait for etcd
without holding up the loop (`machinery.waiting`), so many such steps (the kubelets' lease renewals) have
their round trips to etcd in flight at once, and requests and other steps go on meanwhile. Steps that
must keep their order (one component's events) run `in_turn_while_storage_waits`: one after another under
their key, the loop going on while each waits, as a component's event broadcaster writes its events from a
goroutine of its own.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable, Hashable
from functools import partial

from fakeapi.machinery.clock import Clock, Timer
from fakeapi.machinery.errors import StatusError
from fakeapi.machinery.waiting import run_waiting

Step = Callable[[], None]
SLICE_SECONDS = 0.001  # how long steps run per turn of a live event loop, before requests get their turn
RETRY_FIRST, RETRY_MAX = 1.0, 60.0  # seconds before a failed step runs again, doubling at each failure

log = logging.getLogger("fakeapi.simulation")


class Work:
    def __init__(self, clock: Clock, storage_waits: bool = False) -> None:
        """`storage_waits`: the store's writes are round trips that steps may wait for (etcd)."""
        self.clock = clock
        self.storage_waits = storage_waits
        self._waiting: dict[Hashable, asyncio.Task[None]] = {}  # steps waiting for storage, by key
        self._in_turn: dict[Hashable, deque[Step]] = {}  # steps queued to run in turn, by key
        self._queue: deque[Hashable] = deque()
        self._steps: dict[Hashable, Step] = {}
        self._timers: dict[Hashable, Timer] = {}  # what waits on the clock, by key
        self._failures: dict[Hashable, int] = {}  # steps failing now, by key: how many times in a row
        self._loop: asyncio.AbstractEventLoop | None = None
        self._woken = False
        self._draining = False

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._wake()

    def stop(self) -> None:
        """Forget every step, queued or waiting on the clock."""
        self._loop = None
        self._queue.clear()
        self._steps.clear()
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
        self._failures.clear()
        for task in self._waiting.values():
            task.cancel()
        self._waiting.clear()
        self._in_turn.clear()

    def soon(self, key: Hashable, step: Step) -> None:
        """Run `step` once the current change is done; a step already queued under `key` stays queued."""
        if key in self._steps:
            return
        self._steps[key] = step
        self._queue.append(key)
        self._wake()

    def later(self, seconds: float, step: Step, key: Hashable | None = None) -> Hashable:
        """Run `step` once `seconds` have passed on the server clock, under `key` (a new one by default),
        replacing the step that waited under it; returns the key, for `cancel`. On a frozen clock it runs as
        the clock passes its time (then what it queued), so each step sees the time it was due at; on a live
        clock it joins the queue, so that many steps due at once still leave room for requests."""
        if key is None:
            key = _Key()
        self._cancel_timer(key)
        self._timers[key] = self.clock.call_later(seconds, lambda: self._fire(key, step))
        return key

    def cancel(self, key: Hashable | None) -> None:
        """Drop the step waiting under `key`: on the clock (first run or retry), or queued to run."""
        if key is None:
            return
        self._cancel_timer(key)
        self._failures.pop(key, None)
        self._steps.pop(key, None)  # (its place in the queue is skipped)
        self._in_turn.pop(key, None)
        task = self._waiting.pop(key, None)
        if task is not None:
            task.cancel()

    def while_storage_waits(self, key: Hashable, step: Step) -> None:
        """Run `step` (as a step under `key`), letting the loop go on while its writes wait for storage; at
        once, to its end, where they do not (a store of this server's own, a frozen clock)."""
        if not self.storage_waits or self.clock.frozen or self._loop is None:
            self._run(key, step)
            return
        if key not in self._waiting:  # (else: its previous turn still waits; it re-arms when done)
            self._waiting[key] = self._loop.create_task(self._run_waiting(key, step))

    async def _run_waiting(self, key: Hashable, step: Step) -> None:
        try:
            await run_waiting(lambda: self._run(key, step))
        finally:
            if self._waiting.get(key) is asyncio.current_task():
                del self._waiting[key]

    def in_turn_while_storage_waits(self, key: Hashable, step: Step) -> None:
        """Run `step` once the steps queued under `key` before it are done, letting the loop go on while its
        writes wait for storage; at once where they do not. A step that fails is retried on its own."""
        if not self.storage_waits or self.clock.frozen or self._loop is None:
            self._run(_Key(), step)
            return
        self._in_turn.setdefault(key, deque()).append(step)
        if key not in self._waiting:
            self._waiting[key] = self._loop.create_task(self._run_in_turn(key))

    def queued_in_turn(self, key: Hashable) -> int:
        """How many steps wait under `key` for their turn (not counting the one running)."""
        steps = self._in_turn.get(key)
        return len(steps) if steps is not None else 0

    async def _run_in_turn(self, key: Hashable) -> None:
        steps = self._in_turn[key]
        try:
            while steps:
                await run_waiting(partial(self._run, _Key(), steps.popleft()))
        finally:
            if self._waiting.get(key) is asyncio.current_task():
                del self._waiting[key]
                del self._in_turn[key]

    def _cancel_timer(self, key: Hashable) -> None:
        timer = self._timers.pop(key, None)
        if timer is not None:
            timer.cancel()

    def _fire(self, key: Hashable, step: Step) -> None:
        self._timers.pop(key, None)
        if not self.clock.frozen:
            self.soon(key, step)
            return
        self._run(key, step)
        self.run_pending()

    def run_pending(self) -> None:
        """Run queued steps (and those they queue): all of them while the clock is frozen, so that a test
        stepping the clock sees every consequence; a few milliseconds' worth per turn of the event loop
        while it is live, so that requests are answered meanwhile."""
        self._woken = False
        if self._draining or self._loop is None:
            return
        self._draining = True
        try:
            until = None if self.clock.frozen else time.perf_counter() + SLICE_SECONDS
            while self._queue and (until is None or time.perf_counter() < until):
                key = self._queue.popleft()
                step = self._steps.pop(key, None)
                if step is not None:  # (None: cancelled)
                    self._run(key, step)
        finally:
            self._draining = False
        if self._queue:
            self._wake()

    def _wake(self) -> None:
        if not self._woken and self._loop is not None and self._queue:
            self._woken = True
            self._loop.call_soon(self.run_pending)

    def _run(self, key: Hashable, step: Step) -> None:
        try:
            step()
        except StatusError as error:
            if error.code == 404:  # what it acts on is gone
                self._failures.pop(key, None)
            else:
                self.retry_later(key, step, error)
        except Exception as error:
            self.retry_later(key, step, error)
        else:
            if self._failures and self._failures.pop(key, None) is not None:
                log.info("simulation step%s passed again", _name(key))

    def retry_later(self, key: Hashable | None, step: Step, error: Exception) -> None:
        """Run a step that failed with `error` again later, under its key (a new one if None): a second, then
        doubling at each failure in a row, up to a minute."""
        if key is None:
            key = _Key()
        failures = self._failures[key] = self._failures.get(key, 0) + 1
        delay = min(RETRY_MAX, RETRY_FIRST * 2 ** (failures - 1))
        reason = error.message if isinstance(error, StatusError) else f"{type(error).__name__}: {error}"
        if isinstance(error, StatusError) and error.code < 500:  # a conflict, a fault rule's 4xx: routine
            log.debug("simulation step%s failed (%s); trying it again in %gs", _name(key), reason, delay)
        elif failures & (failures - 1) == 0:  # the 1st, 2nd, 4th, 8th... failure in a row
            log.warning("simulation step%s failed (%s); trying it again in %gs", _name(key), reason, delay,
                        exc_info=not isinstance(error, StatusError) and failures == 1)
        self.later(delay, step, key)


def _name(key: Hashable) -> str:
    """A step's key as the log shows it: ` ('lease', 'node-1')`, say (nothing for an unnamed one)."""
    return f" {key}" if isinstance(key, tuple) else ""


class _Key:
    """The key of a step waiting on the clock that its caller did not name."""

    __slots__ = ()
