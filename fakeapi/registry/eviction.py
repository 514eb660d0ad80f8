"""Evicting a pod as upstream's EvictionREST does (POST pods/{name}/eviction, what `kubectl drain` sends):
a pod no PodDisruptionBudget guards, or one that is not running, is deleted with the Eviction's
deleteOptions; one a budget guards is deleted only while the budget's status allows a disruption (which the
eviction takes, recording the pod in `status.disruptedPods`), else the answer is upstream's 429. Before a
pod goes it gets the DisruptionTarget condition (EvictionByEvictionAPI). The budgets' status is the
disruption controller's: it is read as stored.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from fakeapi.machinery.clock import Clock, rfc3339
from fakeapi.machinery.errors import (
    BadRequest,
    Conflict,
    Forbidden,
    StatusError,
    TooManyRequests,
    with_retry_after,
)
from fakeapi.machinery.jsonvalues import copy_json
from fakeapi.machinery.schema.definitions import KUBERNETES_1_32
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation.labelselector import selector_is_empty, selector_is_valid, selector_matches
from fakeapi.machinery.validation.values import as_dict, as_int, as_list
from fakeapi.registry.binding import SUCCESS
from fakeapi.registry.decoding import decode_body
from fakeapi.registry.generic import Registry
from fakeapi.registry.options import DeleteOptions, WriteOptions

KIND = "Eviction"
# the endpoint takes an Eviction of either version policy has served
API_VERSIONS = ("policy/v1", "policy/v1beta1")
DEFINITION = "io.k8s.api.policy.v1.Eviction"
VIOLATES = "Cannot evict pod as it would violate the pod's disruption budget."
MAX_DISRUPTED_PODS = 2000
DISRUPTION_TARGET: JSON = {"type": "DisruptionTarget", "status": "True", "lastProbeTime": None,
                           "reason": "EvictionByEvictionAPI", "message": "Eviction API: evicting"}


def decode_eviction(body: Any, options: WriteOptions) -> JSON:
    """An Eviction body shape-checked as the create handler does; unknown fields per fieldValidation."""
    return decode_body(KUBERNETES_1_32.compiled(DEFINITION).decoder(), body, KIND, API_VERSIONS, options)


def too_many_requests(cause: str, retry_after: int) -> StatusError:
    """NewTooManyRequests with the budget's cause (a Retry-After only when there is a wait to suggest)."""
    error = TooManyRequests(VIOLATES, {"causes": [{"reason": "DisruptionBudget", "message": cause}]})
    return with_retry_after(error, retry_after) if retry_after else error


def ready(pod: JSON) -> bool:
    return any(as_dict(c).get("type") == "Ready" and as_dict(c).get("status") == "True"
               for c in as_list(as_dict(pod.get("status")).get("conditions")))


@dataclass
class Evictions:
    pods: Registry
    pod_status: Registry
    budgets: Registry | None  # None when PodDisruptionBudgets are not served: nothing guards a pod
    budget_status: Registry | None
    clock: Clock

    def evict(self, namespace: str, name: str, eviction: JSON, options: WriteOptions) -> JSON:
        """The Status to answer (201, or upstream's 500 for a pod two budgets guard); StatusError otherwise."""
        meta = eviction.get("metadata") or {}
        if meta.get("namespace") and meta["namespace"] != namespace:
            raise BadRequest("the namespace of the provided object does not match the namespace sent on the request")
        if meta.get("name") and meta["name"] != name:
            raise BadRequest("name in URL does not match name in Eviction object")
        # the create's dryRun carries over to the delete (upstream's propagateDryRun)
        delete_options = DeleteOptions.parse(eviction.get("deleteOptions"),
                                             {"dryRun": "All"} if options.dry_run else {})
        pod = self.pods.get(namespace, name)
        phase = as_dict(pod.get("status")).get("phase")
        deleting = bool(as_dict(pod.get("metadata")).get("deletionTimestamp"))
        if phase in ("Succeeded", "Failed", "Pending") or deleting:
            self._delete(pod, delete_options, options)
            return SUCCESS
        budgets = self._budgets_of(pod)
        if len(budgets) > 1:
            return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                    "message": "This pod has more than one PodDisruptionBudget, which the eviction subresource "
                               "does not support.", "code": 500}
        if budgets:
            budget = budgets[0]
            status = as_dict(budget.get("status"))
            policy = as_dict(budget.get("spec")).get("unhealthyPodEvictionPolicy")
            unready_may_go = not ready(pod) and (
                policy == "AlwaysAllow" or as_int(status.get("currentHealthy")) >= as_int(status.get("desiredHealthy"))
                > 0)
            if not unready_may_go:
                self._take_disruption(budget, name, delete_options.dry_run)
        self._delete(pod, delete_options, options)
        return SUCCESS

    def _budgets_of(self, pod: JSON) -> list[JSON]:
        """The budgets whose selector (valid and not empty: an empty one matches nothing) selects the pod."""
        if self.budgets is None:
            return []
        meta = as_dict(pod.get("metadata"))
        found = []
        for data in self.budgets.list_all(str(meta.get("namespace", ""))):
            budget = orjson.loads(data)
            selector = as_dict(budget.get("spec")).get("selector")
            if selector is None or not selector_is_valid(selector) or selector_is_empty(selector):
                continue
            if selector_matches(selector, meta.get("labels")):
                found.append(budget)
        return found

    def _take_disruption(self, budget: JSON, pod_name: str, dry_run: bool) -> None:
        """checkAndDecrement: the budget must have seen its last spec and allow a disruption, which this takes."""
        assert self.budget_status is not None
        meta, status = as_dict(budget.get("metadata")), dict(as_dict(budget.get("status")))
        name = str(meta.get("name", ""))
        if as_int(status.get("observedGeneration")) < as_int(meta.get("generation")):
            raise too_many_requests(f"The disruption budget {name} is still being processed by the server.", 10)
        allowed = as_int(status.get("disruptionsAllowed"))
        if allowed < 0:
            raise Forbidden(f'poddisruptionbudget.policy "{name}" is forbidden: pdb disruptions allowed is negative',
                            {"name": name, "group": "policy", "kind": "poddisruptionbudget"})
        if len(as_dict(status.get("disruptedPods"))) > MAX_DISRUPTED_PODS:
            raise Forbidden(f'poddisruptionbudget.policy "{name}" is forbidden: DisruptedPods map too big - too many '
                            "evictions not confirmed by PDB controller",
                            {"name": name, "group": "policy", "kind": "poddisruptionbudget"})
        if allowed == 0:
            raise too_many_requests(f"The disruption budget {name} needs {as_int(status.get('desiredHealthy'))} "
                                    f"healthy pods and has {as_int(status.get('currentHealthy'))} currently", 0)
        status["disruptionsAllowed"] = allowed - 1
        now = rfc3339(self.clock.now())
        if allowed == 1:
            status["conditions"] = _set_condition(as_list(status.get("conditions")), {
                "type": "DisruptionAllowed", "status": "False", "reason": "InsufficientPods", "message": "",
                "observedGeneration": as_int(status.get("observedGeneration")), "lastTransitionTime": now})
        if dry_run:
            return
        status["disruptedPods"] = {**as_dict(status.get("disruptedPods")), pod_name: now}
        updated = {**budget, "status": status}
        self.budget_status.update(str(meta.get("namespace", "")), name, updated,
                                  WriteOptions(field_manager="kube-apiserver"))

    def _delete(self, pod: JSON, delete_options: DeleteOptions, options: WriteOptions) -> None:
        """addConditionAndDeletePod: the DisruptionTarget condition on the latest pod, then the delete. (Upstream
        also makes the pod's resourceVersion a precondition of the delete, against a pod turning ready meanwhile:
        nothing can come between here, the store being written from one thread.)"""
        meta = as_dict(pod.get("metadata"))
        namespace, name = str(meta.get("namespace", "")), str(meta["name"])
        if not delete_options.dry_run:
            latest = self.pods.get(namespace, name)
            latest_meta = as_dict(latest.get("metadata"))
            for wanted, actual, what in ((delete_options.uid, latest_meta.get("uid"), "UID"),
                                         (delete_options.resource_version, latest_meta.get("resourceVersion"),
                                          "ResourceVersion")):
                if wanted and wanted != actual:
                    raise Conflict.for_object(
                        "Pod", name, f"the {what} in the precondition ({wanted}) does not match the {what} in "
                                     f"record ({actual}). The object might have been "
                                     f"{'deleted and then recreated' if what == 'UID' else 'modified'}")
            updated = copy_json(latest)
            conditions = [c for c in as_list(as_dict(updated.get("status")).get("conditions"))
                          if as_dict(c).get("type") != "DisruptionTarget"]
            previous = next((c for c in as_list(as_dict(latest.get("status")).get("conditions"))
                             if as_dict(c).get("type") == "DisruptionTarget"), None)
            transition = as_dict(previous).get("lastTransitionTime") if as_dict(previous).get("status") == "True" \
                else rfc3339(self.clock.now())
            updated.setdefault("status", {})["conditions"] = [
                *conditions, {**DISRUPTION_TARGET, "lastTransitionTime": transition}]
            written = self.pod_status.update(namespace, name, updated,
                                             WriteOptions(field_manager=options.field_manager))
            if delete_options.resource_version is not None:
                delete_options.resource_version = written["metadata"]["resourceVersion"]
        self.pods.delete(namespace, name, delete_options)


def _set_condition(conditions: list[Any], condition: JSON) -> list[JSON]:
    """meta.SetStatusCondition: replace the condition of that type (its transition time kept while the status
    stays), or add it."""
    result: list[JSON] = []
    for existing in map(as_dict, conditions):
        if existing.get("type") == condition["type"]:
            if existing.get("status") == condition["status"]:
                condition = {**condition, "lastTransitionTime": existing.get("lastTransitionTime")}
            continue
        result.append(existing)
    return [*result, condition]
