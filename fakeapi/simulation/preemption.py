"""DefaultPreemption, the scheduler's PostFilter: when a pod fits nowhere, pods of lower priority may make
room for it.

Only nodes whose filter failure preemption can resolve (resources) are candidates; on each, every
lower-priority pod is a potential victim, and as many as possible are spared, most important first.
The node chosen is the one whose victims matter least (highest victim priority, then the sum of their
priorities, then their number). Each victim gets the DisruptionTarget condition
(`PreemptionByScheduler`), is deleted gracefully and gets a `Preempted` event; the pod is nominated
to the node and is scheduled when the victims are gone. With no candidate, the message says why, node
by node (`preemption: 0/3 nodes are available: ...`). PodDisruptionBudgets and nominated pods'
reservations are not reproduced.
"""

from __future__ import annotations

from dataclasses import dataclass

from fakeapi.machinery.clock import rfc3339
from fakeapi.machinery.errors import NotFound
from fakeapi.machinery.types import JSON
from fakeapi.simulation import conditions, resources
from fakeapi.simulation.client import Client
from fakeapi.simulation.events import SeriesRecorder, pod_reference
from fakeapi.simulation.filters import PodFilter, Rejection, fit_error
from fakeapi.simulation.view import DEFAULT_SCHEDULER, ClusterView, NodeInfo, PodInfo

NOT_HELPFUL = "Preemption is not helpful for scheduling"
NO_VICTIMS = "No preemption victims found for incoming pod"


@dataclass(frozen=True, slots=True)
class Preempted:
    message: str  # what the FitError message adds ("" when victims were evicted)
    nominated_node: str | None  # where the pod is nominated (None: no change)


class Preemption:
    def __init__(self, client: Client, events: SeriesRecorder, view: ClusterView) -> None:
        self.client = client
        self.events = events
        self.view = view

    def preempt(self, fits: PodFilter, obj: JSON, nodes: list[NodeInfo],
                rejections: dict[str, Rejection]) -> Preempted:
        pod = fits.pod
        if fits.spec.get("preemptionPolicy") == "Never":
            return Preempted("preemption: not eligible due to preemptionPolicy=Never.", None)
        nominated = (obj.get("status") or {}).get("nominatedNodeName")
        if nominated and any(self.view.pods[key].deleting and self.view.pods[key].priority < pod.priority
                             for key in self.view.usage_of(nominated).pods):
            return Preempted("preemption: not eligible due to a terminating pod on the nominated node.", None)
        candidates: list[tuple[NodeInfo, list[PodInfo]]] = []
        outcomes: dict[str, Rejection] = {}
        for node in nodes:
            rejection = rejections.get(node.name)
            if rejection is None or not rejection.resolvable:
                continue  # counted as "not helpful"
            victims = self._victims(fits, node)
            if isinstance(victims, Rejection):
                outcomes[node.name] = victims
            else:
                candidates.append((node, victims))
        if not candidates:
            return Preempted("preemption: " + fit_error(len(nodes), outcomes, NOT_HELPFUL), None)
        node, victims = min(candidates, key=lambda candidate: (
            max(victim.priority for victim in candidate[1]), sum(victim.priority for victim in candidate[1]),
            len(candidate[1])))
        for victim in victims:
            self._evict(victim, obj, node.name)
        return Preempted("", node.name)

    def _victims(self, fits: PodFilter, node: NodeInfo) -> list[PodInfo] | Rejection:
        """SelectVictimsOnNode: the fewest lower-priority pods whose removal lets the pod fit, or why none do."""
        pod = fits.pod
        usage = self.view.usage_of(node.name)
        lower = sorted((self.view.pods[key] for key in usage.pods if self.view.pods[key].priority < pod.priority),
                       key=lambda other: (-other.priority, other.key))
        if not lower:
            return Rejection((NO_VICTIMS,), False)
        used = dict(usage.requested)
        for other in lower:
            resources.add(used, other.requests, -1)
        count = len(usage.pods) - len(lower)
        rejection = fits(node, count, used)
        if rejection is not None:
            return rejection
        victims: list[PodInfo] = []
        for other in lower:  # spare the most important ones that can stay
            resources.add(used, other.requests)
            if fits(node, count + 1, used) is None:
                count += 1
            else:
                resources.add(used, other.requests, -1)
                victims.append(other)
        return victims

    def _evict(self, victim: PodInfo, preemptor: JSON, node: str) -> None:
        pod = self.client.api.registry("pods").find(*victim.key)
        if pod is None or pod["metadata"].get("deletionTimestamp"):
            return
        try:
            conditions.patch_condition(self.client, pod, {
                "type": "DisruptionTarget", "status": "True", "lastProbeTime": None,
                "lastTransitionTime": rfc3339(self.client.api.clock.now()), "reason": "PreemptionByScheduler",
                "message": f"{DEFAULT_SCHEDULER}: preempting to accommodate a higher priority pod"}, with_uid=False)
            self.client.delete("pods", *victim.key)
        except NotFound:
            return
        self.events.record(pod_reference(pod), "Normal", "Preempted", "Preempting",
                           f"Preempted by pod {preemptor['metadata'].get('uid', '')} on node {node}",
                           related=pod_reference(preemptor))
