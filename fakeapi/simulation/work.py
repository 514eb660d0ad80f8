"""The simulation's to-do list. A step that reacts to a change runs on the event loop right after the
change (never inside it: a store listener only queues), in batches that leave the loop free for API
requests; a step that waits runs on the server clock, so a frozen clock holds it until `advance()`.

Steps are idempotent: each reads the state it acts on when it runs. A step that fails with an API error
(a fault rule aimed at the simulation, a conflict) is tried again a second later on the clock, as a
component's work queue retries; one whose object is gone (404) is dropped.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable, Hashable

from fakeapi.machinery.clock import Clock, Timer
from fakeapi.machinery.errors import StatusError

Step = Callable[[], None]
SLICE_SECONDS = 0.001  # how long steps run per turn of a live event loop, before requests get their turn
RETRY_SECONDS = 1.0

log = logging.getLogger("fakeapi.simulation")


class Work:
    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self._queue: deque[Hashable] = deque()
        self._steps: dict[Hashable, Step] = {}
        self._timers: set[Timer] = set()
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
        for timer in self._timers:
            timer.cancel()
        self._timers.clear()

    def soon(self, key: Hashable, step: Step) -> None:
        """Run `step` once the current change is done; a step already queued under `key` stays queued."""
        if key in self._steps:
            return
        self._steps[key] = step
        self._queue.append(key)
        self._wake()

    def later(self, seconds: float, step: Step) -> Timer:
        """Run `step` once `seconds` have passed on the server clock. On a frozen clock it runs as the clock
        passes its time (then what it queued), so each step sees the time it was due at; on a live clock it
        joins the queue, so that many steps due at once still leave room for requests."""
        holder: list[Timer] = []

        def fire() -> None:
            timer = holder[0]
            self._timers.discard(timer)
            if not self.clock.frozen:
                self.soon(timer, step)
                return
            self._run(step)
            self.run_pending()

        timer = self.clock.call_later(seconds, fire)
        holder.append(timer)
        self._timers.add(timer)
        return timer

    def cancel(self, timer: Timer | None) -> None:
        if timer is not None:
            timer.cancel()
            self._timers.discard(timer)

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
                step = self._steps.pop(key)
                self._run(step)
        finally:
            self._draining = False
        if self._queue:
            self._wake()

    def _wake(self) -> None:
        if not self._woken and self._loop is not None and self._queue:
            self._woken = True
            self._loop.call_soon(self.run_pending)

    def _run(self, step: Step) -> None:
        try:
            step()
        except StatusError as error:
            if error.code != 404:
                log.debug("simulation step failed (%s); retrying in %ss", error.message, RETRY_SECONDS)
                self.later(RETRY_SECONDS, step)
        except Exception:
            log.exception("simulation step failed")
