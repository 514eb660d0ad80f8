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

A cycle that fails otherwise (the binding refused, with a 409 or a 5xx, an API call of the cycle
failing) is a scheduler error, as handleSchedulingFailure handles it: unless the pod is gone or bound
meanwhile, it goes back to the queue after its back-off, and it gets a `FailedScheduling` event and
PodScheduled False (reason SchedulerError, the error as message: `running Bind plugin "DefaultBinder":
...` for a binding). No pod is ever left out of the queue.
"""

from __future__ import annotations

import heapq
import itertools
import logging

from fakeapi.machinery.clock import Clock, rfc3339
from fakeapi.machinery.errors import StatusError
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
BINDER = "DefaultBinder"
BACKOFF = ("scheduler-backoff",)  # the key of the timer for the earliest back-off to end

log = logging.getLogger("fakeapi.simulation")


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
        self.events = SeriesRecorder(client, names, work, DEFAULT_SCHEDULER, f"{DEFAULT_SCHEDULER}-fakeapi")
        self.preemption = Preemption(client, self.events, view)
        self._queue: list[tuple[int, int, PodKey]] = []  # (-priority, queued since, pod)
        self._queued: set[PodKey] = set()
        self._order = itertools.count()
        self._since: dict[PodKey, int] = {}  # when each pod last entered the queue (upstream's Timestamp)
        self._attempts: dict[PodKey, int] = {}
        self._backoff: dict[PodKey, float] = {}  # pods waiting out their back-off, until when
        self._backoff_heap: list[tuple[float, int, PodKey]] = []
        self.unschedulable: set[PodKey] = set()  # pods waiting for a change in the cluster
        self._next_start = 0
        self._tree = client.api.registry("pods").kind.patch_tree

    @property
    def clock(self) -> Clock:
        return self.client.api.clock

    def stop(self) -> None:
        self.work.cancel(BACKOFF)
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
        self.work.cancel(BACKOFF)
        if self._backoff_heap:
            self.work.later(self._backoff_heap[0][0] - self.clock.monotonic(), self._backed_off, BACKOFF)

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
                try:
                    self.schedule(key)
                except Exception as error:  # (a misfit is no error: `schedule` handles it)
                    self._scheduler_error(key, _message(error))
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
        except Exception as error:  # a 409, a 5xx, a timeout: RunBindPlugins' error
            self._scheduler_error(key, f'running Bind plugin "{BINDER}": {_message(error)}')
            return
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

    def _scheduler_error(self, key: PodKey, message: str) -> None:
        """handleSchedulingFailure for an error: the pod waits out its back-off and is tried again (unless it
        is gone, or was bound meanwhile); then the event and PodScheduled=False, reason SchedulerError."""
        log.debug("error scheduling pod %s/%s; retrying: %s", *key, message)
        pod = self.client.api.registry("pods").find(*key)
        self._attempts[key] = self._attempts.get(key, 0) + 1
        self._since[key] = next(self._order)
        if pod is None:
            return
        if not (pod.get("spec") or {}).get("nodeName"):
            self._queued.discard(key)
            self._activate(key)  # (with attempts made: after the back-off)
        self.events.record(pod_reference(pod), "Warning", "FailedScheduling", "Scheduling", message)
        old = conditions.as_decoded(pod.get("status") or {})
        new, changed = conditions.update_pod_condition(old, {
            "type": "PodScheduled", "status": "False", "lastProbeTime": None,
            "lastTransitionTime": rfc3339(self.clock.now()), "reason": "SchedulerError", "message": message})
        if old.get("nominatedNodeName"):  # clearNominatedNode
            new["nominatedNodeName"] = ""
            changed = True
        if not changed:
            return
        try:
            self.client.patch("pods", key[0], key[1],
                              create_two_way_merge_patch({"status": old}, {"status": new}, self._tree), "status")
        except Exception as error:  # upstream logs it: the pod is queued again all the same
            log.debug("error updating pod %s/%s: %s", *key, _message(error))


def _message(error: Exception) -> str:
    """An error as its Go error's text: a Status's message."""
    return error.message if isinstance(error, StatusError) else str(error)
