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


def filter_node(pod: PodInfo, spec: JSON, node: NodeInfo, pods_on_node: int,
                used: resources.Resources) -> Rejection | None:
    """The default filters in order; the first that fails decides."""
    tolerations: list[JSON] = spec.get("tolerations") or []
    if node.unschedulable and not predicates.tolerated(tolerations, predicates.UNSCHEDULABLE_TAINT):
        return Rejection(("node(s) were unschedulable",), False)
    taint = predicates.first_untolerated(node.taints, tolerations, predicates.NOT_SCHEDULABLE_EFFECTS)
    if taint is not None:
        return Rejection((f"node(s) had untolerated taint {{{taint.get('key', '')}: {taint.get('value', '')}}}",),
                         False)
    if not predicates.matches_node_selector(spec, node.name, node.labels):
        return Rejection(("node(s) didn't match Pod's node affinity/selector",), False)
    shortages = resources.shortages(pod.requests, pods_on_node, used, node.allocatable)
    if shortages:
        return Rejection(tuple(shortage.reason for shortage in shortages), True)
    return None
