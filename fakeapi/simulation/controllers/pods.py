"""What the controllers read of a pod, taken once from each of its versions (a pod's full JSON stays in the
store: the controllers parse it again only for the rare need), and upstream's podutil predicates."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

import orjson

from fakeapi.machinery.clock import parse_rfc3339
from fakeapi.machinery.types import JSON

DELETION_COST_ANNOTATION = "controller.kubernetes.io/pod-deletion-cost"
PHASE_RANK = {"Pending": 0, "Unknown": 1, "Running": 2}  # a pod lower here goes first when scaling down


@dataclass(slots=True, eq=False)
class Pod:
    namespace: str
    name: str
    uid: str
    resource_version: str
    labels: dict[str, str]
    owners: list[JSON]
    controller_uid: str  # the uid of the owner reference with controller: true ("" for none)
    created: str
    deletion: str  # deletionTimestamp ("" unless being deleted)
    finalizers: tuple[str, ...]
    node: str
    phase: str
    ready: bool
    ready_since: str  # when the Ready condition last changed ("" without one)
    restarts: int  # the most restarts of one container
    ip: str
    ips: tuple[str, ...]
    hostname: str
    subdomain: str
    deletion_cost: int
    data: bytes  # the object as stored

    @property
    def key(self) -> tuple[str, str]:
        return self.namespace, self.name

    @property
    def deleting(self) -> bool:
        return bool(self.deletion)

    @property
    def terminal(self) -> bool:
        return self.phase in ("Succeeded", "Failed")

    @property
    def active(self) -> bool:
        """Upstream's controller.IsPodActive: not finished, not being deleted."""
        return not self.terminal and not self.deleting

    def available(self, min_ready_seconds: int, now: datetime) -> bool:
        """podutil.IsPodAvailable: ready for at least minReadySeconds."""
        if not self.ready:
            return False
        if min_ready_seconds <= 0:
            return True
        if not self.ready_since:
            return False
        return (now - parse_rfc3339(self.ready_since)).total_seconds() >= min_ready_seconds

    def obj(self) -> JSON:
        """The whole pod, parsed anew."""
        parsed: JSON = orjson.loads(self.data)
        return parsed


def summarize(pod: JSON, data: bytes) -> Pod:
    meta: JSON = pod.get("metadata") or {}
    spec: JSON = pod.get("spec") or {}
    status: JSON = pod.get("status") or {}
    owners: list[JSON] = meta.get("ownerReferences") or []
    ready, ready_since = False, ""
    for condition in status.get("conditions") or []:
        if condition.get("type") == "Ready":
            ready = condition.get("status") == "True"
            ready_since = condition.get("lastTransitionTime") or ""
    restarts = max((int(container.get("restartCount") or 0) for container in status.get("containerStatuses") or []),
                   default=0)
    return Pod(
        meta.get("namespace", ""), meta.get("name", ""), meta.get("uid", ""), meta.get("resourceVersion", ""),
        meta.get("labels") or {}, owners, controller_uid(owners), meta.get("creationTimestamp") or "",
        meta.get("deletionTimestamp") or "", tuple(meta.get("finalizers") or ()), spec.get("nodeName") or "",
        status.get("phase") or "", ready, ready_since, restarts, status.get("podIP") or "",
        tuple(str(entry.get("ip", "")) for entry in status.get("podIPs") or ()), spec.get("hostname") or "",
        spec.get("subdomain") or "", _deletion_cost(meta.get("annotations") or {}), data)


def controller_uid(owners: list[JSON]) -> str:
    for owner in owners:
        if owner.get("controller"):
            return str(owner.get("uid", ""))
    return ""


def controller_of(obj: JSON) -> JSON | None:
    """metav1.GetControllerOf: the owner reference with controller: true."""
    for owner in (obj.get("metadata") or {}).get("ownerReferences") or []:
        if owner.get("controller"):
            return dict(owner)
    return None


def _deletion_cost(annotations: dict[str, Any]) -> int:
    try:
        return int(annotations.get(DELETION_COST_ANNOTATION, 0))
    except (TypeError, ValueError):
        return 0
