"""The cronjob controller (cronjob-controller, upstream's ControllerV2): each CronJob is looked at when it or
one of its Jobs changes, and at its next scheduled time on the server clock (100 ms past it, as upstream).

At a scheduled time it creates the Job `<cronjob>-<scheduled time in minutes since the epoch>` from its
jobTemplate (with the `batch.kubernetes.io/cronjob-scheduled-timestamp` annotation, in the CronJob's time
zone), records it in `status.active` and `lastScheduleTime`, unless: it is suspended; the time was missed by
more than `startingDeadlineSeconds` (`MissSchedule`); `concurrencyPolicy: Forbid` and a Job is still running
(`JobAlreadyActive`); with Replace the running Jobs are deleted first. Of many missed times only the most
recent is started (over 100 missed: `TooManyMissedTimes`). Finished Jobs leave `active` (`SawCompletedJob`),
a successful one sets `lastSuccessfulTime`, and the oldest finished Jobs beyond successfulJobsHistoryLimit and
failedJobsHistoryLimit are deleted.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from zoneinfo import ZoneInfo

from fakeapi.kinds.cronjob.schedule import Schedule, ScheduleError, parse_schedule
from fakeapi.kinds.cronjob.timezones import load_zone
from fakeapi.machinery.clock import parse_rfc3339, rfc3339
from fakeapi.machinery.errors import AlreadyExists, NotFound, StatusError
from fakeapi.machinery.types import JSON
from fakeapi.simulation.controllers.context import Context
from fakeapi.simulation.controllers.informers import Informer, Key
from fakeapi.simulation.controllers.podcontrol import NAMESPACE_TERMINATING_CAUSE, controller_ref, reference

SERVICE_ACCOUNT = COMPONENT = "cronjob-controller"
SCHEDULED_TIMESTAMP = "batch.kubernetes.io/cronjob-scheduled-timestamp"
NEXT_SCHEDULE_DELTA = 0.1  # seconds past the scheduled time the CronJob is looked at
MANY_MISSED = 100


@dataclass(frozen=True)
class ZonedSchedule:
    """A schedule read in the CronJob's time zone (UTC without one, kube-controller-manager's)."""

    schedule: Schedule
    zone: ZoneInfo

    def next(self, after: datetime) -> datetime | None:
        upcoming = self.schedule.next_after(after.astimezone(self.zone))
        return None if upcoming is None else upcoming.astimezone(UTC)


class CronJobController:
    def __init__(self, context: Context) -> None:
        self.context = context
        self.work = context.work
        self.client = context.client(SERVICE_ACCOUNT)
        self.events = context.recorder(self.client, COMPONENT)
        self.cronjobs: Informer[JSON] = context.informers.objects("cronjobs.batch")
        self.jobs: Informer[JSON] = context.informers.objects("jobs.batch")
        self.cronjobs.add_handler(self._cronjob_changed)
        self.jobs.add_handler(self._job_changed)

    def start(self) -> None:
        for cronjob in self.cronjobs.items():
            self._queue(_key(cronjob))

    def stop(self) -> None:
        pass  # (what waits on the clock is dropped with the to-do list)

    def _queue(self, key: Key) -> None:
        self.work.soon((COMPONENT, key), lambda: self.sync(*key))

    def _cronjob_changed(self, old: JSON | None, new: JSON | None) -> None:
        if new is not None:
            self._queue(_key(new))
        elif old is not None:
            self.work.cancel((COMPONENT, "schedule", _key(old)))

    def _job_changed(self, old: JSON | None, new: JSON | None) -> None:
        for job in (old, new):
            owner = self._owner(job) if job is not None else None
            if owner is not None:
                self._queue(_key(owner))

    def _owner(self, job: JSON) -> JSON | None:
        ref = next((ref for ref in job["metadata"].get("ownerReferences") or [] if ref.get("controller")), None)
        if ref is None or ref.get("kind") != "CronJob":
            return None
        cronjob = self.cronjobs.get(job["metadata"].get("namespace", ""), str(ref.get("name", "")))
        return cronjob if cronjob is not None and cronjob["metadata"].get("uid") == ref.get("uid") else None

    # ---- the sync

    def sync(self, namespace: str, name: str) -> None:
        stored = self.cronjobs.get(namespace, name)
        if stored is None:
            return
        cronjob = copy.deepcopy(stored)
        jobs = self.jobs.controlled_by(cronjob["metadata"]["uid"])
        now = self.context.now()
        error: StatusError | None = None
        try:
            wait, changed = self._sync(cronjob, jobs, now)
        except StatusError as failure:
            wait, changed, error = None, True, failure
        if self._cleanup(cronjob, [self.jobs.get(namespace, job["metadata"]["name"]) or job for job in jobs]):
            changed = True
        if changed:
            self._write_status(cronjob, stored)
        if wait is not None:
            self.work.later(max(wait, 0.0), lambda: self.sync(namespace, name),
                            key=(COMPONENT, "schedule", (namespace, name)))
        if error is not None:
            raise error

    def _sync(self, cronjob: JSON, jobs: list[JSON], now: datetime) -> tuple[float | None, bool]:
        """syncCronJob: (seconds until it should be looked at again, whether its status changed)."""
        status: JSON = cronjob.setdefault("status", {})
        changed = False
        active: list[JSON] = status.setdefault("active", [])
        children = {job["metadata"]["uid"]: job for job in jobs}
        for job in jobs:
            uid = job["metadata"]["uid"]
            listed = any(ref.get("uid") == uid for ref in active)
            finished = _finished(job)
            if not listed and finished is None:
                self.events.warning(reference(cronjob), "UnexpectedJob", "Saw a job that the controller did not "
                                    f"create or forgot: {job['metadata']['name']}")
            elif listed and finished is not None:
                status["active"] = active = [ref for ref in active if ref.get("uid") != uid]
                self.events.normal(reference(cronjob), "SawCompletedJob",
                                   f"Saw completed job: {job['metadata']['name']}, condition: {finished}")
                changed = True
            if finished == "Complete":
                completed = (job.get("status") or {}).get("completionTime")
                last = status.get("lastSuccessfulTime")
                if completed and (not last or parse_rfc3339(completed) > parse_rfc3339(last)):
                    status["lastSuccessfulTime"] = completed
                    changed = True
        for ref in list(active):
            if ref.get("uid") in children:
                continue
            if self.jobs.get(ref.get("namespace", ""), ref.get("name", "")) is None:
                self.events.normal(reference(cronjob), "MissingJob", f"Active job went missing: {ref.get('name')}")
                status["active"] = active = [other for other in active if other.get("uid") != ref.get("uid")]
                changed = True
        if cronjob["metadata"].get("deletionTimestamp"):
            return None, changed
        spec: JSON = cronjob.get("spec") or {}
        if spec.get("suspend"):
            return None, changed
        zone = load_zone(str(spec.get("timeZone") or ""))
        if zone is None:
            self.events.warning(reference(cronjob), "UnknownTimeZone",
                                f'invalid timeZone: "{spec["timeZone"]}": unknown time zone {spec["timeZone"]}')
            return None, changed
        try:
            schedule = ZonedSchedule(parse_schedule(str(spec.get("schedule", ""))), zone)
        except ScheduleError as invalid:
            self.events.warning(reference(cronjob), "UnparseableSchedule",
                                f'unparseable schedule: "{spec.get("schedule", "")}" : {invalid}')
            return None, changed
        scheduled, missed = _most_recent(cronjob, now, schedule, True)
        if scheduled is None:
            return _next_wait(cronjob, now, schedule), changed
        if missed > MANY_MISSED:
            self.events.warning(reference(cronjob), "TooManyMissedTimes",
                                "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check "
                                "clock skew")
        deadline = spec.get("startingDeadlineSeconds")
        if deadline is not None and scheduled + timedelta(seconds=int(deadline)) < now:
            self.events.warning(reference(cronjob), "MissSchedule",
                                f"Missed scheduled time to start a job: {format_datetime(scheduled.astimezone(UTC))}")
            return _next_wait(cronjob, now, schedule), changed
        name = _job_name(cronjob, scheduled)
        last = status.get("lastScheduleTime")
        if any(ref.get("name") == name for ref in active) or (last and parse_rfc3339(last) == scheduled):
            return _next_wait(cronjob, now, schedule), changed
        policy = spec.get("concurrencyPolicy", "Allow")
        if policy == "Forbid" and active:
            self.events.normal(reference(cronjob), "JobAlreadyActive",
                               "Not starting job because prior execution is running and concurrency policy is Forbid")
            return _next_wait(cronjob, now, schedule), changed
        if policy == "Replace":
            for ref in list(active):
                running = self.jobs.get(ref.get("namespace", ""), ref.get("name", ""))
                if running is not None and self._delete_job(cronjob, running):
                    changed = True
        job = _job_from_template(cronjob, scheduled, schedule)
        try:
            created = self.client.create("jobs", cronjob["metadata"].get("namespace", ""), job, group="batch")
        except AlreadyExists:
            raise
        except StatusError as failure:
            if not any(cause.get("reason") == NAMESPACE_TERMINATING_CAUSE
                       for cause in (failure.details or {}).get("causes") or []):
                self.events.warning(reference(cronjob), "FailedCreate", f"Error creating job: {failure.message}")
            raise
        self.events.normal(reference(cronjob), "SuccessfulCreate", f"Created job {created['metadata']['name']}")
        active.append(_job_reference(created))
        status["active"] = active
        status["lastScheduleTime"] = rfc3339(scheduled)
        return _next_wait(cronjob, now, schedule), True

    def _cleanup(self, cronjob: JSON, jobs: list[JSON]) -> bool:
        """cleanupFinishedJobs: keep the newest finished Jobs within the history limits."""
        spec: JSON = cronjob.get("spec") or {}
        changed = False
        for outcome, field in (("Complete", "successfulJobsHistoryLimit"), ("Failed", "failedJobsHistoryLimit")):
            limit = spec.get(field)
            if limit is None:
                continue
            finished = [job for job in jobs if _finished(job) == outcome]
            extra = len(finished) - int(limit)
            if extra <= 0:
                continue
            finished.sort(key=_start_order)
            for job in finished[:extra]:
                if self._delete_job(cronjob, job):
                    changed = True
        return changed

    def _delete_job(self, cronjob: JSON, job: JSON) -> bool:
        """deleteJob: the Job (and its pods, in the background) and its place in `active`."""
        try:
            self.client.delete("jobs", job["metadata"].get("namespace", ""), job["metadata"]["name"],
                               propagation="Background", group="batch")
        except NotFound:
            pass
        except StatusError as error:
            self.events.warning(reference(cronjob), "FailedDelete", f"Deleted job: {error.message}")
            return False
        status: JSON = cronjob.setdefault("status", {})
        status["active"] = [ref for ref in status.get("active") or [] if ref.get("uid") != job["metadata"]["uid"]]
        self.events.normal(reference(cronjob), "SuccessfulDelete", f"Deleted job {job['metadata']['name']}")
        return True

    def _write_status(self, cronjob: JSON, stored: JSON) -> None:
        status: JSON = cronjob.get("status") or {}
        if not status.get("active"):
            status.pop("active", None)
        if status == (stored.get("status") or {}):
            return
        meta: JSON = cronjob["metadata"]
        current = self.cronjobs.get(meta.get("namespace", ""), meta["name"])
        if current is not None:
            meta["resourceVersion"] = current["metadata"]["resourceVersion"]
        self.client.update("cronjobs", meta.get("namespace", ""), meta["name"], cronjob, subresource="status",
                           group="batch")


def _key(obj: JSON) -> Key:
    return obj["metadata"].get("namespace", ""), obj["metadata"]["name"]


def _finished(job: JSON) -> str | None:
    """The finished condition of a Job (Complete or Failed), or None."""
    for condition in (job.get("status") or {}).get("conditions") or []:
        if condition.get("type") in ("Complete", "Failed") and condition.get("status") == "True":
            return str(condition["type"])
    return None


def _start_order(job: JSON) -> tuple[int, str, str]:
    """byJobStartTime: Jobs that never started last, then by start time, then by name."""
    started = (job.get("status") or {}).get("startTime")
    return (0 if started else 1, started or "", job["metadata"]["name"])


def _job_name(cronjob: JSON, scheduled: datetime) -> str:
    return f"{cronjob['metadata']['name']}-{int(scheduled.timestamp()) // 60}"


def _job_reference(job: JSON) -> JSON:
    meta: JSON = job["metadata"]
    return {"kind": "Job", "namespace": meta.get("namespace", ""), "name": meta["name"], "uid": meta.get("uid", ""),
            "apiVersion": "batch/v1", "resourceVersion": meta.get("resourceVersion", "")}


def _job_from_template(cronjob: JSON, scheduled: datetime, schedule: ZonedSchedule) -> JSON:
    """getJobFromTemplate2."""
    template: JSON = (cronjob.get("spec") or {}).get("jobTemplate") or {}
    template_meta: JSON = template.get("metadata") or {}
    annotations = dict(template_meta.get("annotations") or {})
    annotations[SCHEDULED_TIMESTAMP] = scheduled.astimezone(schedule.zone).isoformat().replace("+00:00", "Z")
    meta: JSON = {"name": _job_name(cronjob, scheduled), "annotations": annotations,
                  "ownerReferences": [controller_ref(cronjob)]}
    if template_meta.get("labels"):
        meta["labels"] = dict(template_meta["labels"])
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta,
            "spec": copy.deepcopy(template.get("spec") or {})}


def _most_recent(cronjob: JSON, now: datetime, schedule: ZonedSchedule,
                 with_deadline: bool) -> tuple[datetime | None, int]:
    """mostRecentScheduleTime: the latest scheduled time not yet started (None: none due), and about how many
    were missed."""
    earliest = _earliest(cronjob, now, with_deadline)
    first = schedule.next(earliest)
    if first is None or now < first:
        return None, 0
    second = schedule.next(first)
    if second is None or now < second:
        return first, 0
    between = max(1, round((second - first).total_seconds()))
    missed = int((now - first).total_seconds()) // between + 1
    moment: datetime | None = schedule.next(first + timedelta(seconds=(missed - 2) * between))
    latest = None
    while moment is not None and moment <= now:
        latest = moment
        moment = schedule.next(moment)
    return latest, missed


def _earliest(cronjob: JSON, now: datetime, with_deadline: bool) -> datetime:
    status: JSON = cronjob.get("status") or {}
    earliest = parse_rfc3339(status.get("lastScheduleTime") or cronjob["metadata"]["creationTimestamp"])
    deadline = (cronjob.get("spec") or {}).get("startingDeadlineSeconds")
    if with_deadline and deadline is not None:
        earliest = max(earliest, now - timedelta(seconds=int(deadline)))
    return earliest


def _next_wait(cronjob: JSON, now: datetime, schedule: ZonedSchedule) -> float | None:
    """nextScheduleTimeDuration: seconds until 100 ms past the next scheduled time."""
    latest, missed = _most_recent(cronjob, now, schedule, False)
    base = latest if latest is not None else (_earliest(cronjob, now, False) if missed == 0 else now)
    upcoming = schedule.next(base)
    if upcoming is None:
        return None
    return (upcoming - now).total_seconds() + NEXT_SCHEDULE_DELTA
