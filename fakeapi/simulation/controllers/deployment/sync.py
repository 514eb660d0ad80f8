"""One sync of one Deployment (upstream's sync.go, rolling.go, recreate.go and progress.go): finding or making
its new ReplicaSet, scaling its sets for a rollout or a scaling event, and its status and conditions."""

from __future__ import annotations

import copy
from typing import Protocol

from fakeapi.machinery.errors import AlreadyExists, NotFound, StatusError
from fakeapi.machinery.types import JSON
from fakeapi.simulation.client import Client
from fakeapi.simulation.controllers.context import Context
from fakeapi.simulation.controllers.deployment import util
from fakeapi.simulation.controllers.deployment.util import (
    AVAILABLE,
    PROGRESSING,
    REPLICA_FAILURE,
    active,
    by_creation,
    replicas,
    status_of,
)
from fakeapi.simulation.controllers.informers import Informer
from fakeapi.simulation.controllers.podcontrol import NAMESPACE_TERMINATING_CAUSE, controller_ref, reference
from fakeapi.simulation.controllers.pods import Pod
from fakeapi.simulation.events import EventRecorder


class Controller(Protocol):
    """What a sync uses of the deployment controller."""

    context: Context
    client: Client
    events: EventRecorder
    sets: Informer[JSON]

    def requeue_stuck(self, deployment: JSON, status: JSON) -> None: ...


class DeploymentSync:
    def __init__(self, controller: Controller, deployment: JSON, sets: list[JSON]) -> None:
        self.controller = controller
        self.client = controller.client
        self.d = deployment  # a copy: its status and annotations are written as the sync goes
        self.sets = sets
        self.namespace = deployment["metadata"].get("namespace", "")
        self.name = deployment["metadata"]["name"]

    # ---- the replica sets

    def new_and_old(self, create: bool) -> tuple[JSON | None, list[JSON]]:
        """getAllReplicaSetsAndSyncRevision: the new set (made if `create` and missing) and the old ones."""
        template = (self.d.get("spec") or {}).get("template") or {}
        new = next((rs for rs in by_creation(self.sets)
                    if util.equal_ignoring_hash((rs.get("spec") or {}).get("template") or {}, template)), None)
        old = [rs for rs in self.sets if new is None or rs["metadata"]["uid"] != new["metadata"]["uid"]]
        return self._new_replica_set(new, old, create), old

    def _new_replica_set(self, existing: JSON | None, old: list[JSON], create: bool) -> JSON | None:
        """getNewReplicaSet."""
        new_revision = str(util.max_revision(old) + 1)
        now = self.controller.context.now()
        if existing is not None:
            found = copy.deepcopy(existing)
            annotations_updated = util.set_new_replica_set_annotations(self.d, found, new_revision, True)
            min_ready = (self.d.get("spec") or {}).get("minReadySeconds") or 0
            if annotations_updated or ((found.get("spec") or {}).get("minReadySeconds") or 0) != min_ready:
                found["spec"]["minReadySeconds"] = min_ready
                return self._update_set(found)
            needs_update = util.set_deployment_revision(self.d, util.annotations_of(found).get(util.REVISION, ""))
            status = self.d.setdefault("status", {})
            if util.has_progress_deadline(self.d) and util.condition(status, PROGRESSING) is None:
                util.set_condition(status, util.new_condition(
                    PROGRESSING, "True", util.FOUND_NEW_RS, f'Found new replica set "{found["metadata"]["name"]}"',
                    now))
                needs_update = True
            if needs_update:
                self.update_status()
            return found
        if not create:
            return None
        spec: JSON = self.d.get("spec") or {}
        template = copy.deepcopy(spec.get("template") or {})
        collisions = (self.d.get("status") or {}).get("collisionCount")
        hashed = util.template_hash(template, collisions)
        template.setdefault("metadata", {})["labels"] = {**(template["metadata"].get("labels") or {}),
                                                         util.HASH_LABEL: hashed}
        selector = copy.deepcopy(spec.get("selector") or {})
        selector["matchLabels"] = {**(selector.get("matchLabels") or {}), util.HASH_LABEL: hashed}
        rs: JSON = {
            "apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": f"{self.name}-{hashed}", "namespace": self.namespace,
                         "ownerReferences": [controller_ref(self.d)], "labels": dict(template["metadata"]["labels"])},
            "spec": {"replicas": 0, "minReadySeconds": spec.get("minReadySeconds") or 0, "selector": selector,
                     "template": template},
        }
        count = self._new_set_replicas([*old, rs], rs)
        rs["spec"]["replicas"] = count
        util.set_new_replica_set_annotations(self.d, rs, new_revision, False)
        already = False
        try:
            created = self.client.create("replicasets", self.namespace, rs, group="apps")
        except AlreadyExists:
            already = True
            clash = self.controller.sets.get(self.namespace, rs["metadata"]["name"])
            if clash is None:
                raise
            owner = next((ref for ref in clash["metadata"].get("ownerReferences") or [] if ref.get("controller")),
                         None)
            if not (owner is not None and owner.get("uid") == self.d["metadata"]["uid"]
                    and util.equal_ignoring_hash(clash["spec"]["template"], spec.get("template") or {})):
                # a hash collision: count it, so the next sync hashes differently
                status = self.d.setdefault("status", {})
                status["collisionCount"] = int(status.get("collisionCount") or 0) + 1
                self.update_status()
                raise
            created = clash
        except StatusError as error:
            if any(cause.get("reason") == NAMESPACE_TERMINATING_CAUSE
                   for cause in (error.details or {}).get("causes") or []):
                raise
            message = f'Failed to create new replica set "{rs["metadata"]["name"]}": {error.message}'
            if util.has_progress_deadline(self.d):
                util.set_condition(self.d.setdefault("status", {}), util.new_condition(
                    PROGRESSING, "False", util.FAILED_RS_CREATE, message, now))
                try:
                    self.update_status()
                except StatusError:
                    pass
            self.controller.events.warning(reference(self.d), util.FAILED_RS_CREATE, message)
            raise
        self.sets.append(created)
        if not already and count > 0:
            self.controller.events.normal(reference(self.d), "ScalingReplicaSet",
                                          f"Scaled up replica set {created['metadata']['name']} from 0 to {count}")
        needs_update = util.set_deployment_revision(self.d, new_revision)
        if not already and util.has_progress_deadline(self.d):
            util.set_condition(self.d.setdefault("status", {}), util.new_condition(
                PROGRESSING, "True", util.NEW_REPLICA_SET, f'Created new replica set "{created["metadata"]["name"]}"',
                now))
            needs_update = True
        if needs_update:
            self.update_status()
        return created

    def _new_set_replicas(self, sets: list[JSON], new: JSON) -> int:
        """NewRSNewReplicas: how far the new set may grow now."""
        wanted = replicas(self.d)
        if not util.rolling(self.d):
            return wanted
        surge = util.max_surge(self.d)
        current = sum(replicas(rs) for rs in sets)
        if current >= wanted + surge:
            return replicas(new)
        return replicas(new) + min(wanted + surge - current, wanted - replicas(new))

    def _update_set(self, rs: JSON) -> JSON:
        meta: JSON = rs["metadata"]
        updated = self.client.update("replicasets", meta.get("namespace", ""), meta["name"], rs, group="apps")
        self.sets = [updated if s["metadata"]["uid"] == updated["metadata"]["uid"] else s for s in self.sets]
        return updated

    def scale_set(self, rs: JSON, new_scale: int, operation: str = "") -> tuple[bool, JSON]:
        """scaleReplicaSet (and AndRecordEvent when no operation is given): the set's size and replicas
        annotations, with a ScalingReplicaSet event when the size changed."""
        old_scale = replicas(rs)
        if not operation:
            if old_scale == new_scale:
                return False, rs
            operation = "up" if old_scale < new_scale else "down"
        wanted = replicas(self.d)
        maximum = wanted + util.max_surge(self.d)
        size_changed = old_scale != new_scale
        if not size_changed and not util.replicas_annotations_need_update(rs, wanted, maximum):
            return False, rs
        copied = copy.deepcopy(rs)
        copied["spec"]["replicas"] = new_scale
        util.set_replicas_annotations(copied, wanted, maximum)
        updated = self._update_set(copied)
        if size_changed:
            self.controller.events.normal(reference(self.d), "ScalingReplicaSet",
                                          f"Scaled {operation} replica set {updated['metadata']['name']} from "
                                          f"{old_scale} to {new_scale}")
        return size_changed, updated

    # ---- scaling events and paused deployments (sync.go)

    def is_scaling_event(self) -> bool:
        new, old = self.new_and_old(False)
        for rs in active([*old, new]):
            desired = util.annotations_of(rs).get(util.DESIRED_REPLICAS)
            if desired is not None and desired.lstrip("-").isdigit() and int(desired) != replicas(self.d):
                return True
        return False

    def sync(self) -> None:
        """Scale for a scaling event or a paused Deployment, then the status."""
        new, old = self.new_and_old(False)
        self.scale(new, old)
        if (self.d.get("spec") or {}).get("paused") and not util.annotations_of(self.d).get(util.ROLLBACK_TO):
            self.cleanup(old)
        self.sync_status([*old, new], new)

    def scale(self, new: JSON | None, old: list[JSON]) -> None:
        """Proportional scaling: the one active set gets every replica; a saturated new set empties the old
        ones; otherwise the replicas to add or remove are spread over the active sets by their share."""
        wanted = replicas(self.d)
        latest = _active_or_latest(new, old)
        if latest is not None:
            if replicas(latest) != wanted:
                self.scale_set(latest, wanted)
            return
        if _saturated(self.d, new):
            for rs in active(old):
                self.scale_set(self._current(rs), 0)
            return
        if not util.rolling(self.d):
            return
        sets = active([*old, new])
        total = sum(replicas(rs) for rs in sets)
        allowed = wanted + util.max_surge(self.d) if wanted > 0 else 0
        to_add = allowed - total
        operation = ""
        if to_add > 0:  # ReplicaSetsBySizeNewer: larger first, newer first among equals
            sets = sorted(by_creation(sets)[::-1], key=lambda rs: -replicas(rs))
            operation = "up"
        elif to_add < 0:  # ReplicaSetsBySizeOlder: larger first, older first among equals
            sets = sorted(by_creation(sets), key=lambda rs: -replicas(rs))
            operation = "down"
        added = 0
        sizes: dict[str, int] = {}
        for rs in sets:
            if to_add != 0:
                share = _proportion(rs, self.d, to_add, added)
                sizes[rs["metadata"]["name"]] = replicas(rs) + share
                added += share
            else:
                sizes[rs["metadata"]["name"]] = replicas(rs)
        for index, rs in enumerate(sets):
            name = rs["metadata"]["name"]
            if index == 0 and to_add != 0:
                sizes[name] = max(0, sizes[name] + to_add - added)
            self.scale_set(self._current(rs), sizes[name], operation)

    def _current(self, rs: JSON) -> JSON:
        return next((s for s in self.sets if s["metadata"]["uid"] == rs["metadata"]["uid"]), rs)

    def cleanup(self, old: list[JSON]) -> None:
        """cleanupDeployment: delete the oldest empty sets beyond revisionHistoryLimit."""
        limit = (self.d.get("spec") or {}).get("revisionHistoryLimit")
        if limit is None or limit == util.MAX_INT32:
            return
        alive = [rs for rs in old if not rs["metadata"].get("deletionTimestamp")]
        diff = len(alive) - int(limit)
        if diff <= 0:
            return
        alive.sort(key=lambda rs: (util.revision(rs), util.created(rs), rs["metadata"]["name"]))
        for rs in alive[:diff]:
            rs = self._current(rs)
            if (status_of(rs, "replicas") != 0 or replicas(rs) != 0
                    or int(rs["metadata"].get("generation") or 0) > status_of(rs, "observedGeneration")):
                continue
            try:
                self.client.delete("replicasets", self.namespace, rs["metadata"]["name"], group="apps")
            except NotFound:
                pass

    # ---- rollouts (rolling.go, recreate.go)

    def rollout_rolling(self) -> None:
        new, old = self.new_and_old(True)
        assert new is not None
        sets = [*old, new]
        if self._reconcile_new(sets, new):
            self.sync_rollout_status(self._all(old, new), self._current(new))
            return
        if self._reconcile_old(active([self._current(rs) for rs in old]), self._current(new)):
            self.sync_rollout_status(self._all(old, new), self._current(new))
            return
        if util.complete(self.d, self.d.get("status") or {}):
            self.cleanup(old)
        self.sync_rollout_status(self._all(old, new), self._current(new))

    def _all(self, old: list[JSON], new: JSON | None) -> list[JSON | None]:
        return [*(self._current(rs) for rs in old), None if new is None else self._current(new)]

    def _reconcile_new(self, sets: list[JSON], new: JSON) -> bool:
        wanted = replicas(self.d)
        if replicas(new) == wanted:
            return False
        if replicas(new) > wanted:
            return self.scale_set(new, wanted)[0]
        return self.scale_set(new, self._new_set_replicas(sets, new))[0]

    def _reconcile_old(self, old: list[JSON], new: JSON) -> bool:
        old_pods = sum(replicas(rs) for rs in old)
        if old_pods == 0:
            return False
        all_pods = old_pods + replicas(new)
        min_available = replicas(self.d) - util.max_unavailable(self.d)
        new_unavailable = replicas(new) - status_of(new, "availableReplicas")
        max_scaled_down = all_pods - min_available - new_unavailable
        if max_scaled_down <= 0:
            return False
        old, cleaned = self._cleanup_unhealthy(old, max_scaled_down)
        scaled = self._scale_down_old_for_rolling([*old, self._current(new)], old)
        return cleaned + scaled > 0

    def _cleanup_unhealthy(self, old: list[JSON], limit: int) -> tuple[list[JSON], int]:
        """cleanupUnhealthyReplicas: scale old sets down by their unavailable replicas first."""
        old = by_creation(old)
        total = 0
        for index, rs in enumerate(old):
            if total >= limit:
                break
            if replicas(rs) == 0 or replicas(rs) == status_of(rs, "availableReplicas"):
                continue
            count = min(limit - total, replicas(rs) - status_of(rs, "availableReplicas"))
            _scaled, old[index] = self.scale_set(rs, replicas(rs) - count)
            total += count
        return old, total

    def _scale_down_old_for_rolling(self, sets: list[JSON], old: list[JSON]) -> int:
        min_available = replicas(self.d) - util.max_unavailable(self.d)
        available = sum(status_of(rs, "availableReplicas") for rs in sets)
        if available <= min_available:
            return 0
        total, target = 0, available - min_available
        for rs in by_creation(old):
            if total >= target:
                break
            if replicas(rs) == 0:
                continue
            count = min(replicas(rs), target - total)
            self.scale_set(self._current(rs), replicas(rs) - count)
            total += count
        return total

    def rollout_recreate(self, pods_by_set: dict[str, list[Pod]]) -> None:
        new, old = self.new_and_old(False)
        scaled = False
        for rs in active(old):
            changed, _rs = self.scale_set(self._current(rs), 0)
            scaled = scaled or changed
        if scaled:
            self.sync_rollout_status(self._all(old, new), None if new is None else self._current(new))
            return
        if _old_pods_running(new, [self._current(rs) for rs in old], pods_by_set):
            self.sync_rollout_status(self._all(old, new), None if new is None else self._current(new))
            return
        if new is None:
            new, old = self.new_and_old(True)
        assert new is not None
        self.scale_set(self._current(new), replicas(self.d))
        if util.complete(self.d, self.d.get("status") or {}):
            self.cleanup(old)
        self.sync_rollout_status(self._all(old, new), self._current(new))

    # ---- status (sync.go calculateStatus, progress.go)

    def calculate_status(self, sets: list[JSON | None], new: JSON | None) -> JSON:
        present = [rs for rs in sets if rs is not None]
        available = sum(status_of(rs, "availableReplicas") for rs in present)
        total = sum(replicas(rs) for rs in present)
        old_status: JSON = self.d.get("status") or {}
        status: JSON = {
            "observedGeneration": int(self.d["metadata"].get("generation") or 0),
            "replicas": sum(status_of(rs, "replicas") for rs in present),
            "updatedReplicas": status_of(new, "replicas") if new is not None else 0,
            "readyReplicas": sum(status_of(rs, "readyReplicas") for rs in present),
            "availableReplicas": available,
            "unavailableReplicas": max(0, total - available),
        }
        if old_status.get("collisionCount") is not None:
            status["collisionCount"] = old_status["collisionCount"]
        if old_status.get("conditions"):
            status["conditions"] = [dict(c) for c in old_status["conditions"]]
        now = self.controller.context.now()
        if available >= replicas(self.d) - util.max_unavailable(self.d):
            util.set_condition(status, util.new_condition(AVAILABLE, "True", util.MINIMUM_AVAILABLE,
                                                          "Deployment has minimum availability.", now))
        else:
            util.set_condition(status, util.new_condition(AVAILABLE, "False", util.MINIMUM_UNAVAILABLE,
                                                          "Deployment does not have minimum availability.", now))
        return status

    def sync_status(self, sets: list[JSON | None], new: JSON | None) -> None:
        """syncDeploymentStatus."""
        status = self.calculate_status(sets, new)
        if _same_status(self.d.get("status") or {}, status):
            return
        self.d["status"] = status
        self.update_status()

    def sync_rollout_status(self, sets: list[JSON | None], new: JSON | None) -> None:
        """syncRolloutStatus: the status, the Progressing condition (progress, completion or a passed
        deadline) and the replica sets' ReplicaFailure; a stuck rollout is looked at again at its deadline."""
        status = self.calculate_status(sets, new)
        now = self.controller.context.now()
        if not util.has_progress_deadline(self.d):
            util.remove_condition(status, PROGRESSING)
        old_status: JSON = self.d.get("status") or {}
        current = util.condition(old_status, PROGRESSING)
        finished = (status["replicas"] == status["updatedReplicas"] and current is not None
                    and current.get("reason") == util.NEW_RS_AVAILABLE)
        if util.has_progress_deadline(self.d) and not finished:
            subject = (f'ReplicaSet "{new["metadata"]["name"]}"' if new is not None
                       else f'Deployment "{self.name}"')
            if util.complete(self.d, status):
                util.set_condition(status, util.new_condition(
                    PROGRESSING, "True", util.NEW_RS_AVAILABLE, f"{subject} has successfully progressed.", now))
            elif util.progressing(self.d, status):
                progress = util.new_condition(PROGRESSING, "True", util.REPLICA_SET_UPDATED,
                                              f"{subject} is progressing.", now)
                if current is not None:
                    if current.get("status") == "True":
                        progress["lastTransitionTime"] = current.get("lastTransitionTime")
                    util.remove_condition(status, PROGRESSING)
                util.set_condition(status, progress)
            elif util.timed_out(self.d, status, now):
                util.set_condition(status, util.new_condition(
                    PROGRESSING, "False", util.TIMED_OUT, f"{subject} has timed out progressing.", now))
        failures = _replica_failures(sets, new)
        if failures:
            util.set_condition(status, failures[0])
        else:
            util.remove_condition(status, REPLICA_FAILURE)
        if _same_status(old_status, status):
            self.controller.requeue_stuck(self.d, status)
            return
        self.d["status"] = status
        self.update_status()

    def update_status(self) -> None:
        updated = self.client.update("deployments", self.namespace, self.name, self.d, subresource="status",
                                     group="apps")
        self.d["metadata"]["resourceVersion"] = updated["metadata"]["resourceVersion"]


def _same_status(old: JSON, new: JSON) -> bool:
    """reflect.DeepEqual of two statuses as stored (zero counts are left out)."""
    return {k: v for k, v in old.items() if v not in (0, None)} == {k: v for k, v in new.items() if v not in (0, None)}


def _active_or_latest(new: JSON | None, old: list[JSON]) -> JSON | None:
    """FindActiveOrLatest: the only active set; with none, the new set or the newest old one."""
    if new is None and not old:
        return None
    newest_first = sorted(old, key=lambda rs: (util.created(rs), rs["metadata"]["name"]), reverse=True)
    sets = active([*newest_first, new])
    if not sets:
        return new if new is not None else newest_first[0]
    return sets[0] if len(sets) == 1 else None


def _saturated(deployment: JSON, rs: JSON | None) -> bool:
    """IsSaturated: the new set has every replica, wanted and available."""
    if rs is None:
        return False
    desired = util.annotations_of(rs).get(util.DESIRED_REPLICAS, "")
    if not desired.lstrip("-").isdigit():
        return False
    wanted = replicas(deployment)
    return replicas(rs) == wanted and int(desired) == wanted and status_of(rs, "availableReplicas") == wanted


def _proportion(rs: JSON, deployment: JSON, to_add: int, added: int) -> int:
    """GetProportion: the set's share of the replicas to add (or remove), within what is left to add."""
    if replicas(rs) == 0 or to_add == 0 or to_add == added:
        return 0
    fraction = _fraction(rs, deployment)
    allowed = to_add - added
    return min(fraction, allowed) if to_add > 0 else max(fraction, allowed)


def _fraction(rs: JSON, deployment: JSON) -> int:
    wanted = replicas(deployment)
    if wanted == 0:
        return -replicas(rs)
    deployment_replicas = wanted + util.max_surge(deployment)
    annotated = util.annotations_of(rs).get(util.MAX_REPLICAS, "")
    maximum = int(annotated) if annotated.lstrip("-").isdigit() else status_of(deployment, "replicas")
    if maximum == 0:
        return 0
    size = replicas(rs) * deployment_replicas / maximum
    return int(size + 0.5 if size >= 0 else size - 0.5) - replicas(rs)


def _old_pods_running(new: JSON | None, old: list[JSON], pods_by_set: dict[str, list[Pod]]) -> bool:
    """oldPodsRunning: an old set counts replicas, or one of its pods has not finished."""
    if sum(status_of(rs, "replicas") for rs in old) > 0:
        return True
    new_uid = new["metadata"]["uid"] if new is not None else None
    return any(not pod.terminal for uid, pods in pods_by_set.items() if uid != new_uid for pod in pods)


def _replica_failures(sets: list[JSON | None], new: JSON | None) -> list[JSON]:
    """getReplicaFailures: the new set's ReplicaFailure condition, else an old one's, as Deployment conditions."""
    def failures(rs: JSON) -> list[JSON]:
        return [{"type": REPLICA_FAILURE, "status": c.get("status"), "lastUpdateTime": c.get("lastTransitionTime"),
                 "lastTransitionTime": c.get("lastTransitionTime"), "reason": c.get("reason"),
                 "message": c.get("message")}
                for c in (rs.get("status") or {}).get("conditions") or [] if c.get("type") == REPLICA_FAILURE]

    if new is not None and failures(new):
        return failures(new)
    return [failure for rs in sets if rs is not None for failure in failures(rs)]
