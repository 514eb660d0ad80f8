"""The pod status a v1.32 kubelet generates from its runtime's view of the pod (generateAPIPodStatus, the
status package's condition generators and getPhase), over the status the pod has in the API.

Conditions the kubelet does not own (DisruptionTarget, readiness gates...) come first, as they were;
then PodReadyToStartContainers, Initialized, Ready, ContainersReady and PodScheduled, each keeping its
lastTransitionTime while its status stays.
"""

from __future__ import annotations

from typing import Any

from fakeapi.kinds.pod.qos import get_pod_qos
from fakeapi.machinery.types import JSON
from fakeapi.simulation import images
from fakeapi.simulation.runtime import INIT, MAIN, RUNNING, SIDECAR, TERMINATED, WAITING, Container, PodRuntime

TERMINAL = ("Succeeded", "Failed")
KUBELET_CONDITIONS = ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled")


def go_list(names: list[str]) -> str:
    """A Go []string printed with %s: `[a b]`."""
    return "[" + " ".join(names) + "]"


def container_status(container: Container) -> JSON:
    """convertToAPIContainerStatuses: the newest instance's state and the one before it in lastState; a
    container the kubelet holds back waits (CrashLoopBackOff...) with its newest instance in lastState."""
    state: JSON
    last = container.last_state
    if container.held is not None and container.state != RUNNING:
        reason, message = container.held
        state = {"waiting": {"reason": reason, **({"message": message} if message else {})}}
        if container.state == TERMINATED:
            last = terminated_state(container)
    elif container.state == RUNNING:
        state = {"running": {"startedAt": container.started_at}}
    elif container.state == TERMINATED:
        state = {"terminated": terminated_state(container)}
    else:
        state = {"waiting": {"reason": container.reason,
                             **({"message": container.message} if container.message else {})}}
    status: JSON = {
        "name": container.name, "state": state, "lastState": {"terminated": last} if last else {},
        "ready": container.ready, "restartCount": container.restart_count,
        "image": images.normalized(container.image) if container.ran else container.image,
        "imageID": images.image_id(container.image) if container.ran else "",
    }
    if container.container_id:
        status["containerID"] = container.container_id
    status["started"] = container.started
    if container.mounts:
        status["volumeMounts"] = [_mount_status(*mount) for mount in container.mounts]
    return status


def terminated_state(container: Container) -> JSON:
    """The `terminated` state of the container's instance that exited last."""
    return {"exitCode": container.exit_code, "reason": container.reason,
            **({"message": container.message} if container.message else {}),
            "startedAt": container.started_at or None, "finishedAt": container.finished_at or None,
            **({"containerID": container.container_id} if container.container_id else {})}


def _mount_status(name: str, path: str, read_only: bool) -> JSON:
    status: JSON = {"name": name, "mountPath": path}
    if read_only:
        status["readOnly"] = True
        status["recursiveReadOnly"] = "Disabled"  # RecursiveReadOnlyMounts is on; the pod did not ask for it
    return status


def phase(runtime: PodRuntime) -> str:
    """Upstream's getPhase over the runtime's containers (`runtime.done`: the pod is terminal). A container
    that exited and waits to be restarted counts as stopped, and not as succeeded."""
    pending_init = failed_init = pending_sidecars = 0
    running = waiting = stopped = succeeded = 0
    for container in runtime.of_kind(INIT, SIDECAR):
        if container.kind == INIT:
            if container.state == TERMINATED:
                failed_init += container.exit_code != 0
            else:
                pending_init += 1
        elif container.state == RUNNING:
            pending_sidecars += not container.started
            running += 1
        elif container.state == WAITING:
            pending_sidecars += 1
            waiting += 1
    for container in runtime.of_kind(MAIN):
        if container.state == RUNNING:
            running += 1
        elif container.state == TERMINATED:
            stopped += 1
            succeeded += container.succeeded
        else:
            waiting += 1
    if failed_init and runtime.restart_policy == "Never":
        return "Failed"
    if pending_init or (pending_sidecars and not _main_started(runtime)) or waiting:
        return "Pending"
    if running:
        return "Running"
    if stopped:
        if runtime.done:
            return "Succeeded" if stopped == succeeded else "Failed"
        if runtime.restart_policy == "Always":
            return "Running"
        if stopped == succeeded:
            return "Succeeded"
        return "Failed" if runtime.restart_policy == "Never" else "Running"
    return "Pending"


def _main_started(runtime: PodRuntime) -> bool:
    return any(container.state != WAITING for container in runtime.of_kind(MAIN))


def generate(pod: JSON, runtime: PodRuntime, now: str) -> JSON:
    """The status the kubelet would write now."""
    spec: JSON = pod.get("spec") or {}
    old: JSON = pod.get("status") or {}
    pod_phase = phase(runtime)
    if runtime.done and pod_phase not in TERMINAL:
        pod_phase = "Failed"  # TerminatePod: a terminal pod is Failed unless it succeeded
    kept = [condition for condition in old.get("conditions") or [] if condition.get("type") not in KUBELET_CONDITIONS]
    containers_ready = _containers_ready(runtime, pod_phase)
    fresh = [
        _condition("PodReadyToStartContainers", "True" if runtime.sandbox_ready and not runtime.done else "False"),
        _initialized(runtime, pod_phase),
        _ready(spec, kept, containers_ready),
        containers_ready,
        _condition("PodScheduled", "True"),
    ]
    previous = {condition.get("type"): condition for condition in old.get("conditions") or []}
    for condition in fresh:
        before = previous.get(condition["type"])
        same = before is not None and before.get("status") == condition["status"]
        condition["lastTransitionTime"] = before.get("lastTransitionTime") if same and before else now
    status: JSON = {"phase": pod_phase, "conditions": kept + fresh}
    if old.get("nominatedNodeName"):  # the scheduler's, kept
        status["nominatedNodeName"] = old["nominatedNodeName"]
    if runtime.host_ip:
        status["hostIP"] = runtime.host_ip
        status["hostIPs"] = [{"ip": runtime.host_ip}]
    if runtime.pod_ip:
        status["podIP"] = runtime.pod_ip
        status["podIPs"] = [{"ip": runtime.pod_ip}]
    if runtime.start_time:
        status["startTime"] = runtime.start_time
    init = runtime.of_kind(INIT, SIDECAR)
    if init:
        status["initContainerStatuses"] = [container_status(container) for container in init]
    status["containerStatuses"] = sorted((container_status(c) for c in runtime.of_kind(MAIN)),
                                         key=lambda item: str(item["name"]))
    status["qosClass"] = get_pod_qos(pod)
    if old.get("resourceClaimStatuses"):
        status["resourceClaimStatuses"] = old["resourceClaimStatuses"]
    return status


def rejected(reason: str, message: str, start_time: str) -> JSON:
    """What a kubelet before v1.32 wrote for a pod its admission rejected: no qosClass (fixed upstream by
    PR #128083; the apiserver keeps the class since PR #127744), no conditions."""
    return {"phase": "Failed", "message": f"Pod was rejected: {message}", "reason": reason, "startTime": start_time}


def _condition(kind: str, status: str, reason: str = "", message: str = "") -> JSON:
    condition: JSON = {"type": kind, "status": status, "lastProbeTime": None}
    if reason:
        condition["reason"] = reason
    if message:
        condition["message"] = message
    return condition


def _initialized(runtime: PodRuntime, pod_phase: str) -> JSON:
    if pod_phase == "Succeeded":
        return _condition("Initialized", "True", "PodCompleted")
    if _main_started(runtime):
        return _condition("Initialized", "True")
    incomplete = [container.name for container in runtime.of_kind(INIT, SIDECAR)
                  if (container.kind == SIDECAR and not container.started)
                  or (container.kind == INIT and not container.succeeded)]
    if incomplete:
        return _condition("Initialized", "False", "ContainersNotInitialized",
                          f"containers with incomplete status: {go_list(incomplete)}")
    return _condition("Initialized", "True")


def _containers_ready(runtime: PodRuntime, pod_phase: str) -> JSON:
    if pod_phase in ("Succeeded", "Failed"):
        return _condition("ContainersReady", "False", "PodCompleted" if pod_phase == "Succeeded" else "PodFailed")
    unready = [container.name for container in runtime.of_kind(SIDECAR, MAIN) if not container.ready]
    if unready:
        return _condition("ContainersReady", "False", "ContainersNotReady",
                          f"containers with unready status: {go_list(unready)}")
    return _condition("ContainersReady", "True")


def _ready(spec: JSON, conditions: list[Any], containers_ready: JSON) -> JSON:
    """GeneratePodReadyCondition: as ContainersReady, then every readiness gate's condition must be True."""
    if containers_ready["status"] != "True":
        return {**containers_ready, "type": "Ready"}
    by_type = {condition.get("type"): condition for condition in conditions}
    unready: list[str] = []
    for gate in spec.get("readinessGates") or []:
        kind = gate.get("conditionType", "")
        condition = by_type.get(kind)
        if condition is None:
            unready.append(f'corresponding condition of pod readiness gate "{kind}" does not exist.')
        elif condition.get("status") != "True":
            unready.append(f'the status of pod readiness gate "{kind}" is not "True", but {condition.get("status")}')
    if unready:
        return _condition("Ready", "False", "ReadinessGatesNotReady", ", ".join(unready))
    return _condition("Ready", "True")
