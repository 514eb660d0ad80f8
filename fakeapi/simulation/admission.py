"""The kubelet's admission of a pod bound to its node (lifecycle/predicate.go): resources against the node's
allocatable minus what the pods it admitted request, node affinity, NoExecute taints. Only the first
reason that fails counts."""

from __future__ import annotations

from collections.abc import Iterable

from fakeapi.machinery.types import JSON
from fakeapi.simulation import predicates, resources
from fakeapi.simulation.view import NodeInfo, PodInfo


def rejection(pod: PodInfo, spec: JSON, node: NodeInfo, admitted: Iterable[PodInfo]) -> tuple[str, str] | None:
    """Why the node's kubelet rejects the pod (reason, message), or None when it admits it."""
    used: resources.Resources = {}
    count = 0
    for other in admitted:
        resources.add(used, other.requests)
        count += 1
    shortages = resources.shortages(pod.requests, count, used, node.allocatable)
    if shortages:
        shortage = shortages[0]
        return (f"OutOf{shortage.resource}",
                f"Node didn't have enough resource: {shortage.resource}, requested: {shortage.requested}, "
                f"used: {shortage.used}, capacity: {shortage.capacity}")
    if not predicates.matches_node_selector(spec, node.name, node.labels):
        return "NodeAffinity", "Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector"
    if predicates.first_untolerated(node.taints, spec.get("tolerations") or [], ("NoExecute",)):
        return "TaintToleration", "Predicate TaintToleration failed: node(s) had taints that the pod didn't tolerate"
    return None
