"""The disruption controller (disruption-controller), after upstream's pkg/controller/disruption: the status
of each PodDisruptionBudget, which the eviction API reads.

The pods are those its selector matches in its namespace. With an integer minAvailable, the expected count is
the number of pods and the desired healthy count is minAvailable; with a percentage, or maxUnavailable, the
expected count is the sum of the replicas of the pods' controllers (ReplicationControllers, Deployments through
their ReplicaSets, ReplicaSets, StatefulSets; a pod without one is unmanaged: `UnmanagedPods`). Healthy pods are
Ready and not being deleted nor just evicted (`disruptedPods`, kept 2 minutes). `disruptionsAllowed` is the
healthy pods beyond the desired count (0 while no pod is expected), and the DisruptionAllowed condition says
SufficientPods or InsufficientPods. No matching pod: a `NoPods` event."""

from __future__ import annotations

import copy
import math
from datetime import datetime

from fakeapi.machinery.clock import parse_rfc3339, rfc3339
from fakeapi.machinery.types import JSON
from fakeapi.simulation.controllers.context import Context
from fakeapi.simulation.controllers.informers import Informer, Key
from fakeapi.simulation.controllers.podcontrol import reference, selector
from fakeapi.simulation.controllers.pods import Pod

SERVICE_ACCOUNT = COMPONENT = "disruption-controller"
DELETION_TIMEOUT = 120.0  # seconds an evicted pod counts as disrupted while it is not deleted yet


class DisruptionController:
    def __init__(self, context: Context) -> None:
        self.context = context
        self.work = context.work
        self.client = context.client(SERVICE_ACCOUNT)
        self.events = context.recorder(self.client, COMPONENT)
        self.budgets: Informer[JSON] = context.informers.objects("poddisruptionbudgets.policy")
        self.pods: Informer[Pod] = context.informers.pods()
        self.owners = {kind: context.informers.objects(resource) for kind, resource in (
            ("ReplicationController", "replicationcontrollers"), ("ReplicaSet", "replicasets.apps"),
            ("Deployment", "deployments.apps"), ("StatefulSet", "statefulsets.apps"))}
        self.budgets.add_handler(self._budget_changed)
        self.pods.add_handler(self._pod_changed)

    def start(self) -> None:
        for budget in self.budgets.items():
            self._queue(_key(budget))

    def stop(self) -> None:
        pass

    def _queue(self, key: Key) -> None:
        self.work.soon((COMPONENT, key), lambda: self.sync(*key))

    def _budget_changed(self, old: JSON | None, new: JSON | None) -> None:
        if new is not None:
            self._queue(_key(new))

    def _pod_changed(self, old: Pod | None, new: Pod | None) -> None:
        for pod in (old, new):
            if pod is None:
                continue
            for budget in self.budgets.items(pod.namespace):
                match = selector((budget.get("spec") or {}).get("selector"))
                if match is not None and match.matches(pod.labels):
                    self._queue(_key(budget))

    def sync(self, namespace: str, name: str) -> None:
        stored = self.budgets.get(namespace, name)
        if stored is None:
            return
        budget = copy.deepcopy(stored)
        spec: JSON = budget.get("spec") or {}
        match = selector(spec.get("selector"))
        pods = [pod for pod in self.pods.items(namespace) if match is not None and match.matches(pod.labels)]
        if not pods:
            self.events.normal(reference(budget), "NoPods", "No matching pods found")
        expected, desired, unmanaged = self._expected(spec, pods)
        if unmanaged:
            self.events.warning(reference(budget), "UnmanagedPods", (
                "Pods selected by this PodDisruptionBudget (selector: " + _selector_text(spec.get("selector"))
                + ") were found to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, "
                "which may result in undefined behavior. To account for these pods please set \".spec.minAvailable\" "
                "field of the PDB to an integer value."))
        now = self.context.now()
        disrupted, recheck = _disrupted(budget, pods, now)
        healthy = sum(1 for pod in pods if not pod.deleting and pod.name not in disrupted and pod.ready)
        allowed = healthy - desired
        if expected <= 0 or allowed <= 0:
            allowed = 0
        self._update_status(budget, healthy, desired, expected, allowed, disrupted, now)
        if recheck is not None:
            self.work.later(recheck, lambda: self.sync(namespace, name), key=(COMPONENT, "recheck", (namespace, name)))

    def _expected(self, spec: JSON, pods: list[Pod]) -> tuple[int, int, list[str]]:
        """getExpectedPodCount: (expected pods, desired healthy pods, unmanaged pods)."""
        max_unavailable = spec.get("maxUnavailable")
        min_available = spec.get("minAvailable")
        if max_unavailable is not None:
            expected, unmanaged = self._expected_scale(pods)
            return expected, max(0, expected - _scaled(max_unavailable, expected)), unmanaged
        if isinstance(min_available, int):
            return len(pods), min_available, []
        if min_available is not None:
            expected, unmanaged = self._expected_scale(pods)
            return expected, _scaled(min_available, expected), unmanaged
        return len(pods), 0, []

    def _expected_scale(self, pods: list[Pod]) -> tuple[int, list[str]]:
        """getExpectedScale: the replicas of the pods' controllers, each counted once."""
        counted: dict[str, int] = {}
        unmanaged: list[str] = []
        for pod in pods:
            ref = next((ref for ref in pod.owners if ref.get("controller")), None)
            if ref is None:
                unmanaged.append(pod.name)
                continue
            found = self._controller(pod.namespace, ref)
            if found is not None:
                uid, replicas = found
                counted[uid] = replicas
        return sum(counted.values()), unmanaged

    def _controller(self, namespace: str, ref: JSON) -> tuple[str, int] | None:
        """The finders: the pod's controller (a ReplicaSet's Deployment when it has one) and its replicas."""
        informer = self.owners.get(str(ref.get("kind", "")))
        owner = informer.get(namespace, str(ref.get("name", ""))) if informer is not None else None
        if owner is None or owner["metadata"].get("uid") != ref.get("uid"):
            return None
        if ref.get("kind") == "ReplicaSet":
            parent_ref = next((r for r in owner["metadata"].get("ownerReferences") or [] if r.get("controller")), None)
            if parent_ref is not None and parent_ref.get("kind") == "Deployment":
                return self._controller(namespace, parent_ref)
        replicas = (owner.get("spec") or {}).get("replicas")
        return owner["metadata"]["uid"], 1 if replicas is None else int(replicas)

    def _update_status(self, budget: JSON, healthy: int, desired: int, expected: int, allowed: int,
                       disrupted: dict[str, str], now: datetime) -> None:
        status: JSON = budget.get("status") or {}
        generation = int(budget["metadata"].get("generation") or 0)
        wanted_condition = ("True", "SufficientPods") if allowed > 0 else ("False", "InsufficientPods")
        conditions: list[JSON] = [dict(c) for c in status.get("conditions") or []]
        current = next((c for c in conditions if c.get("type") == "DisruptionAllowed"), None)
        if current is None:
            current = {"type": "DisruptionAllowed", "lastTransitionTime": rfc3339(now)}
            conditions.append(current)
        elif current.get("status") != wanted_condition[0]:
            current["lastTransitionTime"] = rfc3339(now)
        current.update(status=wanted_condition[0], reason=wanted_condition[1], message="",
                       observedGeneration=generation)
        new_status: JSON = {"observedGeneration": generation, "disruptionsAllowed": allowed,
                            "currentHealthy": healthy, "desiredHealthy": desired, "expectedPods": expected,
                            "conditions": conditions}
        if disrupted:
            new_status["disruptedPods"] = disrupted
        if _same(status, new_status):
            return
        budget["status"] = new_status
        meta: JSON = budget["metadata"]
        self.client.update("poddisruptionbudgets", meta.get("namespace", ""), meta["name"], budget,
                           subresource="status", group="policy")


def _disrupted(budget: JSON, pods: list[Pod], now: datetime) -> tuple[dict[str, str], float | None]:
    """buildDisruptedPodMap: the evicted pods not yet being deleted, for 2 minutes from their eviction; and
    when the oldest of them expires."""
    recorded: dict[str, str] = (budget.get("status") or {}).get("disruptedPods") or {}
    by_name = {pod.name: pod for pod in pods}
    kept: dict[str, str] = {}
    recheck: float | None = None
    for name, stamp in recorded.items():
        pod = by_name.get(name)
        if pod is None or pod.deleting:
            continue
        left = DELETION_TIMEOUT - (now - parse_rfc3339(stamp)).total_seconds()
        if left <= 0:
            continue
        kept[name] = stamp
        recheck = left if recheck is None else min(recheck, left)
    return kept, recheck


def _scaled(value: object, total: int) -> int:
    """intstr.GetScaledValueFromIntOrPercent, rounding up."""
    if isinstance(value, int):
        return value
    text = str(value)
    if text.endswith("%") and text[:-1].isdigit():
        return math.ceil(int(text[:-1]) * total / 100)
    return int(text) if text.isdigit() else 0


def _same(old: JSON, new: JSON) -> bool:
    def stored(status: JSON) -> JSON:
        return {key: value for key, value in status.items() if value not in (None, {}, []) and
                not (key == "observedGeneration" and value == 0)}

    return stored(old) == stored(new)


def _selector_text(label_selector: JSON | None) -> str:
    """The selector as Go's %v prints a *metav1.LabelSelector."""
    if not label_selector:
        return "nil"
    labels = " ".join(f"{k}:{v}" for k, v in sorted((label_selector.get("matchLabels") or {}).items()))
    return (f"&LabelSelector{{MatchLabels:map[string]string{{{labels}}},"
            "MatchExpressions:[]LabelSelectorRequirement{},}")


def _key(obj: JSON) -> Key:
    return obj["metadata"].get("namespace", ""), obj["metadata"]["name"]
