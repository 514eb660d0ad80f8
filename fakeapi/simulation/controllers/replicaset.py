"""The replicaset controller (replicaset-controller) and the replication controller (replicationcontroller-
controller, the same code over ReplicationControllers), after upstream's pkg/controller/replicaset.

Each sync claims the active pods of the set's namespace (its own, and orphans its selector matches), creates
`<set>-<5 random>` pods from the template when there are too few (at most 500 a sync, in slow-start batches
that stop at the first failure) or deletes the ones upstream's ranking puts first when there are too many
(unscheduled before scheduled, Pending before Unknown before Running, not ready before ready, lower
`controller.kubernetes.io/pod-deletion-cost` first, more of the set's pods on the node first, ready for less
time first, more restarts first, newer first, times compared on a logarithmic scale), with the
SuccessfulCreate/SuccessfulDelete events, and writes `status` (replicas, fullyLabeledReplicas, readyReplicas,
availableReplicas, observedGeneration, the ReplicaFailure condition). A pod becoming ready is looked at again
once minReadySeconds have passed, when it counts as available.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from fakeapi.machinery.clock import parse_rfc3339, rfc3339
from fakeapi.machinery.errors import StatusError
from fakeapi.machinery.labels import LabelSelector
from fakeapi.machinery.types import JSON
from fakeapi.simulation.controllers.context import Context
from fakeapi.simulation.controllers.informers import Informer
from fakeapi.simulation.controllers.podcontrol import (
    PodControl,
    claim_pods,
    controller_ref,
    map_selector,
    pod_from_template,
    selector,
)
from fakeapi.simulation.controllers.pods import PHASE_RANK, Pod

BURST_REPLICAS = 500  # pods created or deleted in one sync
SLOW_START_INITIAL_BATCH = 1
REPLICA_FAILURE = "ReplicaFailure"


@dataclass(frozen=True)
class Flavour:
    """What differs between ReplicaSets and ReplicationControllers."""

    storage_resource: str
    resource: str
    group: str
    kind: str
    service_account: str
    component: str  # the events' source
    selector: Callable[[JSON], LabelSelector | None]


REPLICA_SETS = Flavour("replicasets.apps", "replicasets", "apps", "ReplicaSet", "replicaset-controller",
                       "replicaset-controller", lambda rs: selector((rs.get("spec") or {}).get("selector")))
REPLICATION_CONTROLLERS = Flavour("replicationcontrollers", "replicationcontrollers", "", "ReplicationController",
                                  "replication-controller", "replication-controller",
                                  lambda rc: map_selector((rc.get("spec") or {}).get("selector")))


class ReplicaSetController:
    def __init__(self, context: Context, flavour: Flavour = REPLICA_SETS) -> None:
        self.context = context
        self.flavour = flavour
        self.work = context.work
        self.client = context.client(flavour.service_account)
        self.pod_control = PodControl(self.client, context.recorder(self.client, flavour.component))
        self.sets: Informer[JSON] = context.informers.objects(flavour.storage_resource)
        self.pods = context.informers.pods()
        self.sets.add_handler(self._set_changed)
        self.pods.add_handler(self._pod_changed)

    def start(self) -> None:
        for rs in self.sets.items():
            self._queue(rs)

    def stop(self) -> None:
        pass  # (the to-do list, timers included, is emptied by its owner)

    # ---- what wakes a set up

    def _queue(self, rs: JSON) -> None:
        meta: JSON = rs["metadata"]
        key = (meta.get("namespace", ""), meta["name"])
        self.work.soon((self.flavour.component, key), lambda: self.sync(*key))

    def _queue_after(self, rs: JSON, seconds: float) -> None:
        meta: JSON = rs["metadata"]
        key = (meta.get("namespace", ""), meta["name"])
        self.work.later(seconds, lambda: self.sync(*key))

    def _set_changed(self, old: JSON | None, new: JSON | None) -> None:
        if new is not None:
            self._queue(new)

    def _owner(self, pod: Pod) -> JSON | None:
        """The set that controls the pod (its controller reference names it, uid included)."""
        for ref in pod.owners:
            if ref.get("controller"):
                if ref.get("kind") != self.flavour.kind:
                    return None
                rs = self.sets.get(pod.namespace, str(ref.get("name", "")))
                return rs if rs is not None and rs["metadata"].get("uid") == ref.get("uid") else None
        return None

    def _matching_sets(self, pod: Pod) -> list[JSON]:
        """The sets whose selector matches an orphan pod (that may adopt it)."""
        found = []
        for rs in self.sets.items(pod.namespace):
            match = self.flavour.selector(rs)
            if match is not None and match.matches(pod.labels):
                found.append(rs)
        return found

    def _pod_changed(self, old: Pod | None, new: Pod | None) -> None:
        pod = new if new is not None else old
        assert pod is not None
        owner = self._owner(pod)
        if owner is not None:
            self._queue(owner)
        elif new is not None and not new.controller_uid and not new.deleting:
            for rs in self._matching_sets(new):
                self._queue(rs)
        if old is not None and new is not None:
            if old.controller_uid != new.controller_uid or old.labels != new.labels:
                previous = self._owner(old)
                if previous is not None:
                    self._queue(previous)
            if owner is not None and not old.ready and new.ready:
                min_ready = int((owner.get("spec") or {}).get("minReadySeconds") or 0)
                if min_ready > 0:
                    self._queue_after(owner, min_ready + 1)

    # ---- the sync

    def sync(self, namespace: str, name: str) -> None:
        rs = self.sets.get(namespace, name)
        if rs is None:
            return
        spec: JSON = rs.get("spec") or {}
        match = self.flavour.selector(rs)
        uid = rs["metadata"].get("uid", "")
        candidates = [pod for pod in self.pods.controlled_by(uid) + self.pods.orphans(namespace) if pod.active]
        current = rs
        pods = claim_pods(self.client, rs, match, candidates, lambda: self._still_there(current))
        error: StatusError | None = None
        if not rs["metadata"].get("deletionTimestamp"):
            try:
                self._manage_replicas(rs, pods)
            except StatusError as failed:
                error = failed
        rs = self.sets.get(namespace, name) or rs
        status = self._calculate_status(rs, pods, error)
        rs = self._update_status(rs, status)
        spec = rs.get("spec") or {}
        replicas = int(spec.get("replicas", 1))
        min_ready = int(spec.get("minReadySeconds") or 0)
        if (error is None and min_ready > 0 and status.get("readyReplicas", 0) == replicas
                and status.get("availableReplicas", 0) != replicas):
            self._queue_after(rs, min_ready)
        if error is not None:
            raise error  # the to-do list tries again later

    def _still_there(self, rs: JSON) -> bool:
        """RecheckDeletionTimestamp: adopt only for a set that is current and not being deleted."""
        meta: JSON = rs["metadata"]
        fresh = self.sets.get(meta.get("namespace", ""), meta["name"])
        return (fresh is not None and fresh["metadata"].get("uid") == meta.get("uid")
                and not fresh["metadata"].get("deletionTimestamp"))

    def _manage_replicas(self, rs: JSON, pods: list[Pod]) -> None:
        namespace = rs["metadata"].get("namespace", "")
        wanted = int((rs.get("spec") or {}).get("replicas", 1))
        diff = len(pods) - wanted
        if diff < 0:
            template: JSON = (rs.get("spec") or {}).get("template") or {}
            count = min(-diff, BURST_REPLICAS)
            owner = controller_ref(rs)
            slow_start_batch(count, lambda: self.pod_control.create(
                namespace, pod_from_template(template, rs, owner), rs))
        elif diff > 0:
            count = min(diff, BURST_REPLICAS)
            related = self._related_pods(rs)
            for pod in pods_to_delete(pods, related, count, self.context.now()):
                self.pod_control.delete(namespace, pod.name, rs)

    def _related_pods(self, rs: JSON) -> list[Pod]:
        """getIndirectlyRelatedPods: the pods of every set with the same controller (a Deployment's)."""
        owner_uid = next((str(ref.get("uid")) for ref in rs["metadata"].get("ownerReferences") or []
                          if ref.get("controller")), "")
        if not owner_uid:
            return [pod for pod in self.pods.controlled_by(rs["metadata"].get("uid", ""))]
        related: list[Pod] = []
        for sibling in self.sets.controlled_by(owner_uid):
            related.extend(self.pods.controlled_by(sibling["metadata"].get("uid", "")))
        return related

    def _calculate_status(self, rs: JSON, pods: list[Pod], error: StatusError | None) -> JSON:
        spec: JSON = rs.get("spec") or {}
        status: JSON = dict(rs.get("status") or {})
        template_labels: dict[str, str] = ((spec.get("template") or {}).get("metadata") or {}).get("labels") or {}
        min_ready = int(spec.get("minReadySeconds") or 0)
        now = self.context.now()
        labelled = ready = available = 0
        for pod in pods:
            if all(pod.labels.get(key) == value for key, value in template_labels.items()):
                labelled += 1
            if pod.ready:
                ready += 1
                if pod.available(min_ready, now):
                    available += 1
        conditions: list[JSON] = list(status.get("conditions") or [])
        failure = next((c for c in conditions if c.get("type") == REPLICA_FAILURE), None)
        if error is not None and failure is None:
            diff = len(pods) - int(spec.get("replicas", 1))
            reason = "FailedCreate" if diff < 0 else "FailedDelete" if diff > 0 else ""
            conditions.append({"type": REPLICA_FAILURE, "status": "True", "lastTransitionTime": rfc3339(now),
                               "reason": reason, "message": error.message})
        elif error is None and failure is not None:
            conditions = [c for c in conditions if c.get("type") != REPLICA_FAILURE]
        status.update(replicas=len(pods), fullyLabeledReplicas=labelled, readyReplicas=ready,
                      availableReplicas=available)
        if conditions:
            status["conditions"] = conditions
        else:
            status.pop("conditions", None)
        return status

    def _update_status(self, rs: JSON, status: JSON) -> JSON:
        """updateReplicaSetStatus: write the status (and the generation it saw) unless nothing changed."""
        meta: JSON = rs["metadata"]
        old: JSON = rs.get("status") or {}
        generation = meta.get("generation", 0)
        if (all(old.get(field, 0) == status.get(field, 0)
                for field in ("replicas", "fullyLabeledReplicas", "readyReplicas", "availableReplicas"))
                and old.get("observedGeneration", 0) == generation
                and (old.get("conditions") or []) == (status.get("conditions") or [])):
            return rs
        status = {**status, "observedGeneration": generation}
        return self.client.update(self.flavour.resource, meta.get("namespace", ""), meta["name"],
                                  {**rs, "status": status}, subresource="status",
                                  group=self.flavour.group)


def slow_start_batch(count: int, create: Callable[[], object]) -> int:
    """Call `create` `count` times in batches of 1, 2, 4...; stop after a batch with a failure (raised)."""
    done = 0
    batch = min(count, SLOW_START_INITIAL_BATCH)
    while batch > 0:
        failure: StatusError | None = None
        for _ in range(batch):
            try:
                create()
                done += 1
            except StatusError as error:
                failure = failure or error
        if failure is not None:
            raise failure
        count -= batch
        batch = min(2 * batch, count)
    return done


def pods_to_delete(pods: list[Pod], related: list[Pod], count: int, now: datetime) -> list[Pod]:
    """getPodsToDelete: the first `count` pods in upstream's order of preference for deletion."""
    if count >= len(pods):
        return pods[:count]
    on_node: dict[str, int] = {}
    for pod in related:
        if pod.active:
            on_node[pod.node] = on_node.get(pod.node, 0) + 1
    def compare(a: Pod, b: Pod) -> int:
        return _compare(a, b, on_node, now)

    ranked = sorted(pods, key=functools.cmp_to_key(compare))
    return ranked[:count]


def _compare(a: Pod, b: Pod, on_node: dict[str, int], now: datetime) -> int:
    """ActivePodsWithRanks.Less as a comparison: negative when `a` goes first."""
    if a.node != b.node and (not a.node or not b.node):
        return -1 if not a.node else 1
    phase_a, phase_b = PHASE_RANK.get(a.phase, 0), PHASE_RANK.get(b.phase, 0)
    if phase_a != phase_b:
        return -1 if phase_a < phase_b else 1
    if a.ready != b.ready:
        return -1 if not a.ready else 1
    if a.deletion_cost != b.deletion_cost:
        return -1 if a.deletion_cost < b.deletion_cost else 1
    rank_a, rank_b = on_node.get(a.node, 0), on_node.get(b.node, 0)
    if rank_a != rank_b:
        return -1 if rank_a > rank_b else 1
    if a.ready and b.ready and a.ready_since != b.ready_since:
        order = _newer_first(a.ready_since, b.ready_since, a.uid, b.uid, now)
        if order:
            return order
    if a.restarts != b.restarts:
        return -1 if a.restarts > b.restarts else 1
    if a.created != b.created:
        return _newer_first(a.created, b.created, a.uid, b.uid, now)
    return 0


def _newer_first(time_a: str, time_b: str, uid_a: str, uid_b: str, now: datetime) -> int:
    """Empty first, then the more recent, compared on a logarithmic scale of their age (LogarithmicScaleDown):
    times in the same power of two of nanoseconds ago are equal, and their uids decide."""
    if not time_a or not time_b:
        return -1 if not time_a else 1
    rank = _log_rank(time_a, now) - _log_rank(time_b, now)
    if rank == 0:
        return -1 if uid_a < uid_b else 1
    return -1 if rank < 0 else 1


def _log_rank(time: str, now: datetime) -> int:
    nanoseconds = (now - parse_rfc3339(time)).total_seconds() * 1e9
    return int(math.log2(nanoseconds)) if nanoseconds > 0 else -1
