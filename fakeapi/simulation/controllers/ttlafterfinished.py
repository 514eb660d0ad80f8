"""The TTL-after-finished controller (ttl-after-finished-controller): a finished Job with
`ttlSecondsAfterFinished` is deleted (in the foreground, its pods first) that long after it finished (its
Complete or Failed condition), on the server clock."""

from __future__ import annotations

from datetime import datetime

from fakeapi.machinery.clock import parse_rfc3339
from fakeapi.machinery.errors import NotFound
from fakeapi.machinery.types import JSON
from fakeapi.simulation.controllers.context import Context
from fakeapi.simulation.controllers.informers import Informer

SERVICE_ACCOUNT = "ttl-after-finished-controller"


class TTLAfterFinishedController:
    def __init__(self, context: Context) -> None:
        self.context = context
        self.work = context.work
        self.client = context.client(SERVICE_ACCOUNT)
        self.jobs: Informer[JSON] = context.informers.objects("jobs.batch")
        self.jobs.add_handler(self._job_changed)

    def start(self) -> None:
        for job in self.jobs.items():
            self._job_changed(None, job)

    def stop(self) -> None:
        pass  # (what waits on the clock is dropped with the to-do list)

    def _job_changed(self, old: JSON | None, new: JSON | None) -> None:
        if new is None or new["metadata"].get("deletionTimestamp"):
            return
        if (new.get("spec") or {}).get("ttlSecondsAfterFinished") is None or _finished_at(new) is None:
            return
        key = (new["metadata"].get("namespace", ""), new["metadata"]["name"])
        self.work.soon(("ttl-after-finished", key), lambda: self.sync(*key))

    def sync(self, namespace: str, name: str) -> None:
        job = self.jobs.get(namespace, name)
        if job is None or job["metadata"].get("deletionTimestamp"):
            return
        ttl = (job.get("spec") or {}).get("ttlSecondsAfterFinished")
        finished = _finished_at(job)
        if ttl is None or finished is None:
            return
        remaining = (finished - self.context.now()).total_seconds() + int(ttl)
        key = (namespace, name)
        if remaining > 0:
            self.work.later(remaining, lambda: self.sync(*key), key=(SERVICE_ACCOUNT, key))
            return
        try:
            self.client.delete("jobs", namespace, name, uid=job["metadata"]["uid"], propagation="Foreground",
                               group="batch")
        except NotFound:
            pass


def _finished_at(job: JSON) -> datetime | None:
    """When the Job finished: the transition of its Complete or Failed condition."""
    for condition in (job.get("status") or {}).get("conditions") or []:
        if condition.get("type") in ("Complete", "Failed") and condition.get("status") == "True":
            stamp = condition.get("lastTransitionTime")
            return parse_rfc3339(stamp) if stamp else None
    return None
