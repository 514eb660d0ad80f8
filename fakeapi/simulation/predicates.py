"""Whether a pod may run on a node, as kube-scheduler's filters and the kubelet's admission decide it:
taints and tolerations, the node's labels against nodeSelector and required node affinity."""

from __future__ import annotations

from typing import Any

from fakeapi.machinery.types import JSON

UNSCHEDULABLE_TAINT: JSON = {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}
NOT_SCHEDULABLE_EFFECTS = ("NoSchedule", "NoExecute")


def tolerates(toleration: JSON, taint: JSON) -> bool:
    """Upstream's Toleration.ToleratesTaint."""
    effect = toleration.get("effect") or ""
    if effect and effect != taint.get("effect"):
        return False
    key = toleration.get("key") or ""
    if key and key != taint.get("key"):
        return False
    operator = toleration.get("operator") or "Equal"
    if operator == "Exists":
        return True
    return operator == "Equal" and (toleration.get("value") or "") == (taint.get("value") or "")


def tolerated(tolerations: list[JSON], taint: JSON) -> bool:
    return any(tolerates(toleration, taint) for toleration in tolerations)


def first_untolerated(taints: list[JSON], tolerations: list[JSON], effects: tuple[str, ...]) -> JSON | None:
    """The first taint with one of `effects` that no toleration tolerates."""
    for taint in taints:
        if taint.get("effect") in effects and not tolerated(tolerations, taint):
            return taint
    return None


def eviction_delay(taints: list[JSON], tolerations: list[JSON]) -> float | None:
    """The taint eviction controller's verdict on a pod under NoExecute taints: seconds until it is
    evicted (0: now), or None when it tolerates them forever."""
    matching: list[JSON] = []
    for taint in taints:
        if taint.get("effect") != "NoExecute":
            continue
        found = [toleration for toleration in tolerations if tolerates(toleration, taint)]
        if not found:
            return 0
        matching.extend(found)
    if not matching:
        return None
    seconds: list[int] = [toleration["tolerationSeconds"] for toleration in matching
                          if isinstance(toleration.get("tolerationSeconds"), int)]
    if not seconds:
        return None
    return max(0, min(seconds))


def matches_node_selector(spec: JSON, node_name: str, labels: dict[str, str]) -> bool:
    """nodeSelector and the required node affinity (upstream's GetRequiredNodeAffinity(pod).Match)."""
    for key, value in (spec.get("nodeSelector") or {}).items():
        if labels.get(key) != value:
            return False
    required = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution")
    if not required:
        return True
    return any(_term_matches(term, node_name, labels) for term in required.get("nodeSelectorTerms") or [])


def _term_matches(term: JSON, node_name: str, labels: dict[str, str]) -> bool:
    """A term matches when all its expressions and fields do; an empty term matches no node."""
    expressions = term.get("matchExpressions") or []
    fields = term.get("matchFields") or []
    if not expressions and not fields:
        return False
    return (all(_requirement(requirement, labels) for requirement in expressions)
            and all(_requirement(requirement, {"metadata.name": node_name}) for requirement in fields))


def _requirement(requirement: JSON, labels: dict[str, str]) -> bool:
    key, operator = requirement.get("key", ""), requirement.get("operator", "")
    values: list[Any] = requirement.get("values") or []
    present = key in labels
    if operator == "In":
        return present and labels[key] in values
    if operator == "NotIn":
        return not present or labels[key] not in values
    if operator == "Exists":
        return present
    if operator == "DoesNotExist":
        return not present
    if operator in ("Gt", "Lt") and present and len(values) == 1:
        try:
            label, bound = int(labels[key]), int(values[0])
        except ValueError:
            return False
        return label > bound if operator == "Gt" else label < bound
    return False
