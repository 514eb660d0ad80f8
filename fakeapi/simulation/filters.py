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


def find_node(fits: PodFilter, nodes: list[NodeInfo], start: int,
              wanted: int) -> tuple[NodeInfo | None, int, dict[str, Rejection]]:
    """Examine the nodes from `start` on (round the list) until `wanted` feasible ones are found: the best of
    them by LeastAllocated (the first of the best, in the order examined), how many nodes were examined,
    and why the others were rejected.

    Every pod goes through this loop over hundreds of nodes, so it is kept tight: the filters run in full
    only where they may reject. On a node without taints that is not cordoned, a pod with no node selector
    or affinity that asks for no more than cpu and memory needs only room, which is checked first."""
    total = len(nodes)
    requests = fits.pod.requests
    cpu, memory = requests.get(resources.CPU, 0), requests.get(resources.MEMORY, 0)
    nonzero_cpu, nonzero_memory = resources.nonzero(requests)
    simple = not fits.selects and all(name in (resources.CPU, resources.MEMORY) for name, _ in fits.requests)
    best: NodeInfo | None = None
    best_score, found, examined, index = -1.0, 0, 0, start
    rejections: dict[str, Rejection] = {}
    while examined < total and found < wanted:
        node = nodes[index]
        index = index + 1 if index + 1 < total else 0
        examined += 1
        usage = node.usage
        if not (simple and node.plain and len(usage.pods) < node.max_pods and cpu <= node.cpu - usage.cpu
                and memory <= node.memory - usage.memory):
            rejection = fits(node, len(usage.pods), usage.requested)
            if rejection is not None:
                rejections[node.name] = rejection
                continue
        found += 1
        # LeastAllocated: the share of cpu and of memory left once the pod is there (a node with none has 0)
        free_cpu = node.cpu - usage.nonzero_cpu - nonzero_cpu
        free_memory = node.memory - usage.nonzero_memory - nonzero_memory
        score = (free_cpu / node.cpu if free_cpu > 0 else 0.0) + (free_memory / node.memory if free_memory > 0 else 0.0)
        if score > best_score:
            best, best_score = node, score
    return best, examined, rejections
