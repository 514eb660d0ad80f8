"""The node lifecycle controller (kube-controller-manager's node-controller).

It taints nodes from their conditions (NoSchedule: `not-ready` for Ready False, `unreachable` for
Unknown, the pressure taints, `unschedulable` for a cordoned node; NoExecute: `not-ready` or
`unreachable`), so that nothing is scheduled on a node until it is Ready. Every 5 s it checks each
node's heartbeats (its Lease renewals and Ready heartbeats): a node silent for the grace period (50 s in
v1.32; 60 s for a node that never reported) has its conditions set Unknown (`NodeStatusUnknown`,
`Kubelet stopped posting node status.`), a `NodeNotReady` event, and its pods' Ready conditions set
False with a `NodeNotReady` event each. When no node at all is ready, it adds no NoExecute taints and
removes those it added (upstream's full-disruption mode), so a one-node cluster never evicts its pods.
Upstream's per-zone eviction rate limits are not reproduced: NoExecute taints come at once.

A clock set forward (`freeze(when)`, `set`) is taken as the controller having been away: a monitor
pass that comes late starts every node's grace period afresh, so jumping to a date fails no node.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from fakeapi.machinery.clock import Clock, rfc3339
from fakeapi.machinery.errors import NotFound
from fakeapi.machinery.patch import create_two_way_merge_patch
from fakeapi.machinery.types import JSON
from fakeapi.simulation.client import Client
from fakeapi.simulation.events import EventNames, EventRecorder, pod_reference
from fakeapi.simulation.view import ClusterView, NodeInfo
from fakeapi.simulation.work import Work

MONITOR_PERIOD = 5.0  # --node-monitor-period
GRACE_PERIOD = 50.0  # --node-monitor-grace-period (v1.32)
STARTUP_GRACE_PERIOD = 60.0  # --node-startup-grace-period
NOT_READY, UNREACHABLE = "node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"
UNSCHEDULABLE = "node.kubernetes.io/unschedulable"
# condition type and status -> NoSchedule taint key (upstream's nodeConditionToTaintKeyStatusMap)
CONDITION_TAINTS = {
    ("Ready", "False"): NOT_READY,
    ("Ready", "Unknown"): UNREACHABLE,
    ("MemoryPressure", "True"): "node.kubernetes.io/memory-pressure",
    ("DiskPressure", "True"): "node.kubernetes.io/disk-pressure",
    ("PIDPressure", "True"): "node.kubernetes.io/pid-pressure",
    ("NetworkUnavailable", "True"): "node.kubernetes.io/network-unavailable",
}
NO_SCHEDULE_KEYS = frozenset([*CONDITION_TAINTS.values(), UNSCHEDULABLE])
HEALTH_CONDITIONS = ("Ready", "MemoryPressure", "DiskPressure", "PIDPressure")
MONITOR = ("node-monitor",)  # the key of the monitor's next pass (or of its retry)


@dataclass(slots=True)
class Health:
    """What the controller knows of a node's kubelet: when it last heard from it."""

    probe: float  # clock.monotonic() of the last lease renewal or Ready heartbeat seen
    heartbeat: str
    reported: bool  # whether the node ever had a Ready condition


class NodeLifecycle:
    def __init__(self, client: Client, names: EventNames, work: Work, view: ClusterView) -> None:
        self.client = client
        self.work = work
        self.view = view
        self.events = EventRecorder(client, names, work, "node-controller")
        self.health: dict[str, Health] = {}
        self.all_down = False  # no node is ready: full disruption, no NoExecute taints
        self._due = 0.0  # when the next monitor pass is due
        self._tree = client.api.registry("nodes").kind.patch_tree

    @property
    def clock(self) -> Clock:
        return self.client.api.clock

    def start(self, record_registrations: bool) -> None:
        """Take in the nodes there are (recording `RegisteredNode` for each, unless carrying on after a
        snapshot was restored), then monitor them every 5 s."""
        for info in self.view.nodes.values():
            self.work.soon(("registered", info.name), partial(self._observe, info, record_registrations))
        self._arm()

    def stop(self) -> None:
        self.work.cancel(MONITOR)
        self.health.clear()
        self.all_down = False

    # ---- changes

    def node_changed(self, old: NodeInfo | None, new: NodeInfo | None) -> None:
        if new is None:
            if old is not None and self.health.pop(old.name, None) is not None:
                self.events.normal(_reference(old), "RemovingNode", f"Node {old.name} event: Removing Node "
                                                                    f"{old.name} from Controller")
            return
        health = self.health.get(new.name)
        if health is None:
            self.work.soon(("registered", new.name), lambda: self._observe(new, True))
            return
        if new.heartbeat != health.heartbeat:
            health.probe, health.heartbeat = self.clock.monotonic(), new.heartbeat
            health.reported = health.reported or bool(new.ready)
        if old is None or old.ready != new.ready:
            self.work.soon(("disruption", ""), self._check_disruption)
        self._sync_soon(new.name)

    def lease_renewed(self, name: str) -> None:
        health = self.health.get(name)
        if health is not None:
            health.probe = self.clock.monotonic()

    def _observe(self, info: NodeInfo, record: bool) -> None:
        current = self.view.nodes.get(info.name)
        if current is None or info.name in self.health:
            return
        self.health[info.name] = Health(self.clock.monotonic(), current.heartbeat, bool(current.ready))
        if record:
            self.events.normal(_reference(current), "RegisteredNode",
                               f"Node {current.name} event: Registered Node {current.name} in Controller")
        self.sync_taints(current.name)

    # ---- the monitor

    def _arm(self) -> None:
        self._due = self.clock.monotonic() + MONITOR_PERIOD
        self.work.later(MONITOR_PERIOD, self.monitor, MONITOR)

    def monitor(self) -> None:
        """Every 5 s: nodes silent for the grace period become Unknown (each in a step of its own, so that
        one that cannot be written holds up no other); then the disruption check."""
        now = self.clock.monotonic()
        late = now - self._due > MONITOR_PERIOD
        self._arm()
        if late:
            for health in self.health.values():
                health.probe = now
            return
        for name in list(self.health):
            if self._silent(name):
                self.work.soon(("node-unknown", name), partial(self._mark_unknown, name))
        self._check_disruption()

    def _silent(self, name: str) -> bool:
        """The node's kubelet has not been heard from for its grace period, and the node is not Unknown yet."""
        health, info = self.health.get(name), self.view.nodes.get(name)
        if health is None or info is None:
            return False
        grace = GRACE_PERIOD if health.reported else STARTUP_GRACE_PERIOD
        return self.clock.monotonic() > health.probe + grace and not self._all_unknown(info)

    @staticmethod
    def _all_unknown(info: NodeInfo) -> bool:
        return all(info.conditions.get(kind) == "Unknown" for kind in HEALTH_CONDITIONS)

    def _mark_unknown(self, name: str) -> None:
        """tryUpdateNodeHealth past the grace period: the kubelet's conditions become Unknown (PUT status)."""
        node = self.client.api.registry("nodes").find("", name) if self._silent(name) else None
        if node is None:
            return
        status: JSON = node.setdefault("status", {})
        conditions: list[JSON] = status.setdefault("conditions", [])
        now = rfc3339(self.clock.now())
        was_ready = next((c.get("status") for c in conditions if c.get("type") == "Ready"), None)
        for kind in HEALTH_CONDITIONS:
            condition = next((c for c in conditions if c.get("type") == kind), None)
            if condition is None:
                conditions.append({"type": kind, "status": "Unknown",
                                   "lastHeartbeatTime": node["metadata"].get("creationTimestamp"),
                                   "lastTransitionTime": now, "reason": "NodeStatusNeverUpdated",
                                   "message": "Kubelet never posted node status."})
            elif condition.get("status") != "Unknown":
                condition.update(status="Unknown", reason="NodeStatusUnknown",
                                 message="Kubelet stopped posting node status.", lastTransitionTime=now)
        self.client.update("nodes", "", name, node, "status")
        if was_ready == "True":
            info = self.view.nodes.get(name)
            if info is not None:
                self.events.normal(_reference(info), "NodeNotReady", f"Node {name} status is now: NodeNotReady")
            # a step of its own: retried if a pod cannot be written, though the node is Unknown by then
            self.work.soon(("pods-not-ready", name), partial(self.mark_pods_not_ready, name))

    def mark_pods_not_ready(self, node: str) -> None:
        """MarkPodsNotReady: each pod's Ready condition becomes False (PUT pods/status), then an event."""
        pods = self.client.api.registry("pods")
        for key in sorted(self.view.usage_of(node).pods):
            pod = pods.find(*key)
            if pod is None or (pod.get("spec") or {}).get("nodeName") != node:
                continue
            ready = next((c for c in (pod.get("status") or {}).get("conditions") or [] if c.get("type") == "Ready"),
                         None)
            if ready is None or ready.get("status") == "False":
                continue
            ready.update(status="False", lastTransitionTime=rfc3339(self.clock.now()))
            try:
                written = self.client.update("pods", key[0], key[1], pod, "status")
            except NotFound:
                continue
            self.events.warning(pod_reference(written), "NodeNotReady", "Node is not ready")

    def _check_disruption(self) -> None:
        """Full disruption (no node ready): NoExecute taints go; when a node is ready again, they return."""
        all_down = bool(self.view.nodes) and all(info.ready != "True" for info in self.view.nodes.values())
        if all_down != self.all_down:
            self.all_down = all_down
            for name in self.view.nodes:
                self._sync_soon(name)

    # ---- taints

    def _sync_soon(self, name: str) -> None:
        self.work.soon(("taints", name), lambda: self.sync_taints(name))

    def sync_taints(self, name: str) -> None:
        """The node's controller taints as its conditions call for (doNoScheduleTaintingPass and the
        NoExecute pass): missing ones added with timeAdded, stale ones removed, others left alone."""
        info = self.view.nodes.get(name)
        if info is None or name not in self.health:
            return
        wanted: list[tuple[str, str]] = [(key, "NoSchedule") for (kind, status), key in CONDITION_TAINTS.items()
                                         if info.conditions.get(kind) == status]
        if info.unschedulable:
            wanted.append((UNSCHEDULABLE, "NoSchedule"))
        if info.ready in ("False", "Unknown") and not self.all_down:
            wanted.append((NOT_READY if info.ready == "False" else UNREACHABLE, "NoExecute"))
        taints = [taint for taint in info.taints if not _managed(taint) or (taint.get("key"), taint.get("effect"))
                  in wanted]
        present = {(taint.get("key"), taint.get("effect")) for taint in taints}
        now = rfc3339(self.clock.now())
        taints += [{"key": key, "effect": effect, "timeAdded": now} for key, effect in wanted
                   if (key, effect) not in present]
        if taints == info.taints:
            return
        old = {"spec": {"taints": info.taints}} if info.taints else {"spec": {}}
        new = {"spec": {"taints": taints}} if taints else {"spec": {}}
        self.client.patch("nodes", "", name, create_two_way_merge_patch(old, new, self._tree))


def _managed(taint: JSON) -> bool:
    """A taint this controller owns: one of its NoSchedule keys, or not-ready/unreachable NoExecute."""
    key, effect = taint.get("key"), taint.get("effect")
    return (effect == "NoSchedule" and key in NO_SCHEDULE_KEYS) or (effect == "NoExecute" and key in
                                                                    (NOT_READY, UNREACHABLE))


def _reference(info: NodeInfo) -> JSON:
    """The node controller's reference to a node (with its real uid, unlike the kubelet's)."""
    return {"kind": "Node", "name": info.name, "uid": info.uid, "apiVersion": "v1"}
