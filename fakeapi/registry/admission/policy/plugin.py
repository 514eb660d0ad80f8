"""The ValidatingAdmissionPolicy plugin: for each binding (by name) whose policy matches the request (the
policy's matchConstraints, then the binding's matchResources), the policy runs once per param (none, the
paramRef's object, or each object its selector finds); a failed validation is denied, warned or audited as
the binding's validationActions say; an expression that cannot be evaluated fails as the failurePolicy says.

It runs for every write, the server's own (its controllers') included, as upstream's does; those are made as
the user `system:apiserver` here."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson

from fakeapi.machinery.errors import StatusError, qualified
from fakeapi.machinery.types import JSON
from fakeapi.machinery.users import UserInfo
from fakeapi.machinery.validation.labelselector import selector_matches
from fakeapi.registry.admission import Attributes, ObjectReader
from fakeapi.registry.admission.request import RequestContext
from fakeapi.registry.admission.webhook.matching import exempt, rule_matches, selectors_match
from fakeapi.registry.admission.webhook.review import returned_status, review_request

if TYPE_CHECKING:
    from fakeapi.registry.admission.policy.evaluation import Compiled

NAME = "ValidatingAdmissionPolicy"
GROUP = "admissionregistration.k8s.io"
SERVER_USER = UserInfo("system:apiserver", groups=("system:masters",))
REASON_CODES = {"Unauthorized": 401, "Forbidden": 403, "Invalid": 422, "RequestEntityTooLarge": 413}


@dataclass(frozen=True)
class Decision:
    policy: str
    binding: str
    message: str
    reason: str


class StoredObjects:
    """The parsed objects of one stored resource, read again only when they changed."""

    def __init__(self, list_stored: Callable[[], list[bytes]]) -> None:
        self.list_stored = list_stored
        self._seen: list[bytes] = []
        self._objects: list[JSON] = []

    def __call__(self) -> list[JSON]:
        stored = self.list_stored()
        if len(stored) != len(self._seen) or any(a is not b and a != b for a, b in zip(stored, self._seen,
                                                                                        strict=True)):
            self._objects = sorted((orjson.loads(data) for data in stored), key=lambda o: o["metadata"]["name"])
            self._seen = stored
        return self._objects


def matches(match: JSON, attributes: Attributes, namespace: JSON | None, serves_other: Callable[[], bool]) -> bool:
    """MatchResources: a resource rule (with its resourceNames), or none given, and no exclude rule; the
    selectors."""
    def rule_hits(rule: Any, version_matters: bool) -> bool:
        if not isinstance(rule, dict) or not rule_matches(rule, attributes, version_matters):
            return False
        names = rule.get("resourceNames") or []
        return not names or attributes.name in names

    rules = match.get("resourceRules") or []
    equivalent = match.get("matchPolicy", "Equivalent") == "Equivalent"
    if rules and not any(rule_hits(rule, True) for rule in rules) and not (
            equivalent and serves_other() and any(rule_hits(rule, False) for rule in rules)):
        return False  # (no resource rules: every resource, as a binding's matchResources may say)
    if any(rule_hits(rule, True) for rule in match.get("excludeResourceRules") or []):
        return False
    return selectors_match(match, attributes, namespace)


class ValidatingAdmissionPolicies:
    def __init__(self, objects: ObjectReader) -> None:
        self.objects = objects
        self.policies = StoredObjects(lambda: objects.list_stored("validatingadmissionpolicies", GROUP))
        self.bindings = StoredObjects(lambda: objects.list_stored("validatingadmissionpolicybindings", GROUP))
        self._compiled: Compiled | None = None

    def validate(self, attributes: Attributes) -> None:
        bindings = self.bindings()
        if not bindings or exempt(attributes):
            return
        policies = {policy["metadata"]["name"]: policy for policy in self.policies()}
        denied: list[Decision] = []
        context = attributes.request
        info = attributes.info
        namespace = self.objects.find("namespaces", "", attributes.namespace) if info.namespaced else None
        request: list[JSON] = []  # the review's request, made for the first policy that runs
        for binding in bindings:
            policy = policies.get(str((binding.get("spec") or {}).get("policyName") or ""))
            if policy is not None:
                denied += self._apply(policy, binding, attributes, context, namespace, request)
        if denied:
            raise self._denial(denied[0], attributes)

    def _apply(self, policy: JSON, binding: JSON, attributes: Attributes, context: RequestContext | None,
               namespace: JSON | None, request_made: list[JSON]) -> list[Decision]:
        spec, binding_spec = policy.get("spec") or {}, binding.get("spec") or {}
        info = attributes.info
        serves_other = lambda: self.objects.serves_other_versions(info.group, info.resource, info.version)  # noqa: E731
        if not matches(spec.get("matchConstraints") or {}, attributes, namespace, serves_other):
            return []
        if isinstance(binding_spec.get("matchResources"), dict) and not matches(
                binding_spec["matchResources"], attributes, namespace, serves_other):
            return []
        names = (policy["metadata"]["name"], binding["metadata"]["name"])
        fail_closed = spec.get("failurePolicy", "Fail") == "Fail"
        params, problem = self._params(spec, binding_spec, attributes)
        if problem is not None:
            return [Decision(*names, problem, "")] if fail_closed or problem.startswith("no params") else []
        from fakeapi.registry.admission.policy import evaluation  # (the CEL runtime loads with the first policy)

        if self._compiled is None:
            self._compiled = evaluation.compiler()
        compiled = self._compiled
        if not request_made:
            request_made.append(review_request(attributes, context or RequestContext(SERVER_USER, {}), "",
                                               False)["request"])
        request = request_made[0]
        actions = binding_spec.get("validationActions") or []
        decisions: list[Decision] = []
        for param in params:
            data: dict[str, Any] = {"object": request["object"], "oldObject": request["oldObject"], "request": request,
                                    "params": param, "namespaceObject": namespace}
            matched, errors = evaluation.conditions_match(compiled, spec.get("matchConditions") or [], data)
            if not matched:
                continue
            if errors:
                if fail_closed:
                    decisions.append(Decision(*names, "; ".join(errors), ""))
                continue
            evaluation.bind_variables(compiled, spec, data)
            for failure in evaluation.failures(compiled, spec, data):
                if failure.error and not fail_closed:
                    continue
                decisions += self._act(Decision(*names, failure.message, failure.reason), actions, context)
            if context is not None:
                for key, value in evaluation.audit_annotations(compiled, spec, data).items():
                    context.audit_annotations[f"{names[0]}/{key}"] = value
        return decisions

    def _act(self, decision: Decision, actions: list[Any], context: RequestContext | None) -> list[Decision]:
        if "Warn" in actions and context is not None:
            context.warnings.append(f"Validation failed for ValidatingAdmissionPolicy '{decision.policy}' with "
                                    f"binding '{decision.binding}': {decision.message}")
        return [decision] if "Deny" in actions else []

    def _params(self, spec: JSON, binding_spec: JSON, attributes: Attributes) -> tuple[list[Any], str | None]:
        """The params the policy runs with ([None] without a paramKind), or the problem that stops it."""
        kind = spec.get("paramKind")
        if not isinstance(kind, dict):
            return [None], None
        ref = binding_spec.get("paramRef")
        if not isinstance(ref, dict):
            return [], "failed to configure binding: no paramRef specified"
        found = self.objects.objects_of_kind(str(kind.get("apiVersion") or ""), str(kind.get("kind") or ""))
        if found is None:
            return [], (f"failed to configure policy: failed to find resource referenced by paramKind: "
                        f"'{kind.get('apiVersion')}, Kind={kind.get('kind')}'")
        namespaced, objects = found
        namespace = ""
        if namespaced:
            namespace = str(ref.get("namespace") or attributes.namespace)
            if not namespace:
                return [], "cannot use namespaced paramRef in policy binding that matches cluster-scoped resources"
        candidates = [obj for obj in objects if (obj.get("metadata") or {}).get("namespace", "") == namespace]
        if ref.get("name"):
            params = [obj for obj in candidates if obj["metadata"]["name"] == ref["name"]]
        else:
            params = [obj for obj in candidates
                      if selector_matches(ref.get("selector") or {}, (obj.get("metadata") or {}).get("labels"))]
        if params:
            return params, None
        if ref.get("parameterNotFoundAction") == "Deny":
            return [], "no params found for policy binding with `Deny` parameterNotFoundAction"
        return [], None

    def _denial(self, decision: Decision, attributes: Attributes) -> StatusError:
        """upstream's admission.NewForbidden with the decision's reason and code."""
        info = attributes.info
        message = (f"ValidatingAdmissionPolicy '{decision.policy}' with binding '{decision.binding}' denied request: "
                   f"{decision.message}")
        reason = decision.reason or "Invalid"
        details: JSON = {"name": attributes.name}
        if info.group:
            details["group"] = info.group
        details.update(kind=info.resource, causes=[{"message": message}])
        return returned_status({
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": f'{qualified(info.resource, info.group)} "{attributes.name}" is forbidden: {message}',
            "reason": reason, "details": details, "code": REASON_CODES.get(reason, 422)})
