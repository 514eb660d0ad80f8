"""kube-scheduler's default filters, in their order, and the FitError message built from what they say."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from fakeapi.machinery.types import JSON
from fakeapi.simulation import predicates, resources
from fakeapi.simulation.view import NodeInfo, PodInfo


@dataclass(frozen=True, slots=True)
class Rejection:
    """Why a node cannot take a pod: the first failing filter's reasons, and whether preemption could
    change that (Unschedulable) or not (UnschedulableAndUnresolvable)."""

    reasons: tuple[str, ...]
    resolvable: bool


def fit_error(total: int, rejections: dict[str, Rejection], absent: str = "") -> str:
    """FitError.Error(): the histogram of reasons, each `<count> <reason>`, sorted as strings. Nodes with no
    rejection count under `absent`."""
    counts: Counter[str] = Counter()
    for rejection in rejections.values():
        counts.update(rejection.reasons)
    if absent and total > len(rejections):
        counts[absent] += total - len(rejections)
    histogram = sorted(f"{count} {reason}" for reason, count in counts.items())
    message = f"0/{total} nodes are available:"
    return message + f" {', '.join(histogram)}." if histogram else message


UNSCHEDULABLE = Rejection(("node(s) were unschedulable",), False)
AFFINITY = Rejection(("node(s) didn't match Pod's node affinity/selector",), False)


class PodFilter:
    """The default filters for one pod, prepared once per scheduling cycle; calling it with a node (its pod
    count and what its pods request) says why the node cannot take the pod, or None when it can."""

    def __init__(self, pod: PodInfo, spec: JSON) -> None:
        self.pod = pod
        self.spec = spec
        self.tolerations: list[JSON] = spec.get("tolerations") or []
        self.tolerates_unschedulable = predicates.tolerated(self.tolerations, predicates.UNSCHEDULABLE_TAINT)
        affinity = (spec.get("affinity") or {}).get("nodeAffinity") or {}
        self.selects = bool(spec.get("nodeSelector") or affinity.get("requiredDuringSchedulingIgnoredDuringExecution"))
        self.requests = [(name, amount) for name, amount in pod.requests.items() if amount > 0]

    def __call__(self, node: NodeInfo, pods_on_node: int, used: resources.Resources) -> Rejection | None:
        if node.unschedulable and not self.tolerates_unschedulable:
            return UNSCHEDULABLE
        if node.taints:
            taint = predicates.first_untolerated(node.taints, self.tolerations, predicates.NOT_SCHEDULABLE_EFFECTS)
            if taint is not None:
                return Rejection((f"node(s) had untolerated taint {{{taint.get('key', '')}: "
                                  f"{taint.get('value', '')}}}",), False)
        if self.selects and not predicates.matches_node_selector(self.spec, node.name, node.labels):
            return AFFINITY
        allocatable = node.allocatable
        short = pods_on_node + 1 > allocatable.get(resources.PODS, 0)
        for name, amount in self.requests:
            short = short or amount > allocatable.get(name, 0) - used.get(name, 0)
        if short:
            shortages = resources.shortages(self.pod.requests, pods_on_node, used, allocatable)
            return Rejection(tuple(shortage.reason for shortage in shortages), True)
        return None
