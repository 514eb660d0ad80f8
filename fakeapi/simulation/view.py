"""The simulation's view of the cluster, kept current from the store's change events as an informer's
cache is: the nodes with what scheduling needs of them, the pods with where they run and what they
request, and per node the pods counted against it (every pod bound to it that has not finished)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

import orjson

from fakeapi.kinds.lease import LEASE
from fakeapi.machinery.types import JSON
from fakeapi.simulation import resources
from fakeapi.simulation.resources import Resources
from fakeapi.storage.store import Event, Store

PodKey = tuple[str, str]  # namespace, name
TERMINAL_PHASES = ("Succeeded", "Failed")
DEFAULT_SCHEDULER = "default-scheduler"
NODE_LEASE_NAMESPACE = "kube-node-lease"
LEASES = LEASE.info.group_resource  # how leases are stored
# a node labelled so has no simulated kubelet (the scheduler and the node controllers still see it)
SIMULATED_LABEL = "fakeapi.dev/simulated"


@dataclass(slots=True, eq=False)
class PodInfo:
    key: PodKey
    uid: str
    node: str
    phase: str
    deleting: bool
    scheduler: str
    gated: bool
    priority: int
    requests: Resources
    spec: int  # a hash of the spec as stored, to tell a changed spec from a status write

    @property
    def terminal(self) -> bool:
        return self.phase in TERMINAL_PHASES

    @property
    def on_node(self) -> bool:
        """Whether the pod counts against its node."""
        return bool(self.node) and not self.terminal

    @property
    def pending(self) -> bool:
        """Waiting for the default scheduler."""
        return (not self.node and not self.gated and not self.deleting and not self.terminal
                and self.scheduler == DEFAULT_SCHEDULER)


@dataclass(slots=True)
class Usage:
    pods: set[PodKey] = field(default_factory=set)
    requested: Resources = field(default_factory=dict)
    cpu: int = 0  # requested["cpu"], kept apart to be read fast (and memory)
    memory: int = 0
    nonzero_cpu: int = 0
    nonzero_memory: int = 0

    def add(self, pod: PodInfo, sign: int = 1) -> None:
        requests = pod.requests
        resources.add(self.requested, requests, sign)
        self.cpu += sign * requests.get(resources.CPU, 0)
        self.memory += sign * requests.get(resources.MEMORY, 0)
        cpu, memory = resources.nonzero(requests)
        self.nonzero_cpu += sign * cpu
        self.nonzero_memory += sign * memory


@dataclass(slots=True, eq=False)
class NodeInfo:
    name: str
    uid: str
    labels: dict[str, str]
    taints: list[JSON]
    unschedulable: bool
    allocatable: Resources
    ready: str  # the Ready condition's status, "" when there is none
    heartbeat: str  # the Ready condition's lastHeartbeatTime
    conditions: dict[str, str]  # condition type -> status
    simulated: bool
    pod_cidr: str
    internal_ip: str
    usage: Usage  # what the pods bound to it request (kept by the view, the same object across the node's changes)
    # what the scheduler's search reads of it on every pod, kept here to be read fast
    cpu: int = 0  # allocatable millicores
    memory: int = 0  # allocatable bytes
    max_pods: int = 0
    plain: bool = True  # no taints, not cordoned: only room decides whether a pod without affinity fits

    def __post_init__(self) -> None:
        allocatable = self.allocatable
        self.cpu = allocatable.get(resources.CPU, 0)
        self.memory = allocatable.get(resources.MEMORY, 0)
        self.max_pods = allocatable.get(resources.PODS, 0)
        self.plain = not self.taints and not self.unschedulable

    @property
    def scheduling(self) -> tuple[Any, ...]:
        """What scheduling decisions depend on: a change here may make a waiting pod fit."""
        return (sorted(self.allocatable.items()), sorted(self.labels.items()), orjson.dumps(self.taints),
                self.unschedulable)


class Change(NamedTuple):
    """One object's change as the view saw it: before, after (None when absent) and the object itself."""

    old: Any
    new: Any
    obj: JSON | None


class ClusterView:
    def __init__(self) -> None:
        self.nodes: dict[str, NodeInfo] = {}
        self.pods: dict[PodKey, PodInfo] = {}
        self.usage: dict[str, Usage] = {}
        self.lease_renewals: dict[str, str] = {}  # node lease name -> renewTime

    def clear(self) -> None:
        self.nodes.clear()
        self.pods.clear()
        self.usage.clear()
        self.lease_renewals.clear()

    def usage_of(self, node: str) -> Usage:
        return self.usage.get(node) or Usage()

    def _usage(self, node: str) -> Usage:
        """The node's Usage, made if need be: kept while the view lives, so that a node's infos share it."""
        usage = self.usage.get(node)
        if usage is None:
            usage = self.usage[node] = Usage()
        return usage

    # ---- keeping up with the store

    def load(self, store: Store) -> tuple[list[JSON], list[JSON]]:
        """Read every node, pod and node lease (after a start, reset or restore): the nodes and pods."""
        self.clear()
        nodes = [orjson.loads(data) for data in store.list_bytes("nodes")]
        pods = [orjson.loads(data) for data in store.list_bytes("pods")]
        for node in nodes:
            self._set_node(node)
        for pod in pods:
            self._set_pod(pod)
        for data in store.list_bytes(LEASES, NODE_LEASE_NAMESPACE):
            lease = orjson.loads(data)
            self.lease_renewals[lease["metadata"]["name"]] = (lease.get("spec") or {}).get("renewTime") or ""
        return nodes, pods

    def apply(self, event: Event) -> Change | None:
        """Take in a change of a node, pod or node lease; None for changes of anything else."""
        resource = event.key.resource
        if resource == "pods":
            old_pod = self.pods.get((event.key.namespace, event.key.name))
            if event.type == "DELETED":
                self._remove_pod(old_pod)
                return Change(old_pod, None, None)
            pod = orjson.loads(event.data)
            return Change(old_pod, self._set_pod(pod), pod)
        if resource == "nodes":
            old_node = self.nodes.get(event.key.name)
            if event.type == "DELETED":
                self.nodes.pop(event.key.name, None)
                return Change(old_node, None, None)
            node = orjson.loads(event.data)
            return Change(old_node, self._set_node(node), node)
        if resource == LEASES and event.key.namespace == NODE_LEASE_NAMESPACE:
            if event.type == "DELETED":
                self.lease_renewals.pop(event.key.name, None)
                return Change(None, None, None)
            lease = orjson.loads(event.data)
            renewed = (lease.get("spec") or {}).get("renewTime") or ""
            previous = self.lease_renewals.get(event.key.name)
            self.lease_renewals[event.key.name] = renewed
            return Change(previous, renewed, lease)
        return None

    def _set_node(self, node: JSON) -> NodeInfo:
        meta: JSON = node["metadata"]
        spec: JSON = node.get("spec") or {}
        status: JSON = node.get("status") or {}
        labels = meta.get("labels") or {}
        conditions = {str(condition.get("type")): str(condition.get("status", ""))
                      for condition in status.get("conditions") or []}
        heartbeat = next((str(condition.get("lastHeartbeatTime") or "") for condition in status.get("conditions") or []
                          if condition.get("type") == "Ready"), "")
        internal_ip = next((str(address.get("address", "")) for address in status.get("addresses") or []
                            if address.get("type") == "InternalIP"), "")
        info = NodeInfo(
            meta["name"], meta.get("uid", ""), labels, list(spec.get("taints") or []), bool(spec.get("unschedulable")),
            resources.resource_list(status.get("allocatable")), conditions.get("Ready", ""), heartbeat, conditions,
            labels.get(SIMULATED_LABEL) != "false",
            spec.get("podCIDR") or "", internal_ip, self._usage(meta["name"]))
        self.nodes[info.name] = info
        return info

    def _set_pod(self, pod: JSON) -> PodInfo:
        meta: JSON = pod["metadata"]
        spec: JSON = pod.get("spec") or {}
        key = (meta.get("namespace", ""), meta["name"])
        old = self.pods.get(key)
        spec_hash = hash(orjson.dumps(spec))
        requests = old.requests if old is not None and old.spec == spec_hash else resources.pod_requests(spec)
        info = PodInfo(key, meta.get("uid", ""), spec.get("nodeName") or "", (pod.get("status") or {}).get("phase", ""),
                       bool(meta.get("deletionTimestamp")), spec.get("schedulerName") or DEFAULT_SCHEDULER,
                       bool(spec.get("schedulingGates")), int(spec.get("priority") or 0), requests, spec_hash)
        self._remove_pod(old)
        self.pods[key] = info
        if info.on_node:
            usage = self._usage(info.node)
            usage.pods.add(key)
            usage.add(info)
        return info

    def _remove_pod(self, info: PodInfo | None) -> None:
        if info is None:
            return
        self.pods.pop(info.key, None)
        usage = self.usage.get(info.node)
        if info.on_node and usage is not None and info.key in usage.pods:
            usage.pods.discard(info.key)
            usage.add(info, -1)

