"""Simulated nodes: the node half of each simulated kubelet.

A kubelet registers its node (POST nodes, with labels and the status its setters compute), records its
start-up events, creates the node's Lease in kube-node-lease and renews it every 10 s (PUT), and reports
the node status (a strategic merge PATCH of nodes/status) when it changes and at least every 5 min, as
a v1.32 kubelet with its default nodeStatusReportFrequency does. Nodes created through the API are run
the same way (their capacity, labels and addresses kept) unless labelled `fakeapi.dev/simulated=false`.

A client that writes the Ready condition False (nodes/status) tells the kubelet its node is not ready:
it keeps reporting that (reason and message as written) until a client writes Ready True. `fail()`
stops the kubelet (no lease renewals, no status), so the node controller finds the node Unknown after
its grace period; `recover()` starts it again.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from fakeapi.machinery.clock import Clock, rfc3339, rfc3339_micro
from fakeapi.machinery.errors import AlreadyExists, Conflict, NotFound
from fakeapi.machinery.ids import IdSource
from fakeapi.machinery.patch import create_two_way_merge_patch
from fakeapi.machinery.types import JSON
from fakeapi.simulation.client import KUBERNETES_VERSION, Client
from fakeapi.simulation.events import KUBELETS_CACHE_SIZE, EventCache, EventNames, EventRecorder, node_reference
from fakeapi.simulation.view import NODE_LEASE_NAMESPACE, ClusterView, NodeInfo
from fakeapi.simulation.work import Work

LEASE_DURATION_SECONDS = 40
LEASE_RENEW_SECONDS = 10.0  # 40 s x upstream's renew interval fraction 0.25
STATUS_REPORT_SECONDS = 300.0  # nodeStatusReportFrequency
LOOPS = ("lease", "status")  # what each kubelet does on the clock, again and again
FIRST_NODE_IP = ipaddress.ip_address("172.18.0.2")
NODE_INFO: JSON = {
    "kernelVersion": "6.8.0-49-generic", "osImage": "Debian GNU/Linux 12 (bookworm)",
    "containerRuntimeVersion": "containerd://1.7.24", "kubeletVersion": KUBERNETES_VERSION,
    "kubeProxyVersion": KUBERNETES_VERSION, "operatingSystem": "linux", "architecture": "amd64",
}
# the kubelet's pressure conditions, always healthy here: type, reason, message, event
PRESSURE = (
    ("MemoryPressure", "KubeletHasSufficientMemory", "kubelet has sufficient memory available",
     "NodeHasSufficientMemory"),
    ("DiskPressure", "KubeletHasNoDiskPressure", "kubelet has no disk pressure", "NodeHasNoDiskPressure"),
    ("PIDPressure", "KubeletHasSufficientPID", "kubelet has sufficient PID available", "NodeHasSufficientPID"),
)
READY = ("KubeletReady", "kubelet is posting ready status")
NOT_READY_REASON = "KubeletNotReady"


@dataclass(eq=False)
class NodeKubelet:
    name: str
    internal_ip: str
    events: EventRecorder
    stopped: bool = False
    not_ready: tuple[str, str] | None = None  # (reason, message) a client wrote, while it holds
    reported_ready: str = ""  # the Ready status this kubelet last wrote
    lease: JSON | None = None  # the Lease as last written (the kubelet PUTs it back renewed)
    images: set[str] = field(default_factory=set)  # the images pulled on the node (normalised names)


def default_labels(name: str) -> dict[str, str]:
    """The labels a kubelet gives its node (upstream's initialNode)."""
    return {"beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
            "kubernetes.io/hostname": name, "kubernetes.io/os": "linux"}


def ready_condition(node: JSON) -> JSON:
    """The node's Ready condition ({} when it has none)."""
    conditions = (node.get("status") or {}).get("conditions") or []
    return next((condition for condition in conditions if condition.get("type") == "Ready"), {})


def _condition(kind: str, status: str, reason: str, message: str, before: JSON | None, now: str) -> JSON:
    """A condition as a kubelet setter writes it: its transition time moves only when its status does."""
    moved = before is None or before.get("status") != status
    return {"type": kind, "status": status, "lastHeartbeatTime": now,
            "lastTransitionTime": now if moved or before is None else before.get("lastTransitionTime"),
            "reason": reason, "message": message}


class NodeAgents:
    def __init__(self, client: Client, names: EventNames, work: Work, view: ClusterView, ids: IdSource,
                 capacity: Mapping[str, str], run_pods: Callable[[str], None]) -> None:
        self.client = client
        self.capacity = dict(capacity)  # what a node created without a capacity reports
        self.names = names
        self.work = work
        self.view = view
        self.ids = ids
        self.run_pods = run_pods  # told when a node's kubelet starts, or runs again: its pods sync
        self.nodes: dict[str, NodeKubelet] = {}
        self.event_cache = EventCache(KUBELETS_CACHE_SIZE)  # the kubelets' recorders share one
        self._tree = client.api.registry("nodes").kind.patch_tree

    @property
    def clock(self) -> Clock:
        return self.client.api.clock

    def stop(self) -> None:
        for node in self.nodes.values():
            self._cancel(node)
        self.nodes.clear()
        self.event_cache = EventCache(KUBELETS_CACHE_SIZE)

    # ---- registration

    def register(self, name: str, capacity: Mapping[str, str], labels: Mapping[str, str]) -> None:
        """Start a kubelet that registers node `name` (or takes over the node of that name, if there is one)."""
        if name in self.view.nodes:
            self.adopt(name)
            return
        node = self._start(name, self._free_ip())
        status, transitions = self._status(node, dict(capacity), dict(capacity), {})
        body: JSON = {
            "kind": "Node", "apiVersion": "v1",
            "metadata": {"name": name, "labels": {**default_labels(name), **labels},
                         "annotations": {"volumes.kubernetes.io/controller-managed-attach-detach": "true"}},
            "spec": {},
            "status": status,
        }
        node.events.normal(node_reference(name), "Starting", "Starting kubelet.")
        try:
            self.client.as_node(name).create("nodes", "", body)
        except AlreadyExists:
            self.adopt(name)
            return
        self._record(node, transitions)
        node.events.normal(node_reference(name), "NodeAllocatableEnforced",
                           "Updated Node Allocatable limit across pods")
        self._start_loop(node, "lease", lambda: self._renew_lease(node))
        self._every(node, "status", STATUS_REPORT_SECONDS, lambda: self.report_status(node))
        self.run_pods(name)

    def adopt(self, name: str, fresh: bool = True) -> None:
        """Run a kubelet for a node that exists already: its status is filled in (capacity, labels and
        addresses kept), and its lease renewed. `fresh`: a kubelet starting (with its start-up events),
        not one carrying on after a snapshot was restored."""
        info = self.view.nodes.get(name)
        if info is None or not info.simulated or name in self.nodes and not fresh:
            return
        node = self.nodes.get(name) or self._start(name, info.internal_ip or self._free_ip())
        obj = self.client.api.registry("nodes").find("", name)
        if obj is None:
            return
        missing = {key: value for key, value in default_labels(name).items()
                   if key not in (obj["metadata"].get("labels") or {})}
        if missing and fresh:
            self.client.as_node(name).patch("nodes", "", name, {"metadata": {"labels": missing}})
        if fresh:
            node.events.normal(node_reference(name), "Starting", "Starting kubelet.")
        ready = ready_condition(obj)
        if ready.get("status") == "False":
            node.not_ready = (ready.get("reason") or NOT_READY_REASON, ready.get("message") or "")
        self._start_loop(node, "status", lambda: self.report_status(node, record=fresh))
        if fresh:
            node.events.normal(node_reference(name), "NodeAllocatableEnforced",
                               "Updated Node Allocatable limit across pods")
        self._start_loop(node, "lease", lambda: self._renew_lease(node))
        self.run_pods(name)

    def _start(self, name: str, internal_ip: str) -> NodeKubelet:
        recorder = EventRecorder(self.client.as_node(name), self.names, self.work, "kubelet", name, self.event_cache)
        node = NodeKubelet(name, internal_ip, recorder)
        self.nodes[name] = node
        return node

    def _free_ip(self) -> str:
        taken = {info.internal_ip for info in self.view.nodes.values()} | {
            node.internal_ip for node in self.nodes.values()}
        index = 0
        while str(FIRST_NODE_IP + index) in taken:
            index += 1
        return str(FIRST_NODE_IP + index)

    # ---- node status

    def _status(self, node: NodeKubelet, capacity: JSON, allocatable: JSON, old: JSON) -> tuple[JSON, list[str]]:
        """The status the kubelet's setters compute over the status the node has (`old`), and the
        transitions they record as events. What the setters do not own stays as it is: conditions of other
        types (a CNI's NetworkUnavailable, a node problem detector's), volumesAttached, whatever a client
        wrote; so the status patch carries the heartbeats, however much the node holds."""
        transitions: list[str] = []
        now = rfc3339(self.clock.now())
        previous = {condition.get("type"): condition for condition in old.get("conditions") or []}
        owned: dict[str, JSON] = {}
        for kind, reason, message, event in PRESSURE:
            condition = owned[kind] = _condition(kind, "False", reason, message, previous.get(kind), now)
            if condition["lastTransitionTime"] == now:
                transitions.append(event)
        status, (reason, message) = ("False", node.not_ready) if node.not_ready else ("True", READY)
        condition = owned["Ready"] = _condition("Ready", status, reason, message, previous.get("Ready"), now)
        if condition["lastTransitionTime"] == now and "Ready" in previous:
            transitions.append("NodeReady" if status == "True" else "NodeNotReady")
        node.reported_ready = status
        # each setter updates its condition where it is, or appends it
        conditions = [owned.pop(kind) if (kind := item.get("type")) in owned else item
                      for item in old.get("conditions") or []]
        conditions += owned.values()
        machine = old.get("nodeInfo") or {}
        addresses = old.get("addresses") or [{"type": "InternalIP", "address": node.internal_ip},
                                              {"type": "Hostname", "address": node.name}]
        return {
            **old, "capacity": capacity, "allocatable": allocatable, "conditions": conditions, "addresses": addresses,
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "nodeInfo": {**NODE_INFO, "machineID": machine.get("machineID") or self.ids.uid().replace("-", ""),
                         "systemUUID": machine.get("systemUUID") or self.ids.uid(),
                         "bootID": machine.get("bootID") or self.ids.uid()},
        }, transitions

    def _record(self, node: NodeKubelet, transitions: list[str]) -> None:
        for event in transitions:
            node.events.normal(node_reference(node.name), event, f"Node {node.name} status is now: {event}")

    def report_status(self, node: NodeKubelet, record: bool = True) -> None:
        """PATCH nodes/status with the status as the kubelet sees it now (every heartbeat moves)."""
        if node.stopped:
            return
        obj = self.client.api.registry("nodes").find("", node.name)
        if obj is None:
            return
        old: JSON = obj.get("status") or {}
        capacity = old.get("capacity") or self.capacity
        new, transitions = self._status(node, capacity, old.get("allocatable") or capacity, old)
        patch = create_two_way_merge_patch({"status": old}, {"status": new}, self._tree)
        if patch:
            self.client.as_node(node.name).patch("nodes", "", node.name, patch, "status")
        if record:  # (a kubelet carrying on after a restore recorded its transitions before)
            self._record(node, transitions)
        self._every(node, "status", STATUS_REPORT_SECONDS, lambda: self.report_status(node))

    def node_changed(self, old: NodeInfo | None, new: NodeInfo | None) -> None:
        """A node came, changed or went: run kubelets for new simulated nodes; follow a client's Ready."""
        if new is None:
            if old is not None and old.name in self.nodes:
                self._cancel(self.nodes.pop(old.name))
            return
        node = self.nodes.get(new.name)
        if node is None:
            if new.simulated:
                self.work.soon(("adopt-node", new.name), lambda: self.adopt(new.name))
            return
        if not new.simulated:
            self._cancel(self.nodes.pop(new.name))
            return
        if node.stopped or new.ready == node.reported_ready:
            return
        self.work.soon(("node-ready", new.name), lambda: self._follow_ready(node))

    def _follow_ready(self, node: NodeKubelet) -> None:
        """A client wrote the Ready condition: False makes the node not ready (as written), True ready again;
        anything else is overwritten by the kubelet's own report."""
        obj = self.client.api.registry("nodes").find("", node.name)
        if obj is None or node.stopped:
            return
        ready = ready_condition(obj)
        status = ready.get("status")
        if status == node.reported_ready:
            return
        if status == "False":
            node.not_ready = (ready.get("reason") or NOT_READY_REASON, ready.get("message") or "")
            node.reported_ready = "False"
            return
        was_not_ready, node.not_ready = node.not_ready is not None, None
        self.report_status(node)
        if was_not_ready:
            self.run_pods(node.name)

    # ---- failure

    def fail(self, name: str) -> None:
        """Stop node `name`'s kubelet: no more lease renewals or status reports."""
        node = self._node(name)
        node.stopped = True
        self._cancel(node)

    def recover(self, name: str) -> None:
        """Start node `name`'s kubelet again (ready, unless a client made it not ready)."""
        node = self._node(name)
        if not node.stopped:
            return
        node.stopped = False
        self._start_loop(node, "lease", lambda: self._renew_lease(node))
        self._start_loop(node, "status", lambda: self.report_status(node))
        self.run_pods(name)

    def _node(self, name: str) -> NodeKubelet:
        node = self.nodes.get(name)
        if node is None:
            raise KeyError(f"node {name!r} is not a simulated node")
        return node

    # ---- the lease

    def _renew_lease(self, node: NodeKubelet) -> None:
        """Renew (or create) the node's Lease, as upstream's lease controller does every 10 s; on etcd, the
        loop goes on while the write waits (5,000 nodes renew 500 leases a second)."""
        self.work.while_storage_waits(("lease", node.name), lambda: self._write_lease(node))

    def _write_lease(self, node: NodeKubelet) -> None:
        if node.stopped:
            return
        now = rfc3339_micro(self.clock.now())
        lease = node.lease or self.client.api.registry("leases", "coordination.k8s.io").find(
            NODE_LEASE_NAMESPACE, node.name)
        try:
            if lease is None:
                node.lease = self.client.as_node(node.name).create(
                    "leases", NODE_LEASE_NAMESPACE, self._new_lease(node, now), "coordination.k8s.io")
            else:
                lease["spec"] = {**(lease.get("spec") or {}), "holderIdentity": node.name,
                                 "leaseDurationSeconds": LEASE_DURATION_SECONDS, "renewTime": now}
                node.lease = self.client.as_node(node.name).update(
                    "leases", NODE_LEASE_NAMESPACE, node.name, lease, group="coordination.k8s.io")
        except (Conflict, NotFound, AlreadyExists):
            node.lease = None  # someone else wrote it: read it afresh at the next renewal
        except Exception:
            node.lease = None  # (not written: read it afresh at the retry)
            raise
        self._every(node, "lease", LEASE_RENEW_SECONDS, lambda: self._renew_lease(node))

    def _new_lease(self, node: NodeKubelet, now: str) -> JSON:
        meta: JSON = {"name": node.name, "namespace": NODE_LEASE_NAMESPACE}
        info = self.view.nodes.get(node.name)
        if info is not None and info.uid:
            meta["ownerReferences"] = [{"apiVersion": "v1", "kind": "Node", "name": node.name, "uid": info.uid}]
        return {"kind": "Lease", "apiVersion": "coordination.k8s.io/v1", "metadata": meta,
                "spec": {"holderIdentity": node.name, "leaseDurationSeconds": LEASE_DURATION_SECONDS,
                         "renewTime": now}}

    # ---- timers

    def _every(self, node: NodeKubelet, kind: str, seconds: float, step: Callable[[], None]) -> None:
        """Run `step` in `seconds` instead of when the node's `kind` of step was due (steps re-arm themselves;
        one that fails is retried under the same key, and re-arms once it passes)."""
        self.work.later(seconds, step, (kind, node.name))

    def _start_loop(self, node: NodeKubelet, kind: str, step: Callable[[], None]) -> None:
        """Run the first turn of the node's `kind` of loop now; if it fails, it is retried under the loop's
        key (and the loop carries on from there) while the caller goes on."""
        try:
            step()
        except Exception as error:
            self.work.retry_later((kind, node.name), step, error)

    def _cancel(self, node: NodeKubelet) -> None:
        for kind in LOOPS:
            self.work.cancel((kind, node.name))
