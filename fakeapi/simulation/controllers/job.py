"""The job controller (job-controller), after upstream's pkg/controller/job (v1.32, with its beta features on:
pods tracked with finalizers, terminating pods counted, interim terminal conditions).

A Job's pods are made from its template (`<job>-<5 random>`; an Indexed Job's `<job>-<index>-<5 random>`,
with the index annotation, label, hostname and JOB_COMPLETION_INDEX), each with the
`batch.kubernetes.io/job-tracking` finalizer, at most `parallelism` at a time and no more than the completions
left. A finished pod is first listed in `status.uncountedTerminatedPods`, then its finalizer is removed, then
it is counted in `succeeded` or `failed`. After a failure, new pods wait a back-off of 10 s doubling per
failure since the last success (up to 10 min). More failures than `backoffLimit` (for restartPolicy OnFailure,
container restarts count too) or a Job active longer than `activeDeadlineSeconds` fails it: its pods are
deleted, `FailureTarget` is set at once and `Failed` once no pod is left terminating. Completions reached set
`SuccessCriteriaMet`, then `Complete` with `completionTime`; a Job without `completions` completes once a
pod succeeded and none is running. `suspend` deletes the active pods (`Suspended` condition) and clears
`startTime`, set again when it is resumed. A pod that keeps the tracking finalizer while no unfinished Job
controls it (its Job was deleted) loses it, so that it can go.

A `podFailurePolicy` (jobpolicy.py) decides each failed pod: a FailJob rule fails the Job (reason
PodFailurePolicy, the rule's message), an Ignore rule lets the pod go uncounted, Count counts it, FailIndex
fails its index. With `backoffLimitPerIndex` each pod carries its index's failure count
(`batch.kubernetes.io/job-index-failure-count`); an index failing more often than that, or matching FailIndex,
is listed in `status.failedIndexes` and not run again; more than `maxFailedIndexes` fails the Job
(MaxFailedIndexesExceeded), as does finishing with failed indexes (FailedIndexes). An Indexed Job's
`successPolicy` met sets SuccessCriteriaMet (reason SuccessPolicy), deletes the pods left, then Complete.
With podReplacementPolicy Failed (the default with a pod failure policy) a terminating pod is replaced only
once it has failed.

Not reproduced: the delayed removal of the finalizer of an index's last failed pod (the pods of a Job stay
listed here: nothing collects finished pods while their Job exists), managedBy (Jobs whose managedBy names
another controller are left alone, as upstream).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from fakeapi.machinery.clock import parse_rfc3339, rfc3339
from fakeapi.machinery.errors import NotFound, StatusError
from fakeapi.machinery.types import JSON
from fakeapi.simulation.controllers.context import Context
from fakeapi.simulation.controllers.informers import Informer, Key
from fakeapi.simulation.controllers.jobpolicy import (
    FAIL_INDEX,
    INDEX_FAILURE_COUNT,
    INDEX_IGNORED_FAILURE_COUNT,
    Match,
    annotation_count,
    index_text,
    match_pod_failure_policy,
    match_success_policy,
    parse_indexes,
)
from fakeapi.simulation.controllers.podcontrol import (
    PodControl,
    claim_pods,
    controller_ref,
    pod_from_template,
    reference,
    selector,
)
from fakeapi.simulation.controllers.pods import Pod
from fakeapi.simulation.controllers.replicaset import pods_to_delete

SERVICE_ACCOUNT = COMPONENT = "job-controller"
TRACKING_FINALIZER = "batch.kubernetes.io/job-tracking"
INDEX_ANNOTATION = INDEX_LABEL = "batch.kubernetes.io/job-completion-index"
INDEX_ENV = "JOB_COMPLETION_INDEX"
MANAGED_BY = "kubernetes.io/job-controller"
BACKOFF_SECONDS = 10.0  # DefaultJobPodFailureBackOff
MAX_BACKOFF_SECONDS = 600.0  # MaxJobPodFailureBackOff
MAX_PODS_PER_SYNC = 500  # MaxPodCreateDeletePerSync
COMPLETE, FAILED, SUSPENDED = "Complete", "Failed", "Suspended"
SUCCESS_CRITERIA_MET, FAILURE_TARGET = "SuccessCriteriaMet", "FailureTarget"
COMPLETIONS_REACHED = ("CompletionsReached", "Reached expected number of succeeded pods")
BACKOFF_LIMIT_EXCEEDED = ("BackoffLimitExceeded", "Job has reached the specified backoff limit")
DEADLINE_EXCEEDED = ("DeadlineExceeded", "Job was active longer than specified deadline")
POD_FAILURE_POLICY = "PodFailurePolicy"
MAX_FAILED_INDEXES_EXCEEDED = ("MaxFailedIndexesExceeded",
                               "Job has exceeded the specified maximal number of failed indexes")
FAILED_INDEXES = ("FailedIndexes", "Job has failed indexes")
SUCCESS_POLICY = "SuccessPolicy"


@dataclass
class Backoff:
    """The failures since the last success, and when the last one happened (upstream's backoffRecord)."""

    failures: int = 0
    last_failure: datetime | None = None

    def remaining(self, now: datetime) -> float:
        if self.failures == 0 or self.last_failure is None:
            return 0.0
        delay: float = min(BACKOFF_SECONDS * 2.0 ** (self.failures - 1), MAX_BACKOFF_SECONDS)
        return max(0.0, delay - (now - self.last_failure).total_seconds())


class JobController:
    def __init__(self, context: Context) -> None:
        self.context = context
        self.work = context.work
        self.client = context.client(SERVICE_ACCOUNT)
        self.events = context.recorder(self.client, COMPONENT)
        self.pod_control = PodControl(self.client, self.events)
        self.jobs: Informer[JSON] = context.informers.objects("jobs.batch")
        self.pods: Informer[Pod] = context.informers.pods()
        self.jobs.add_handler(self._job_changed)
        self.pods.add_handler(self._pod_changed)
        self.backoffs: dict[str, Backoff] = {}  # job uid -> its pods' failures

    def start(self) -> None:
        for job in self.jobs.items():
            self._queue(_key(job))
        for pod in self.pods.items():
            self._check_orphan(pod)

    def stop(self) -> None:
        self.backoffs.clear()

    # ---- what wakes a Job up

    def _queue(self, key: Key) -> None:
        self.work.soon((COMPONENT, key), lambda: self.sync(*key))

    def _queue_after(self, key: Key, reason: str, seconds: float) -> None:
        """Look at the Job again later (one timer per reason: a deadline, a back-off)."""
        self.work.later(seconds, lambda: self.sync(*key), key=(COMPONENT, reason, key))

    def _job_changed(self, old: JSON | None, new: JSON | None) -> None:
        if new is not None:
            self._queue(_key(new))
        elif old is not None:
            self.backoffs.pop(old["metadata"].get("uid", ""), None)
            for pod in self.pods.controlled_by(old["metadata"].get("uid", "")):
                self._check_orphan(pod)

    def _owner(self, pod: Pod) -> JSON | None:
        ref = next((ref for ref in pod.owners if ref.get("controller")), None)
        if ref is None or ref.get("kind") != "Job":
            return None
        job = self.jobs.get(pod.namespace, str(ref.get("name", "")))
        return job if job is not None and job["metadata"].get("uid") == ref.get("uid") else None

    def _pod_changed(self, old: Pod | None, new: Pod | None) -> None:
        pod = new if new is not None else old
        assert pod is not None
        job = self._owner(pod)
        if job is not None:
            self._queue(_key(job))
        if new is not None:
            self._check_orphan(new)
        if new is not None and old is not None and old.controller_uid != new.controller_uid:
            previous = self._owner(old)
            if previous is not None:
                self._queue(_key(previous))

    def _check_orphan(self, pod: Pod) -> None:
        """handleOrphanPod: a pod that keeps the tracking finalizer though no unfinished Job controls it
        (its Job was deleted, or finished) lets it go, so that it can be deleted."""
        if TRACKING_FINALIZER not in pod.finalizers:
            return
        ref = next((ref for ref in pod.owners if ref.get("controller")), None)
        if ref is not None and (ref.get("kind") != "Job" or ref.get("apiVersion") != "batch/v1"):
            return
        job = self._owner(pod)
        if job is not None and not _finished(job):
            return
        key = (pod.namespace, pod.name)
        self.work.soon((COMPONENT, "orphan", key), lambda: self._release_orphan(key))

    def _release_orphan(self, key: Key) -> None:
        pod = self.pods.get(*key)
        if pod is None or TRACKING_FINALIZER not in pod.finalizers:
            return
        job = self._owner(pod)
        if job is not None and not _finished(job):
            return  # adopted meanwhile
        self.client.patch("pods", pod.namespace, pod.name,
                          {"metadata": {"$deleteFromPrimitiveList/finalizers": [TRACKING_FINALIZER]}})

    # ---- the sync

    def sync(self, namespace: str, name: str) -> None:
        stored = self.jobs.get(namespace, name)
        if stored is None:
            return
        spec: JSON = stored.get("spec") or {}
        if spec.get("managedBy", MANAGED_BY) != MANAGED_BY or _finished(stored):
            return
        job = copy.deepcopy(stored)
        status: JSON = job.setdefault("status", {})
        now = self.context.now()
        key = (namespace, name)
        uid = job["metadata"]["uid"]
        candidates = self.pods.controlled_by(uid) + [pod for pod in self.pods.orphans(namespace) if not pod.terminal]
        all_pods = claim_pods(self.client, job, selector(spec.get("selector")), candidates)
        suspended = bool(spec.get("suspend"))
        status.setdefault("uncountedTerminatedPods", {})
        if not status.get("startTime") and not suspended:
            status["startTime"] = rfc3339(now)
        uncounted: JSON = status.get("uncountedTerminatedPods") or {}
        counted = set(uncounted.get("succeeded") or []) | set(uncounted.get("failed") or [])
        active = [pod for pod in all_pods if pod.active]
        terminating = [pod for pod in all_pods if pod.deleting and not pod.terminal]
        newly = [pod for pod in all_pods if pod.terminal and TRACKING_FINALIZER in pod.finalizers
                 and pod.uid not in counted]
        newly_succeeded = [pod for pod in newly if pod.phase == "Succeeded"]
        matches = {pod.uid: _match(spec, pod) for pod in newly if pod.phase == "Failed"}
        # (a failure an Ignore rule matches is let go without being counted)
        newly_failed = [pod for pod in newly if pod.uid in matches and matches[pod.uid].counts]
        newly_ignored = [pod for pod in newly if pod.uid in matches and not matches[pod.uid].counts]
        self._note_failures(uid, newly_succeeded, newly_failed + newly_ignored, now)  # (ignored ones back off)
        succeeded = int(status.get("succeeded") or 0) + len(uncounted.get("succeeded") or []) + len(newly_succeeded)
        failed = int(status.get("failed") or 0) + len(uncounted.get("failed") or []) + len(newly_failed)
        indexed = spec.get("completionMode") == "Indexed"
        completions = int(spec.get("completions") or 0)
        succeeded_indexes = parse_indexes(status.get("completedIndexes", ""), completions)
        failed_indexes: set[int] | None = None
        if indexed:
            succeeded_indexes |= {index for pod in newly_succeeded
                                  if (index := _index(pod)) is not None and index < completions}
            if spec.get("backoffLimitPerIndex") is not None:
                failed_indexes = parse_indexes(status.get("failedIndexes") or "", completions) | {
                    index for pod in newly if pod.uid in matches and (index := _index(pod)) is not None
                    and index < completions and _index_failed(spec, pod, matches[pod.uid])}
        interim, final = self._finished_condition(job, all_pods, failed, succeeded_indexes, failed_indexes, now)
        error: StatusError | None = None
        if final is not None:
            deleted = self._delete_pods(job, active)
            terminating += deleted
            active = []
        else:
            if not suspended and not job["metadata"].get("deletionTimestamp"):
                try:
                    active = self._manage(job, active, terminating, succeeded, succeeded_indexes, failed_indexes,
                                          all_pods, now)
                except StatusError as failure:
                    error = failure
            elif suspended:
                terminating += self._delete_pods(job, active)
                active = []
            if spec.get("completions") is None:
                done = succeeded > 0 and not active
            elif indexed:
                done = len(succeeded_indexes) >= completions and not active
            else:
                done = succeeded >= completions and not active
            if done:
                interim, final = (SUCCESS_CRITERIA_MET, *COMPLETIONS_REACHED), (COMPLETE, *COMPLETIONS_REACHED)
            else:
                self._suspension(job, suspended, now)
        self._track(job, all_pods, active, terminating, newly_succeeded, newly_failed, newly_ignored,
                    succeeded_indexes if indexed else None, failed_indexes, interim, final, now)
        deadline = spec.get("activeDeadlineSeconds")
        if final is None and deadline is not None and not suspended and status.get("startTime"):
            elapsed = (now - parse_rfc3339(status["startTime"])).total_seconds()
            self._queue_after(key, "deadline", max(0.0, int(deadline) - elapsed))
        if error is not None:
            raise error

    def _note_failures(self, uid: str, succeeded: list[Pod], failed: list[Pod], now: datetime) -> None:
        backoff = self.backoffs.setdefault(uid, Backoff())
        if succeeded:
            backoff.failures, backoff.last_failure = 0, None
        if failed:
            backoff.failures += len(failed)
            backoff.last_failure = max((_finished_at(pod) or now for pod in failed), default=now)

    def _finished_condition(self, job: JSON, pods: list[Pod], failed: int, succeeded_indexes: set[int],
                            failed_indexes: set[int] | None,
                            now: datetime) -> tuple[tuple[str, str, str] | None, tuple[str, str, str] | None]:
        """(interim, final) conditions when the Job has failed or met its success policy: (type, reason,
        message) each, in upstream's order: a FailJob rule, the back-off limit, the deadline, the failed
        indexes, then the success policy."""
        status: JSON = job.get("status") or {}
        spec: JSON = job.get("spec") or {}
        for condition in status.get("conditions") or []:
            if condition.get("status") != "True":
                continue
            if condition.get("type") == SUCCESS_CRITERIA_MET:
                return None, (COMPLETE, condition.get("reason", ""), condition.get("message", ""))
            if condition.get("type") == FAILURE_TARGET:
                return None, (FAILED, condition.get("reason", ""), condition.get("message", ""))
        limit = int(spec.get("backoffLimit", 6))
        fail_job = _fail_job_message(spec, pods)
        completions = int(spec.get("completions") or 0)
        if fail_job is not None:
            reason = (POD_FAILURE_POLICY, fail_job)
        elif failed > limit or _past_backoff_limit_on_failure(spec, pods, limit):
            reason = BACKOFF_LIMIT_EXCEEDED
        elif self._past_deadline(job, now):
            reason = DEADLINE_EXCEEDED
        elif failed_indexes and spec.get("maxFailedIndexes") is not None \
                and len(failed_indexes) > int(spec["maxFailedIndexes"]):
            reason = MAX_FAILED_INDEXES_EXCEEDED
        elif failed_indexes and len(failed_indexes) + len(succeeded_indexes) >= completions:
            reason = FAILED_INDEXES
        elif spec.get("completionMode") == "Indexed" and (
                matched := match_success_policy(spec.get("successPolicy"), completions, succeeded_indexes)):
            return (SUCCESS_CRITERIA_MET, SUCCESS_POLICY, matched), (COMPLETE, SUCCESS_POLICY, matched)
        else:
            return None, None
        return (FAILURE_TARGET, *reason), (FAILED, *reason)

    def _past_deadline(self, job: JSON, now: datetime) -> bool:
        spec: JSON = job.get("spec") or {}
        status: JSON = job.get("status") or {}
        deadline = spec.get("activeDeadlineSeconds")
        if deadline is None or not status.get("startTime") or spec.get("suspend"):
            return False
        return (now - parse_rfc3339(status["startTime"])).total_seconds() >= int(deadline)

    def _suspension(self, job: JSON, suspended: bool, now: datetime) -> None:
        """The Suspended condition (and its event) as `suspend` says; resuming restarts the clock of
        activeDeadlineSeconds."""
        status: JSON = job.setdefault("status", {})
        current = next((c for c in status.get("conditions") or [] if c.get("type") == SUSPENDED), None)
        if suspended:
            if current is None or current.get("status") != "True":
                _set_condition(status, SUSPENDED, "True", "JobSuspended", "Job suspended", now)
                status.pop("startTime", None)  # (v1.32: the time it is active counts from its resumption)
                self.events.normal(reference(job), "Suspended", "Job suspended")
        elif current is not None and current.get("status") == "True":
            _set_condition(status, SUSPENDED, "False", "JobResumed", "Job resumed", now)
            self.events.normal(reference(job), "Resumed", "Job resumed")
            status["startTime"] = rfc3339(now)

    def _manage(self, job: JSON, active: list[Pod], terminating: list[Pod], succeeded: int,
                succeeded_indexes: set[int], failed_indexes: set[int] | None, pods: list[Pod],
                now: datetime) -> list[Pod]:
        """manageJob: create or delete pods towards the number that should run; returns the active pods."""
        spec: JSON = job.get("spec") or {}
        parallelism = int(spec.get("parallelism", 1))
        completions = spec.get("completions")
        indexed = spec.get("completionMode") == "Indexed"
        if completions is None:
            want = len(active) if succeeded > 0 else parallelism
        elif indexed:
            want = min(parallelism, int(completions) - len(succeeded_indexes & set(range(int(completions)))))
        else:
            want = min(parallelism, int(completions) - succeeded)
        want = max(want, 0)
        namespace = job["metadata"].get("namespace", "")
        if failed_indexes:  # the pods of an index that failed go
            doomed = [pod for pod in active if _index(pod) in failed_indexes]
            for pod in doomed:
                self.pod_control.delete(namespace, pod.name, job)
            active = [pod for pod in active if pod not in doomed]
        # (with podReplacementPolicy Failed, a terminating pod is replaced only once it failed)
        replaced_late = spec.get("podReplacementPolicy") == "Failed"
        busy = len(active) + (len(terminating) if replaced_late else 0)
        if len(active) > want:
            extra = pods_to_delete(active, active, min(len(active) - want, MAX_PODS_PER_SYNC), now)
            for pod in extra:
                self.pod_control.delete(namespace, pod.name, job)
            gone = {pod.uid for pod in extra}
            return [pod for pod in active if pod.uid not in gone]
        if busy >= want:
            return active
        if failed_indexes is None:
            wait = self.backoffs.get(job["metadata"]["uid"], Backoff()).remaining(now)
            if wait > 0:
                self._queue_after(_key(job), "backoff", wait)
                return active
        count = min(want - busy, MAX_PODS_PER_SYNC)
        indexes: Sequence[int | None] = [None] * count
        replaced: dict[int, JSON] = {}
        if indexed and completions is not None:
            taken = succeeded_indexes | {index for pod in active if (index := _index(pod)) is not None}
            if replaced_late:
                taken |= {index for pod in terminating if (index := _index(pod)) is not None}
            taken |= failed_indexes or set()
            pending = [index for index in range(int(completions)) if index not in taken]
            if failed_indexes is not None:
                replaced = _last_failed_per_index(pods, set(pending))
                pending = self._past_index_backoff(job, pending, replaced, now)
            indexes = pending[:count]
        for index in indexes:
            manifest = self._pod(job, index, replaced.get(index) if index is not None else None)
            created = self.pod_control.create(namespace, manifest, job)
            if created is None:
                break
        return [pod for pod in self.pods.controlled_by(job["metadata"]["uid"]) if pod.active]

    def _past_index_backoff(self, job: JSON, pending: list[int], replaced: dict[int, JSON],
                            now: datetime) -> list[int]:
        """With backoffLimitPerIndex each index waits out its own back-off, counted from its last failure;
        the Job is looked at again when the first wait ends."""
        ready, waits = [], []
        for index in pending:
            previous = replaced.get(index)
            if previous is None:
                ready.append(index)
                continue
            failures = annotation_count(previous, INDEX_FAILURE_COUNT) + annotation_count(
                previous, INDEX_IGNORED_FAILURE_COUNT) + 1
            wait = Backoff(failures, _finished_at_json(previous) or now).remaining(now)
            if wait > 0:
                waits.append(wait)
            else:
                ready.append(index)
        if waits:
            self._queue_after(_key(job), "backoff", min(waits))
        return ready

    def _pod(self, job: JSON, index: int | None, replaced: JSON | None = None) -> JSON:
        job_spec: JSON = job.get("spec") or {}
        template: JSON = copy.deepcopy(job_spec.get("template") or {})
        pod = pod_from_template(template, job, controller_ref(job))
        meta: JSON = pod["metadata"]
        finalizers = meta.setdefault("finalizers", [])
        if TRACKING_FINALIZER not in finalizers:
            finalizers.append(TRACKING_FINALIZER)
        if index is not None:
            meta["generateName"] = f"{job['metadata']['name']}-{index}-"
            meta.setdefault("annotations", {})[INDEX_ANNOTATION] = str(index)
            meta.setdefault("labels", {})[INDEX_LABEL] = str(index)
            if job_spec.get("backoffLimitPerIndex") is not None:
                failures, ignored = _new_index_failure_counts(job_spec, replaced)
                meta["annotations"][INDEX_FAILURE_COUNT] = str(failures)
                if ignored:
                    meta["annotations"][INDEX_IGNORED_FAILURE_COUNT] = str(ignored)
            spec: JSON = pod["spec"]
            spec.setdefault("hostname", f"{job['metadata']['name']}-{index}")
            variable = {"name": INDEX_ENV, "valueFrom": {"fieldRef": {
                "apiVersion": "v1", "fieldPath": f"metadata.labels['{INDEX_LABEL}']"}}}
            for group in ("initContainers", "containers"):
                for container in spec.get(group) or []:
                    env = container.setdefault("env", [])
                    if all(entry.get("name") != INDEX_ENV for entry in env):
                        env.append(variable)
        return pod

    def _delete_pods(self, job: JSON, active: list[Pod]) -> list[Pod]:
        namespace = job["metadata"].get("namespace", "")
        deleted = []
        for pod in active:
            if self.pod_control.delete(namespace, pod.name, job):
                deleted.append(pod)
        return deleted

    # ---- status, finalizers and the terminal conditions

    def _track(self, job: JSON, pods: list[Pod], active: list[Pod], terminating: list[Pod],
               newly_succeeded: list[Pod], newly_failed: list[Pod], newly_ignored: list[Pod],
               succeeded_indexes: set[int] | None, failed_indexes: set[int] | None,
               interim: tuple[str, str, str] | None, final: tuple[str, str, str] | None, now: datetime) -> None:
        """trackJobStatusAndRemoveFinalizers: list the finished pods as uncounted (with the interim condition),
        remove their finalizers, count them, then set the final condition once nothing is left to count or
        terminating."""
        status: JSON = job.setdefault("status", {})
        uncounted: JSON = copy.deepcopy(status.get("uncountedTerminatedPods") or {})
        for field, newly in (("succeeded", newly_succeeded), ("failed", newly_failed)):
            if newly:
                uncounted[field] = [*(uncounted.get(field) or []), *(pod.uid for pod in newly)]
        status["active"] = len(active)
        status["ready"] = sum(1 for pod in active if pod.ready)
        status["terminating"] = len({pod.uid for pod in terminating})
        if interim is not None and not any(c.get("type") == interim[0] for c in status.get("conditions") or []):
            _set_condition(status, interim[0], "True", interim[1], interim[2], now)
        if uncounted.get("succeeded") or uncounted.get("failed"):
            status["uncountedTerminatedPods"] = uncounted
        if failed_indexes is not None:
            status["failedIndexes"] = index_text(failed_indexes)
        self._write_status(job)
        by_uid = {pod.uid: pod for pod in pods}
        released = [*(uncounted.get("succeeded") or []), *(uncounted.get("failed") or []),
                    *(pod.uid for pod in newly_ignored)]
        for uid in released:
            pod = by_uid.get(uid)
            if pod is not None and TRACKING_FINALIZER in pod.finalizers:
                try:
                    self.client.patch("pods", pod.namespace, pod.name,
                                      {"metadata": {"$deleteFromPrimitiveList/finalizers": [TRACKING_FINALIZER]}})
                except NotFound:
                    pass
        for field in ("succeeded", "failed"):
            moved = uncounted.pop(field, None) or []
            if moved:
                status[field] = int(status.get(field) or 0) + len(moved)
        if succeeded_indexes is not None:
            status["completedIndexes"] = index_text(succeeded_indexes)
        status["uncountedTerminatedPods"] = {}
        if final is not None and not status["terminating"]:
            _set_condition(status, final[0], "True", final[1], final[2], now)
            if final[0] == COMPLETE:
                status["completionTime"] = rfc3339(now)
        self._write_status(job)
        if final is not None and not status["terminating"]:
            if final[0] == COMPLETE:
                self.events.normal(reference(job), "Completed", "Job completed")
            else:
                self.events.warning(reference(job), final[1], final[2])

    def _write_status(self, job: JSON) -> None:
        """PUT jobs/status, unless the status is as stored."""
        meta: JSON = job["metadata"]
        stored = self.jobs.get(meta.get("namespace", ""), meta["name"])
        if stored is not None and _same(stored.get("status") or {}, job.get("status") or {}):
            return
        updated = self.client.update("jobs", meta.get("namespace", ""), meta["name"], job, subresource="status",
                                     group="batch")
        meta["resourceVersion"] = updated["metadata"]["resourceVersion"]


def _key(job: JSON) -> Key:
    return job["metadata"].get("namespace", ""), job["metadata"]["name"]


def _finished(job: JSON) -> bool:
    return any(c.get("type") in (COMPLETE, FAILED) and c.get("status") == "True"
               for c in (job.get("status") or {}).get("conditions") or [])


def _set_condition(status: JSON, kind: str, state: str, reason: str, message: str, now: datetime) -> None:
    """ensureJobConditionStatus: a condition changed in place (its times renewed), or appended."""
    stamp = rfc3339(now)
    conditions: list[JSON] = status.setdefault("conditions", [])
    for condition in conditions:
        if condition.get("type") == kind:
            if condition.get("status") != state or condition.get("reason") != reason:
                condition.update(status=state, reason=reason, message=message, lastProbeTime=stamp,
                                 lastTransitionTime=stamp)
            return
    conditions.append({"type": kind, "status": state, "lastProbeTime": stamp, "lastTransitionTime": stamp,
                       "reason": reason, "message": message})


OMITTED_WHEN_ZERO = frozenset({"active", "succeeded", "failed"})  # (ready and terminating are pointers: kept)


def _same(old: JSON, new: JSON) -> bool:
    """Two statuses equal as stored (Go leaves out the zero counts that are not pointers)."""
    def stored(status: JSON) -> JSON:
        return {key: value for key, value in status.items()
                if value is not None and not (key in OMITTED_WHEN_ZERO and value == 0) and value != ""}

    return stored(old) == stored(new)


def _past_backoff_limit_on_failure(spec: JSON, pods: list[Pod], limit: int) -> bool:
    """pastBackoffLimitOnFailure: with restartPolicy OnFailure, the active pods' container restarts count."""
    template_spec: JSON = (spec.get("template") or {}).get("spec") or {}
    if template_spec.get("restartPolicy") != "OnFailure":
        return False
    restarts = 0
    for pod in pods:
        if pod.phase in ("Running", "Pending"):
            status: JSON = pod.obj().get("status") or {}
            for group in ("initContainerStatuses", "containerStatuses"):
                restarts += sum(int(c.get("restartCount") or 0) for c in status.get(group) or [])
    return restarts > 0 if limit == 0 else restarts >= limit


def _finished_at(pod: Pod) -> datetime | None:
    """When a pod's last container finished (the back-off counts from there)."""
    return _finished_at_json(pod.obj())


def _finished_at_json(pod: JSON) -> datetime | None:
    times = []
    for container in (pod.get("status") or {}).get("containerStatuses") or []:
        finished = ((container.get("state") or {}).get("terminated") or {}).get("finishedAt")
        if finished:
            times.append(parse_rfc3339(finished))
    return max(times) if times else None


def _index(pod: Pod) -> int | None:
    value = pod.labels.get(INDEX_LABEL)
    if value is None or not value.isdigit():
        return None
    return int(value)


def _match(spec: JSON, pod: Pod) -> Match:
    policy = spec.get("podFailurePolicy")
    return match_pod_failure_policy(policy, pod.obj()) if policy else Match()


def _fail_job_message(spec: JSON, pods: list[Pod]) -> str | None:
    """getFailJobMessage: the message of the first failed pod that matches a FailJob rule."""
    if not spec.get("podFailurePolicy"):
        return None
    for pod in pods:
        if pod.phase == "Failed" and (message := _match(spec, pod).message) is not None:
            return message
    return None


def _index_failed(spec: JSON, pod: Pod, match: Match) -> bool:
    """isIndexFailed: a FailIndex rule matched, or a counted failure used up the index's back-off limit."""
    if match.action == FAIL_INDEX:
        return True
    return match.counts and annotation_count(pod.obj(), INDEX_FAILURE_COUNT) >= int(spec["backoffLimitPerIndex"])


def _last_failed_per_index(pods: list[Pod], indexes: set[int]) -> dict[int, JSON]:
    """The pod each new pod of an index replaces: the index's failed pod with the most failures before it."""
    last: dict[int, JSON] = {}
    for pod in pods:
        index = _index(pod)
        if pod.phase != "Failed" or index not in indexes or index is None:
            continue
        obj = pod.obj()
        previous = last.get(index)
        if previous is None or _absolute_failures(obj) >= _absolute_failures(previous):
            last[index] = obj
    return last


def _absolute_failures(pod: JSON) -> int:
    return annotation_count(pod, INDEX_FAILURE_COUNT) + annotation_count(pod, INDEX_IGNORED_FAILURE_COUNT)


def _new_index_failure_counts(spec: JSON, replaced: JSON | None) -> tuple[int, int]:
    """getNewIndexFailureCounts: the failure counts a new pod of an index carries, one more than the pod it
    replaces (in the ignored count when an Ignore rule matched that pod's failure)."""
    if replaced is None:
        return 0, 0
    failures = annotation_count(replaced, INDEX_FAILURE_COUNT)
    ignored = annotation_count(replaced, INDEX_IGNORED_FAILURE_COUNT)
    if match_pod_failure_policy(spec.get("podFailurePolicy"), replaced).counts:
        return failures + 1, ignored
    return failures, ignored + 1
