"""Pod Table cells: upstream v1.32 `printPod` (READY, STATUS, RESTARTS, AGE and the wide columns)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fakeapi.machinery.tables.columns import AGE_COLUMN, NAME_COLUMN, Column, Printer
from fakeapi.machinery.tables.timefmt import parse_time, since
from fakeapi.machinery.types import JSON

NONE = "<none>"

_SUCCEEDED = [{"type": "Completed", "status": "True", "reason": "Succeeded",
               "message": "The pod has completed successfully."}]
_FAILED = [{"type": "Completed", "status": "True", "reason": "Failed", "message": "The pod failed."}]


def pod_conditions(pod: JSON) -> list[JSON] | None:
    """`row.conditions` upstream attaches to finished pods (a fresh list each call)."""
    phase = (pod.get("status") or {}).get("phase")
    if phase == "Succeeded":
        return [dict(c) for c in _SUCCEEDED]
    if phase == "Failed":
        return [dict(c) for c in _FAILED]
    return None


def pod_cells(pod: JSON, now: datetime) -> list[Any]:
    meta: JSON = pod.get("metadata") or {}
    spec: JSON = pod.get("spec") or {}
    status: JSON = pod.get("status") or {}
    conditions: list[JSON] = status.get("conditions") or []
    phase: str = status.get("phase") or ""

    reason = status.get("reason") or phase
    for condition in conditions:
        if condition.get("type") == "PodScheduled" and condition.get("reason") == "SchedulingGated":
            reason = "SchedulingGated"

    init_specs: list[JSON] = spec.get("initContainers") or []
    sidecar_specs = [c for c in init_specs if c.get("restartPolicy") == "Always"]
    sidecars = {c.get("name") for c in sidecar_specs}
    total = len(spec.get("containers") or []) + len(sidecar_specs)
    ready = 0
    restarts = 0
    last_restart: datetime | None = None
    sidecar_restarts = 0
    last_sidecar_restart: datetime | None = None

    initializing = False
    for index, container in enumerate(status.get("initContainerStatuses") or []):
        count = container.get("restartCount") or 0
        finished = _last_finished(container)
        restarts += count
        last_restart = _later(last_restart, finished)
        is_sidecar = container.get("name") in sidecars
        if is_sidecar:
            sidecar_restarts += count
            last_sidecar_restart = _later(last_sidecar_restart, finished)
        state: JSON = container.get("state") or {}
        terminated: JSON | None = state.get("terminated")
        waiting: JSON | None = state.get("waiting")
        if terminated is not None and (terminated.get("exitCode") or 0) == 0:
            continue
        if is_sidecar and container.get("started") is True:
            if container.get("ready"):
                ready += 1
            continue
        if terminated is not None:
            reason = "Init:" + _terminated_reason(terminated)
        elif waiting is not None and waiting.get("reason") and waiting["reason"] != "PodInitializing":
            reason = "Init:" + waiting["reason"]
        else:
            reason = f"Init:{index}/{len(init_specs)}"
        initializing = True
        break

    if not initializing or _condition_true(conditions, "Initialized"):
        # sidecars keep counting once the pod is initialized; finished init containers no longer do
        restarts = sidecar_restarts
        last_restart = last_sidecar_restart
        has_running = False
        for container in reversed(status.get("containerStatuses") or []):
            restarts += container.get("restartCount") or 0
            last_restart = _later(last_restart, _last_finished(container))
            state = container.get("state") or {}
            waiting = state.get("waiting")
            terminated = state.get("terminated")
            if waiting is not None and waiting.get("reason"):
                reason = waiting["reason"]
            elif terminated is not None:
                reason = _terminated_reason(terminated)
            elif container.get("ready") and state.get("running") is not None:
                has_running = True
                ready += 1
        if reason == "Completed" and has_running:
            ready_condition = any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)
            reason = "Running" if ready_condition else "NotReady"

    if meta.get("deletionTimestamp") and status.get("reason") == "NodeLost":
        reason = "Unknown"
    elif meta.get("deletionTimestamp") and phase not in ("Succeeded", "Failed"):
        reason = "Terminating"

    restarts_cell = str(restarts)
    if restarts != 0 and last_restart is not None:
        restarts_cell = f"{restarts} ({since(last_restart, now)} ago)"

    return [
        meta.get("name", ""),
        f"{ready}/{total}",
        reason,
        restarts_cell,
        since(parse_time(meta.get("creationTimestamp")), now),
        _pod_ip(status) or NONE,
        spec.get("nodeName") or NONE,
        status.get("nominatedNodeName") or NONE,
        _readiness_gates(spec, conditions),
    ]


def _terminated_reason(terminated: JSON) -> str:
    if terminated.get("reason"):
        return str(terminated["reason"])
    if terminated.get("signal"):
        return f"Signal:{terminated['signal']}"
    return f"ExitCode:{terminated.get('exitCode') or 0}"


def _last_finished(container: JSON) -> datetime | None:
    terminated = (container.get("lastState") or {}).get("terminated")
    return parse_time(terminated.get("finishedAt")) if terminated is not None else None


def _later(current: datetime | None, candidate: datetime | None) -> datetime | None:
    if candidate is None or (current is not None and candidate <= current):
        return current
    return candidate


def _condition_true(conditions: list[JSON], kind: str) -> bool:
    """Status of the first condition of that type (upstream stops at the first match)."""
    for condition in conditions:
        if condition.get("type") == kind:
            return condition.get("status") == "True"
    return False


def _pod_ip(status: JSON) -> str:
    # the internal API fills podIPs from a lone podIP, so fall back to it as upstream's printer sees it
    ips: list[JSON] = status.get("podIPs") or []
    if ips:
        return str(ips[0].get("ip") or "")
    return str(status.get("podIP") or "")


def _readiness_gates(spec: JSON, conditions: list[JSON]) -> str:
    gates: list[JSON] = spec.get("readinessGates") or []
    if not gates:
        return NONE
    true_count = sum(1 for gate in gates if _condition_true(conditions, gate.get("conditionType", "")))
    return f"{true_count}/{len(gates)}"


_IP = (
    "podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated."
)
_NODE = (
    "NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate for "
    "scheduling by the scheduler defined in schedulerName. Once this field is set, the kubelet for this node "
    "becomes responsible for the lifecycle of this pod. This field should not be used to express a desire "
    "for the pod to be scheduled on a specific node. "
    "https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename"
)
_NOMINATED = (
    "nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled "
    "right away as preemption victims receive their graceful termination periods. This field does not "
    "guarantee that the pod will be scheduled on this node. Scheduler may decide to place the pod elsewhere "
    "if other nodes become available sooner. Scheduler may also decide to give the resources on this node "
    "to a higher priority pod that is created after preemption. As a result, this field may be different "
    "than PodSpec.nodeName when the pod is scheduled."
)
_GATES = (
    "If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when all its "
    'containers are ready AND all conditions specified in the readiness gates have status equal to "True" '
    "More info: https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates"
)

_COLUMNS = (
    NAME_COLUMN,
    Column("Ready", "string", "", 0, "The aggregate readiness state of this pod for accepting traffic."),
    Column("Status", "string", "", 0, "The aggregate status of the containers in this pod."),
    Column("Restarts", "string", "", 0,
        "The number of times the containers in this pod have been restarted and when the last container in "
        "this pod has restarted."),
    AGE_COLUMN,
    Column("IP", "string", "", 1, _IP),
    Column("Node", "string", "", 1, _NODE),
    Column("Nominated Node", "string", "", 1, _NOMINATED),
    Column("Readiness Gates", "string", "", 1, _GATES),
)

POD_PRINTER = Printer(_COLUMNS, pod_cells, pod_conditions)
