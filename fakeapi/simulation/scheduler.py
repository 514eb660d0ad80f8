"""kube-scheduler's default profile, simulated.

Pods waiting for `default-scheduler` (no nodeName, no scheduling gates) are taken by priority, then in
order of arrival. Each is filtered against the nodes as the default filters do, in their order
(NodeUnschedulable, TaintToleration, NodeAffinity, NodeResourcesFit: requests against allocatable minus
what the node's pods request, and the pod count); the nodes examined start where the last pod's search
stopped, and the search ends once upstream's number of feasible nodes is found (all of them below 100
nodes). The pod goes to the feasible node with the most cpu and memory left (upstream's LeastAllocated
score; the other scores are not reproduced), through POST pods/{name}/binding, and a `Scheduled` event.

A pod that fits nowhere gets upstream's FitError message (`0/3 nodes are available: ...` with the
preemption part) in a `FailedScheduling` event and its PodScheduled condition (Unschedulable), then
waits for a change that may let it fit (a node added or changed, a pod gone from a node), with
upstream's back-off between attempts (1 s, doubling to 10 s). Preemption evicts lower-priority pods as
DefaultPreemption does (see preemption.py).
"""

from __future__ import annotations

import heapq
import itertools

from fakeapi.machinery.clock import Clock, Timer, rfc3339
from fakeapi.machinery.errors import Conflict
from fakeapi.machinery.patch import create_two_way_merge_patch
from fakeapi.machinery.types import JSON
from fakeapi.simulation import conditions
from fakeapi.simulation.client import Client
from fakeapi.simulation.events import EventNames, SeriesRecorder, pod_reference
from fakeapi.simulation.filters import PodFilter, find_node, fit_error
from fakeapi.simulation.preemption import Preemption
from fakeapi.simulation.view import DEFAULT_SCHEDULER, ClusterView, NodeInfo, PodInfo, PodKey
from fakeapi.simulation.work import Work

INITIAL_BACKOFF, MAX_BACKOFF = 1.0, 10.0  # podInitialBackoffDuration, podMaxBackoffDuration
MIN_FEASIBLE_NODES, MIN_FEASIBLE_PERCENT, BASE_PERCENT = 100, 5, 50
NO_NODES = "no nodes available to schedule pods"


def feasible_nodes_to_find(total: int) -> int:
    """Upstream's numFeasibleNodesToFind with the adaptive percentage of nodes to score."""
    if total < MIN_FEASIBLE_NODES:
        return total
    percent = max(BASE_PERCENT - total // 125, MIN_FEASIBLE_PERCENT)
    return max(total * percent // 100, MIN_FEASIBLE_NODES)


class Scheduler:
    def __init__(self, client: Client, names: EventNames, work: Work, view: ClusterView) -> None:
        self.client = client
        self.work = work
        self.view = view
        self.events = SeriesRecorder(client, names, DEFAULT_SCHEDULER, f"{DEFAULT_SCHEDULER}-fakeapi")
        self.preemption = Preemption(client, self.events, view)
        self._queue: list[tuple[int, int, PodKey]] = []  # (-priority, queued since, pod)
        self._queued: set[PodKey] = set()
        self._order = itertools.count()
        self._since: dict[PodKey, int] = {}  # when each pod last entered the queue (upstream's Timestamp)
        self._attempts: dict[PodKey, int] = {}
        self._backoff: dict[PodKey, float] = {}  # pods waiting out their back-off, until when
        self._backoff_heap: list[tuple[float, int, PodKey]] = []
        self._backoff_timer: Timer | None = None
        self.unschedulable: set[PodKey] = set()  # pods waiting for a change in the cluster
        self._next_start = 0
        self._tree = client.api.registry("pods").kind.patch_tree

    @property
    def clock(self) -> Clock:
        return self.client.api.clock

    def stop(self) -> None:
        self.work.cancel(self._backoff_timer)
        self._backoff_timer = None
        self._backoff.clear()
        self._backoff_heap.clear()
        self._since.clear()
        self._queue.clear()
        self._queued.clear()
        self._attempts.clear()
        self.unschedulable.clear()

    # ---- changes

    def pod_changed(self, old: PodInfo | None, new: PodInfo | None) -> None:
        key = (new or old).key  # type: ignore[union-attr]
        if new is None or not new.pending:
            self._forget(key)
            if old is not None and old.on_node and not (new is not None and new.on_node):
                self.cluster_changed()  # a pod left its node: room for others
            return
        if old is None or not old.pending or old.spec != new.spec:
            self._activate(key)  # a status write alone (ours, say) changes nothing

    def node_changed(self, old: NodeInfo | None, new: NodeInfo | None) -> None:
        if new is not None and (old is None or old.scheduling != new.scheduling):
            self.cluster_changed()

    def cluster_changed(self) -> None:
        """Something may let waiting pods fit: they are tried again (after their back-off)."""
        for key in list(self.unschedulable):
            self._activate(key)

    def _forget(self, key: PodKey) -> None:
        self._queued.discard(key)  # (its queue entry is skipped when popped)
        self.unschedulable.discard(key)
        self._attempts.pop(key, None)
        self._since.pop(key, None)
        self._backoff.pop(key, None)  # (its heap entry is skipped)

    def _activate(self, key: PodKey) -> None:
        self.unschedulable.discard(key)
        if key in self._queued or key in self._backoff:
            return
        attempts = self._attempts.get(key, 0)
        if attempts:
            until = self.clock.monotonic() + min(INITIAL_BACKOFF * 2 ** (attempts - 1), MAX_BACKOFF)
            self._backoff[key] = until
            heapq.heappush(self._backoff_heap, (until, self._since.get(key, 0), key))
            if self._backoff_heap[0][2] == key:
                self._arm_backoff()
            return
        self._push(key)

    def _arm_backoff(self) -> None:
        """One timer for the earliest back-off to end: pods whose back-off ends together queue together."""
        self.work.cancel(self._backoff_timer)
        self._backoff_timer = None
        if self._backoff_heap:
            self._backoff_timer = self.work.later(self._backoff_heap[0][0] - self.clock.monotonic(),
                                                  self._backed_off)

    def _backed_off(self) -> None:
        now = self.clock.monotonic()
        while self._backoff_heap and self._backoff_heap[0][0] <= now:
            until, _since, key = heapq.heappop(self._backoff_heap)
            if self._backoff.get(key) == until:
                del self._backoff[key]
                self._push(key)
        self._arm_backoff()

    def _push(self, key: PodKey) -> None:
        info = self.view.pods.get(key)
        if info is None or not info.pending:
            return
        self._queued.add(key)
        since = self._since.setdefault(key, next(self._order))
        heapq.heappush(self._queue, (-info.priority, since, key))
        self.work.soon(("schedule",), self._schedule_next)

    # ---- a scheduling cycle

    def _schedule_next(self) -> None:
        """Schedule the first pod of the queue, then come back for the next."""
        while self._queue:
            _priority, _since, key = heapq.heappop(self._queue)
            if key in self._queued:
                self._queued.discard(key)
                if self._queue:
                    self.work.soon(("schedule",), self._schedule_next)
                self.schedule(key)
                return

    def schedule(self, key: PodKey) -> None:
        info = self.view.pods.get(key)
        pod = self.client.api.registry("pods").find(*key)
        if info is None or pod is None or not info.pending:
            return
        spec: JSON = pod.get("spec") or {}
        nodes = list(self.view.nodes.values())
        if not nodes:
            self._failed(key, pod, NO_NODES)
            return
        fits = PodFilter(info, spec)
        total = len(nodes)
        best, examined, rejections = find_node(fits, nodes, self._next_start % total,
                                               feasible_nodes_to_find(total))
        self._next_start = (self._next_start + examined) % total
        if best is not None:
            self._bind(key, pod, best)
            return
        message = fit_error(total, rejections)
        preempted = self.preemption.preempt(fits, pod, nodes, rejections)
        if preempted.message:
            message += f" {preempted.message}."
        self._failed(key, pod, message, preempted.nominated_node)

    def _bind(self, key: PodKey, pod: JSON, node: NodeInfo) -> None:
        meta: JSON = pod["metadata"]
        try:
            self.client.bind(key[0], key[1], meta.get("uid", ""), node.name)
        except Conflict:
            return  # bound meanwhile, or being deleted
        self.events.record(pod_reference(pod), "Normal", "Scheduled", "Binding",
                           f"Successfully assigned {key[0]}/{key[1]} to {node.name}")

    def _failed(self, key: PodKey, pod: JSON, message: str, nominated_node: str | None = None) -> None:
        """handleSchedulingFailure: the event, then PodScheduled=False (patched only when it changed)."""
        self.events.record(pod_reference(pod), "Warning", "FailedScheduling", "Scheduling", message)
        old = conditions.as_decoded(pod.get("status") or {})
        new, changed = conditions.update_pod_condition(old, {
            "type": "PodScheduled", "status": "False", "lastProbeTime": None,
            "lastTransitionTime": rfc3339(self.clock.now()), "reason": "Unschedulable", "message": message})
        if nominated_node is not None and nominated_node != old.get("nominatedNodeName"):
            new["nominatedNodeName"] = nominated_node
            changed = True
        if changed:
            patch = create_two_way_merge_patch({"status": old}, {"status": new}, self._tree)
            self.client.patch("pods", key[0], key[1], patch, "status")
        self._attempts[key] = self._attempts.get(key, 0) + 1
        self._since[key] = next(self._order)
        self.unschedulable.add(key)
