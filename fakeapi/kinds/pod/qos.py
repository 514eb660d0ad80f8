"""A pod's QoS class, as upstream's ComputePodQOS / GetPodQOS (pkg/apis/core/helper/qos)."""

from __future__ import annotations

from typing import Any

from fakeapi.kinds.pod.remembered import PodRemembered
from fakeapi.machinery.quantity import parse
from fakeapi.machinery.types import JSON

GUARANTEED = "Guaranteed"
BURSTABLE = "Burstable"
BEST_EFFORT = "BestEffort"

_QOS_RESOURCES = ("cpu", "memory")


def get_pod_qos(pod: JSON, memo: PodRemembered | None = None) -> str:
    """The class recorded in status.qosClass, else the computed one (`memo` remembers amounts)."""
    status = pod.get("status")
    if isinstance(status, dict):
        recorded = status.get("qosClass")
        if isinstance(recorded, str) and recorded:
            return recorded
    return qos_class(pod, memo)


def qos_class(pod: JSON, memo: PodRemembered | None = None) -> str:
    """ComputePodQOS on a defaulted pod: only cpu and memory count, and only quantities > 0.

    With pod-level resources (spec.resources naming cpu, memory or hugepages-*) those alone decide;
    otherwise requests and limits are summed over containers and init containers, and every one
    of them needs cpu and memory limits for the pod to be Guaranteed."""
    spec = pod.get("spec")
    if not isinstance(spec, dict):
        return BEST_EFFORT
    requests: dict[str, int] = {}
    limits: dict[str, int] = {}
    guaranteed = True
    pod_resources = spec.get("resources")
    if isinstance(pod_resources, dict) and _has_pod_level_resources(pod_resources):
        requests = _positive(pod_resources.get("requests"), memo)
        pod_limits = pod_resources.get("limits")
        if pod_limits:
            limits = _positive(pod_limits, memo)
            guaranteed = _has_cpu_and_memory(limits)
    else:
        for key in ("containers", "initContainers"):
            containers = spec.get(key)
            if not isinstance(containers, list):
                continue
            for container in containers:
                resources = container.get("resources") if isinstance(container, dict) else None
                if not isinstance(resources, dict):
                    guaranteed = False
                    continue
                _add(requests, _positive(resources.get("requests"), memo))
                container_limits = _positive(resources.get("limits"), memo)
                _add(limits, container_limits)
                if not _has_cpu_and_memory(container_limits):
                    guaranteed = False
    if not requests and not limits:
        return BEST_EFFORT
    if guaranteed and len(requests) == len(limits):
        if all(limits.get(name) == amount for name, amount in requests.items()):
            return GUARANTEED
    return BURSTABLE


def _has_pod_level_resources(resources: JSON) -> bool:
    for key in ("requests", "limits"):
        resource_list = resources.get(key)
        if isinstance(resource_list, dict):
            for name in resource_list:
                if name in _QOS_RESOURCES or (isinstance(name, str) and name.startswith("hugepages-")):
                    return True
    return False


def _positive(resource_list: Any, memo: PodRemembered | None) -> dict[str, int]:
    """The cpu/memory entries with a quantity > 0; unparseable quantities count as absent."""
    found: dict[str, int] = {}
    if isinstance(resource_list, dict):
        for name in _QOS_RESOURCES:
            raw = resource_list.get(name)
            if raw is not None:
                amount = _amount(raw, memo)
                if amount is not None and amount > 0:
                    found[name] = amount
    return found


def _add(total: dict[str, int], amounts: dict[str, int]) -> None:
    for name, amount in amounts.items():
        previous = total.get(name)
        total[name] = amount if previous is None else previous + amount


def _has_cpu_and_memory(positive: dict[str, int]) -> bool:
    return "cpu" in positive and "memory" in positive


def _amount(raw: Any, memo: PodRemembered | None) -> int | None:
    """The quantity in nano units (every parsed quantity is a whole number of them), None if unparseable."""
    if type(raw) is str:
        return memo.nanos(raw) if memo else nanos_of(raw)
    try:
        return parse(raw).nanos
    except ValueError:
        return None


def nanos_of(amount: str) -> int | None:
    """An amount's value in nano units, None if it does not parse."""
    try:
        return parse(amount).nanos
    except ValueError:
        return None
