"""A simulated kubelet's timers per pod, on the server clock: what a pod waits for (a pull, an exit, a
probe, a back-off), all dropped at once when the pod stops or goes. (Kept here by pod uid rather than on
the pods: most running pods wait for nothing.)"""

from __future__ import annotations

from collections.abc import Callable

from fakeapi.machinery.clock import Timer
from fakeapi.simulation.runtime import PodRuntime
from fakeapi.simulation.work import Work


class PodTimers:
    def __init__(self, work: Work) -> None:
        self.work = work
        self._pending: dict[str, set[Timer]] = {}  # pod uid -> its timers not yet fired

    def later(self, runtime: PodRuntime, seconds: float, step: Callable[[], None]) -> Callable[[], None]:
        """Run `step` once `seconds` have passed (at once for 0 or less); what is returned cancels it."""
        if seconds <= 0:
            step()
            return _nothing
        uid = runtime.uid
        holder: list[Timer] = []

        def run() -> None:
            timers = self._pending.get(uid)
            if timers is not None:
                timers.discard(holder[0])
                if not timers:
                    del self._pending[uid]
            step()

        timer = self.work.later(seconds, run)
        holder.append(timer)
        self._pending.setdefault(uid, set()).add(timer)

        def cancel() -> None:
            timers = self._pending.get(uid)
            if timers is not None and timer in timers:
                timers.discard(timer)
                if not timers:
                    del self._pending[uid]
            self.work.cancel(timer)

        return cancel

    def waiting(self, runtime: PodRuntime) -> bool:
        """Whether the pod waits for anything."""
        return runtime.uid in self._pending

    def cancel(self, runtime: PodRuntime) -> None:
        for timer in self._pending.pop(runtime.uid, ()):
            self.work.cancel(timer)

    def clear(self) -> None:
        """Forget every timer (the clock's are dropped with the simulation's work)."""
        self._pending.clear()


def _nothing() -> None:
    pass
