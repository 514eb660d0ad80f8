"""A simulated kubelet's timers per pod, on the server clock: what a pod waits for (a pull, an exit, a
probe, a back-off), all dropped at once when the pod stops or goes. (Kept here by pod uid rather than on
the pods: most running pods wait for nothing.)"""

from __future__ import annotations

from collections.abc import Callable, Hashable

from fakeapi.simulation.runtime import PodRuntime
from fakeapi.simulation.work import Work


class PodTimers:
    def __init__(self, work: Work) -> None:
        self.work = work
        self._pending: dict[str, set[Hashable]] = {}  # pod uid -> the Work keys of its steps not yet run

    def later(self, runtime: PodRuntime, seconds: float, step: Callable[[], None]) -> Callable[[], None]:
        """Run `step` once `seconds` have passed (at once for 0 or less); what is returned cancels it."""
        if seconds <= 0:
            step()
            return _nothing
        uid = runtime.uid
        holder: list[Hashable] = []

        def run() -> None:
            key = holder[0]
            timers = self._pending.get(uid)
            if timers is not None:
                timers.discard(key)
                if not timers:
                    del self._pending[uid]
            try:
                step()
            except Exception:
                self._pending.setdefault(uid, set()).add(key)  # retried under its key: still cancellable
                raise

        key = self.work.later(seconds, run)
        holder.append(key)
        self._pending.setdefault(uid, set()).add(key)

        def cancel() -> None:
            timers = self._pending.get(uid)
            if timers is not None and key in timers:
                timers.discard(key)
                if not timers:
                    del self._pending[uid]
            self.work.cancel(key)

        return cancel

    def waiting(self, runtime: PodRuntime) -> bool:
        """Whether the pod waits for anything."""
        return runtime.uid in self._pending

    def cancel(self, runtime: PodRuntime) -> None:
        for key in self._pending.pop(runtime.uid, ()):
            self.work.cancel(key)

    def clear(self) -> None:
        """Forget every timer (the steps are dropped with the simulation's work)."""
        self._pending.clear()


def _nothing() -> None:
    pass
