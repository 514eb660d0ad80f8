"""A simulated kubelet's timers per pod, on the server clock: what a pod waits for (a pull, an exit, a
probe, a back-off), all dropped at once when the pod stops or goes."""

from __future__ import annotations

from collections.abc import Callable

from fakeapi.machinery.clock import Timer
from fakeapi.simulation.runtime import PodRuntime
from fakeapi.simulation.work import Work


class PodTimers:
    def __init__(self, work: Work) -> None:
        self.work = work

    def later(self, runtime: PodRuntime, seconds: float, step: Callable[[], None]) -> None:
        """Run `step` once `seconds` have passed (at once for 0 or less)."""
        if seconds <= 0:
            step()
            return
        holder: list[Timer] = []

        def run() -> None:
            runtime.timers.discard(holder[0])
            step()

        timer = self.work.later(seconds, run)
        holder.append(timer)
        runtime.timers.add(timer)

    def cancel(self, runtime: PodRuntime) -> None:
        for timer in runtime.timers:
            self.work.cancel(timer)
        runtime.timers.clear()
