"""The taint eviction controller (taint-eviction-controller): pods on a node with NoExecute taints they
do not tolerate are deleted at once; pods that tolerate them for `tolerationSeconds` are deleted when
the shortest of those runs out, counted from when the controller saw the taint; pods that tolerate
them forever stay. Before deleting, it records `TaintManagerEviction` (`Marking for deletion Pod ns/name`)
and gives the pod the DisruptionTarget condition (`DeletionByTaintManager`); an eviction the taints'
removal cancels records `Cancelling deletion of Pod ns/name`."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

from fakeapi.machinery.clock import rfc3339
from fakeapi.machinery.types import JSON
from fakeapi.simulation import conditions, predicates
from fakeapi.simulation.client import Client
from fakeapi.simulation.events import EventNames, EventRecorder, pod_reference
from fakeapi.simulation.view import ClusterView, NodeInfo, PodInfo, PodKey
from fakeapi.simulation.work import Work

CONTROLLER = "taint-eviction-controller"


@dataclass(slots=True)
class Eviction:
    started: float  # when the controller first saw the taints (clock.monotonic())
    due: float
    timer: Hashable  # the Work key of the eviction's step


class TaintEviction:
    def __init__(self, client: Client, names: EventNames, work: Work, view: ClusterView) -> None:
        self.client = client
        self.work = work
        self.view = view
        self.events = EventRecorder(client, names, work, CONTROLLER)
        self.evictions: dict[PodKey, Eviction] = {}

    def stop(self) -> None:
        for eviction in self.evictions.values():
            self.work.cancel(eviction.timer)
        self.evictions.clear()

    def node_changed(self, old: NodeInfo | None, new: NodeInfo | None) -> None:
        if new is None or (old is not None and _no_execute(old.taints) == _no_execute(new.taints)):
            return
        for key in sorted(self.view.usage_of(new.name).pods):
            self._check_soon(key)

    def pod_changed(self, old: PodInfo | None, new: PodInfo | None) -> None:
        if new is None or not new.on_node:
            key = (new or old).key  # type: ignore[union-attr]
            eviction = self.evictions.pop(key, None)
            if eviction is not None:
                self.work.cancel(eviction.timer)
            return
        if old is None or old.node != new.node or old.spec != new.spec:
            self._check_soon(new.key)

    def _check_soon(self, key: PodKey) -> None:
        self.work.soon(("taint-eviction", key), lambda: self.check(key))

    def check(self, key: PodKey) -> None:
        """processPodOnNode: evict now, later, or never; cancel an eviction the taints no longer call for."""
        info = self.view.pods.get(key)
        node = self.view.nodes.get(info.node) if info is not None else None
        if node is None or (not node.taints and key not in self.evictions):
            return  # (most nodes have no taints: no need to read the pod)
        pod = self.client.api.registry("pods").find(*key)
        if info is None or pod is None or not info.on_node:
            return
        taints = _no_execute(node.taints)
        delay = predicates.eviction_delay(taints, (pod.get("spec") or {}).get("tolerations") or []) \
            if taints else None
        scheduled = self.evictions.get(key)
        if delay is None:
            if scheduled is not None:
                self._cancel(key, pod)
            return
        now = self.client.api.clock.monotonic()
        started = scheduled.started if scheduled is not None else now
        if scheduled is not None:
            if started + delay >= scheduled.due:
                return  # already due no later than this
            self._cancel(key, pod)
        due = started + delay
        if due <= now:
            self.work.soon(("evict", key), lambda: self.evict(key))
            return
        self.evictions[key] = Eviction(started, due, self.work.later(due - now, lambda: self.evict(key)))

    def _cancel(self, key: PodKey, pod: JSON) -> None:
        eviction = self.evictions.pop(key)
        self.work.cancel(eviction.timer)
        self.events.normal(pod_reference(pod), "TaintManagerEviction", f"Cancelling deletion of Pod {key[0]}/{key[1]}")

    def evict(self, key: PodKey) -> None:
        """Delete the pod (its eviction stays listed until then: a retry is cancelled with it)."""
        pod = self.client.api.registry("pods").find(*key)
        if pod is None:
            self.evictions.pop(key, None)
            return
        self.events.normal(pod_reference(pod), "TaintManagerEviction", f"Marking for deletion Pod {key[0]}/{key[1]}")
        conditions.patch_condition(self.client, pod, {
            "type": "DisruptionTarget", "status": "True", "lastProbeTime": None,
            "lastTransitionTime": rfc3339(self.client.api.clock.now()), "reason": "DeletionByTaintManager",
            "message": "Taint manager: deleting due to NoExecute taint"}, with_uid=True)
        if not pod["metadata"].get("deletionTimestamp"):
            self.client.delete("pods", *key)
        self.evictions.pop(key, None)


def _no_execute(taints: list[JSON]) -> list[JSON]:
    return [taint for taint in taints if taint.get("effect") == "NoExecute"]
