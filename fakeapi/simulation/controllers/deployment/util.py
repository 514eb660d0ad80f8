"""Upstream's deployment utilities (pkg/controller/deployment/util): the replica set annotations, revisions,
maxSurge and maxUnavailable, the pod-template-hash, and the Deployment's conditions."""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence
from datetime import datetime

import orjson

from fakeapi.machinery.clock import parse_rfc3339, rfc3339
from fakeapi.machinery.types import JSON

REVISION = "deployment.kubernetes.io/revision"
REVISION_HISTORY = "deployment.kubernetes.io/revision-history"
DESIRED_REPLICAS = "deployment.kubernetes.io/desired-replicas"
MAX_REPLICAS = "deployment.kubernetes.io/max-replicas"
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
ROLLBACK_TO = "deprecated.deployment.rollback.to"
HASH_LABEL = "pod-template-hash"
ANNOTATIONS_NOT_COPIED = frozenset({LAST_APPLIED, REVISION, REVISION_HISTORY, DESIRED_REPLICAS, MAX_REPLICAS,
                                    ROLLBACK_TO})
MAX_REVISION_HISTORY_CHARS = 2000
MAX_INT32 = 2**31 - 1

# condition reasons
REPLICA_SET_UPDATED = "ReplicaSetUpdated"
FAILED_RS_CREATE = "ReplicaSetCreateError"
NEW_REPLICA_SET = "NewReplicaSetCreated"
FOUND_NEW_RS = "FoundNewReplicaSet"
NEW_RS_AVAILABLE = "NewReplicaSetAvailable"
TIMED_OUT = "ProgressDeadlineExceeded"
PAUSED = "DeploymentPaused"
RESUMED = "DeploymentResumed"
MINIMUM_AVAILABLE = "MinimumReplicasAvailable"
MINIMUM_UNAVAILABLE = "MinimumReplicasUnavailable"
PROGRESSING, AVAILABLE, REPLICA_FAILURE = "Progressing", "Available", "ReplicaFailure"

_SAFE_ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"  # k8s.io/apimachinery's rand.SafeEncodeString


def replicas(obj: JSON) -> int:
    """spec.replicas, 1 when unset (the defaulting of every kind with replicas)."""
    value = (obj.get("spec") or {}).get("replicas")
    return 1 if value is None else int(value)


def status_of(obj: JSON, field: str) -> int:
    return int((obj.get("status") or {}).get(field) or 0)


def annotations_of(obj: JSON) -> dict[str, str]:
    annotated: dict[str, str] = (obj.get("metadata") or {}).get("annotations") or {}
    return annotated


def created(obj: JSON) -> str:
    return str(obj["metadata"].get("creationTimestamp") or "")


def by_creation(sets: list[JSON]) -> list[JSON]:
    """controller.ReplicaSetsByCreationTimestamp: oldest first, then by name."""
    return sorted(sets, key=lambda rs: (created(rs), rs["metadata"]["name"]))


def active(sets: Sequence[JSON | None]) -> list[JSON]:
    """controller.FilterActiveReplicaSets: those with replicas wanted."""
    return [rs for rs in sets if rs is not None and replicas(rs) > 0]


# ---- the pod-template-hash


def template_hash(template: JSON, collision_count: int | None) -> str:
    """controller.ComputeHash: a 32-bit FNV-1a hash of the template (and the collision count), written with
    the alphabet of rand.SafeEncodeString. Upstream hashes the Go struct's printout; this hashes the stored
    JSON, so the values differ from a real cluster's, with the same form and stability."""
    data = orjson.dumps(template, option=orjson.OPT_SORT_KEYS)
    if collision_count is not None:
        data += collision_count.to_bytes(8, "little", signed=False)
    digest = str(_fnv1a_32(data))
    return "".join(_SAFE_ALPHANUMS[ord(char) % len(_SAFE_ALPHANUMS)] for char in digest)


def _fnv1a_32(data: bytes) -> int:
    value = 0x811C9DC5
    for byte in data:
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return value


def equal_ignoring_hash(template_a: JSON, template_b: JSON) -> bool:
    """EqualIgnoreHash: the same pod template but for the pod-template-hash label."""
    return _without_hash(template_a) == _without_hash(template_b)


def _without_hash(template: JSON) -> JSON:
    labels = (template.get("metadata") or {}).get("labels") or {}
    if HASH_LABEL not in labels:
        return template
    stripped = copy.copy(template)
    meta = dict(template["metadata"])
    meta["labels"] = {key: value for key, value in labels.items() if key != HASH_LABEL}
    if not meta["labels"]:
        del meta["labels"]
    stripped["metadata"] = meta
    return stripped


# ---- maxSurge and maxUnavailable


def int_or_percent(value: object, total: int, round_up: bool) -> int:
    """intstr.GetScaledValueFromIntOrPercent."""
    if isinstance(value, int):
        return value
    text = str(value)
    if text.endswith("%"):
        try:
            percent = int(text[:-1])
        except ValueError:
            return 0
        scaled = percent * total / 100
        return math.ceil(scaled) if round_up else math.floor(scaled)
    try:
        return int(text)
    except ValueError:
        return 0


def rolling(deployment: JSON) -> bool:
    strategy: JSON = (deployment.get("spec") or {}).get("strategy") or {}
    return bool(strategy.get("type", "RollingUpdate") == "RollingUpdate")


def fenceposts(deployment: JSON) -> tuple[int, int]:
    """ResolveFenceposts: (maxSurge, maxUnavailable) in pods; both 0 makes maxUnavailable 1."""
    update: JSON = ((deployment.get("spec") or {}).get("strategy") or {}).get("rollingUpdate") or {}
    wanted = replicas(deployment)
    surge = int_or_percent(update.get("maxSurge", 0), wanted, True)
    unavailable = int_or_percent(update.get("maxUnavailable", 0), wanted, False)
    if surge == 0 and unavailable == 0:
        unavailable = 1
    return surge, unavailable


def max_surge(deployment: JSON) -> int:
    return fenceposts(deployment)[0] if rolling(deployment) else 0


def max_unavailable(deployment: JSON) -> int:
    if not rolling(deployment) or replicas(deployment) == 0:
        return 0
    return min(fenceposts(deployment)[1], replicas(deployment))


# ---- revisions and annotations


def revision(obj: JSON) -> int:
    try:
        return int(annotations_of(obj).get(REVISION, "0"))
    except ValueError:
        return 0


def max_revision(sets: list[JSON]) -> int:
    return max((revision(rs) for rs in sets), default=0)


def set_replicas_annotations(rs: JSON, desired: int, maximum: int) -> bool:
    annotated = rs["metadata"].setdefault("annotations", {})
    updated = False
    for key, value in ((DESIRED_REPLICAS, str(desired)), (MAX_REPLICAS, str(maximum))):
        if annotated.get(key) != value:
            annotated[key] = value
            updated = True
    return updated


def replicas_annotations_need_update(rs: JSON, desired: int, maximum: int) -> bool:
    annotated = annotations_of(rs)
    return annotated.get(DESIRED_REPLICAS) != str(desired) or annotated.get(MAX_REPLICAS) != str(maximum)


def set_new_replica_set_annotations(deployment: JSON, rs: JSON, new_revision: str, exists: bool) -> bool:
    """SetNewReplicaSetAnnotations: the Deployment's annotations (but its own), the revision (with the history
    of the revisions it had when it is an older template come back), and the replicas annotations of a new
    set."""
    changed = _copy_annotations(deployment, rs)
    annotated: dict[str, str] = rs["metadata"].setdefault("annotations", {})
    old_revision = annotated.get(REVISION)
    try:
        old_number = int(old_revision) if old_revision else 0
    except ValueError:
        return False
    rolled_back = old_revision is not None and old_number < int(new_revision)
    if old_number < int(new_revision):
        annotated[REVISION] = new_revision
        changed = True
    if rolled_back:  # an older template in use again: its earlier revisions are kept as history
        history = annotated.get(REVISION_HISTORY, "")
        revisions = history.split(",") if history else []
        while revisions and len(",".join([*revisions, str(old_revision)])) > MAX_REVISION_HISTORY_CHARS:
            revisions.pop(0)
        annotated[REVISION_HISTORY] = ",".join([*revisions, str(old_revision)])
    wanted = replicas(deployment)
    if not exists and set_replicas_annotations(rs, wanted, wanted + max_surge(deployment)):
        changed = True
    return changed


def _copy_annotations(deployment: JSON, rs: JSON) -> bool:
    annotated: dict[str, str] = rs["metadata"].setdefault("annotations", {})
    changed = False
    for key, value in annotations_of(deployment).items():
        if key in ANNOTATIONS_NOT_COPIED or annotated.get(key) == value:
            continue
        annotated[key] = value
        changed = True
    return changed


def set_deployment_revision(deployment: JSON, revision_text: str) -> bool:
    annotated: dict[str, str] = deployment["metadata"].setdefault("annotations", {})
    if annotated.get(REVISION) == revision_text:
        return False
    annotated[REVISION] = revision_text
    return True


def deployment_annotations_from(deployment: JSON, rs: JSON) -> None:
    """SetDeploymentAnnotationsTo: the Deployment keeps its own annotations and takes the set's others."""
    kept = {key: value for key, value in annotations_of(deployment).items() if key in ANNOTATIONS_NOT_COPIED}
    for key, value in annotations_of(rs).items():
        if key not in ANNOTATIONS_NOT_COPIED:
            kept[key] = value
    deployment["metadata"]["annotations"] = kept


# ---- conditions


def condition(status: JSON, kind: str) -> JSON | None:
    return next((c for c in status.get("conditions") or [] if c.get("type") == kind), None)


def new_condition(kind: str, state: str, reason: str, message: str, now: datetime) -> JSON:
    stamp = rfc3339(now)
    return {"type": kind, "status": state, "lastUpdateTime": stamp, "lastTransitionTime": stamp, "reason": reason,
            "message": message}


def set_condition(status: JSON, new: JSON) -> None:
    """SetDeploymentCondition: unchanged when the status and reason are; the transition time kept when only
    the reason changes; the condition goes last."""
    current = condition(status, new["type"])
    if current is not None and current.get("status") == new["status"] and current.get("reason") == new["reason"]:
        return
    if current is not None and current.get("status") == new["status"]:
        new = {**new, "lastTransitionTime": current.get("lastTransitionTime")}
    remove_condition(status, new["type"])
    status.setdefault("conditions", []).append(new)


def remove_condition(status: JSON, kind: str) -> None:
    kept = [c for c in status.get("conditions") or [] if c.get("type") != kind]
    if kept:
        status["conditions"] = kept
    else:
        status.pop("conditions", None)


def has_progress_deadline(deployment: JSON) -> bool:
    deadline = (deployment.get("spec") or {}).get("progressDeadlineSeconds")
    return deadline is not None and deadline != MAX_INT32


def progress_deadline(deployment: JSON) -> int:
    return int((deployment.get("spec") or {}).get("progressDeadlineSeconds") or 0)


def complete(deployment: JSON, status: JSON) -> bool:
    """DeploymentComplete."""
    wanted = replicas(deployment)
    return (int(status.get("updatedReplicas") or 0) == wanted and int(status.get("replicas") or 0) == wanted
            and int(status.get("availableReplicas") or 0) == wanted
            and int(status.get("observedGeneration") or 0) >= int(deployment["metadata"].get("generation") or 0))


def progressing(deployment: JSON, status: JSON) -> bool:
    """DeploymentProgressing: more updated, fewer old, more ready or more available replicas than before."""
    old: JSON = deployment.get("status") or {}

    def count(source: JSON, field: str) -> int:
        return int(source.get(field) or 0)

    return (count(status, "updatedReplicas") > count(old, "updatedReplicas")
            or count(status, "replicas") - count(status, "updatedReplicas")
            < count(old, "replicas") - count(old, "updatedReplicas")
            or count(status, "readyReplicas") > count(old, "readyReplicas")
            or count(status, "availableReplicas") > count(old, "availableReplicas"))


def timed_out(deployment: JSON, status: JSON, now: datetime) -> bool:
    """DeploymentTimedOut: no progress noted for progressDeadlineSeconds."""
    if not has_progress_deadline(deployment):
        return False
    current = condition(status, PROGRESSING)
    if current is None or current.get("reason") == NEW_RS_AVAILABLE:
        return False
    if current.get("reason") == TIMED_OUT:
        return True
    updated = current.get("lastUpdateTime")
    if not updated:
        return False
    return (now - parse_rfc3339(updated)).total_seconds() > progress_deadline(deployment)
