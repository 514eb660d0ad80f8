"""Resource amounts as kube-scheduler and the kubelet count them: cpu in millicores, every other resource
in whole units (rounded up), a pod's requests by upstream's PodRequests rules, and NodeResourcesFit."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fakeapi.kinds.pod.requests import aggregate_containers
from fakeapi.machinery.quantity import parse
from fakeapi.machinery.types import JSON

Resources = dict[str, int]
CPU, MEMORY, EPHEMERAL_STORAGE, PODS = "cpu", "memory", "ephemeral-storage", "pods"
_NANO, _NANOS_PER_MILLI = 10**9, 10**6
# what scoring assumes a container without requests uses (upstream's non-zero defaults)
NONZERO_CPU, NONZERO_MEMORY = 100, 200 * 1024 * 1024


def _amount(name: str, nanos: int) -> int:
    unit = _NANOS_PER_MILLI if name == CPU else _NANO
    return -(-nanos // unit)  # MilliValue / Value round up


def _nanos(raw: Any) -> int:
    try:
        return parse(raw).nanos
    except ValueError:
        return 0  # validation keeps bad quantities out of stored objects


def resource_list(raw: Any) -> Resources:
    """A wire ResourceList as amounts."""
    if not isinstance(raw, dict):
        return {}
    return {name: _amount(name, _nanos(value)) for name, value in raw.items()}


def pod_requests(spec: JSON) -> Resources:
    """Upstream's resource.PodRequests: what the containers ask for together, plus the pod's overhead."""
    total = {name: amount.nanos for name, amount in aggregate_containers(spec).items()}
    for name, value in (spec.get("overhead") or {}).items():
        total[name] = total.get(name, 0) + _nanos(value)
    return {name: _amount(name, nanos) for name, nanos in total.items()}


def add(total: Resources, amounts: Resources, sign: int = 1) -> None:
    for name, amount in amounts.items():
        total[name] = total.get(name, 0) + sign * amount


def nonzero(requests: Resources) -> tuple[int, int]:
    """The cpu and memory a pod counts for in scoring: its requests, or upstream's defaults where it has none."""
    return requests.get(CPU) or NONZERO_CPU, requests.get(MEMORY) or NONZERO_MEMORY


@dataclass(frozen=True, slots=True)
class Shortage:
    """One resource a node cannot give a pod (upstream's InsufficientResource)."""

    resource: str
    requested: int
    used: int
    capacity: int

    @property
    def reason(self) -> str:
        return "Too many pods" if self.resource == PODS else f"Insufficient {self.resource}"


def shortages(requests: Resources, pods_on_node: int, used: Resources, allocatable: Resources) -> list[Shortage]:
    """NodeResourcesFit's fitsRequest: the pod count first, then cpu, memory, ephemeral-storage and the
    other resources (by name), each only when the pod asks for some."""
    found: list[Shortage] = []
    allowed_pods = allocatable.get(PODS, 0)
    if pods_on_node + 1 > allowed_pods:
        found.append(Shortage(PODS, 1, pods_on_node, allowed_pods))
    others = sorted(name for name in requests if name not in (CPU, MEMORY, EPHEMERAL_STORAGE, PODS))
    for name in (CPU, MEMORY, EPHEMERAL_STORAGE, *others):
        wanted = requests.get(name, 0)
        if wanted > 0 and wanted > allocatable.get(name, 0) - used.get(name, 0):
            found.append(Shortage(name, wanted, used.get(name, 0), allocatable.get(name, 0)))
    return found
