"""Policy and binding strategies (upstream's validatingadmissionpolicy{,binding}/strategy.go): v1 defaults,
generation 1 on create and bumped when the spec changes, the policy's status written only through its
subresource (fakeapi.controllers.admissionpolicystatus writes it)."""

from __future__ import annotations

from fakeapi.kinds.admissionpolicy.validation import (
    validate_binding,
    validate_policy,
    validate_policy_status_update,
)
from fakeapi.kinds.strategy import Strategy
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON


def default_match_resources(match: JSON) -> None:
    """admissionregistration/v1 SetDefaults_MatchResources and SetDefaults_Rule."""
    match.setdefault("matchPolicy", "Equivalent")
    if match.get("namespaceSelector") is None:
        match["namespaceSelector"] = {}
    if match.get("objectSelector") is None:
        match["objectSelector"] = {}
    for key in ("resourceRules", "excludeResourceRules"):
        for rule in match.get(key) or []:
            if isinstance(rule, dict) and rule.get("scope") is None:
                rule["scope"] = "*"


def _bump_generation(new: JSON, old: JSON) -> None:
    generation = old["metadata"].get("generation", 0)
    new["metadata"]["generation"] = generation + 1 if new.get("spec") != old.get("spec") else generation


class PolicyStrategy(Strategy):
    validation_covers_object_meta = True

    def default(self, obj: JSON) -> None:
        spec = obj.get("spec")
        if not isinstance(spec, dict):
            return
        spec.setdefault("failurePolicy", "Fail")
        if isinstance(spec.get("matchConstraints"), dict):
            default_match_resources(spec["matchConstraints"])

    def prepare_for_create(self, obj: JSON) -> None:
        obj.pop("status", None)
        obj["metadata"]["generation"] = 1

    def validate(self, obj: JSON) -> list[FieldError]:
        return validate_policy(obj)

    def prepare_for_update(self, new: JSON, old: JSON) -> None:
        if "status" in old:
            new["status"] = old["status"]
        else:
            new.pop("status", None)
        _bump_generation(new, old)

    def validate_update(self, new: JSON, old: JSON) -> list[FieldError]:
        return validate_policy(new)

    def allow_unconditional_update(self) -> bool:
        return False


class PolicyStatusStrategy(PolicyStrategy):
    def reset_fields(self) -> tuple[str, ...]:
        return ("spec",)

    def prepare_for_update(self, new: JSON, old: JSON) -> None:
        new["spec"] = old.get("spec")
        new["metadata"]["generation"] = old["metadata"].get("generation", 0)

    def validate_update(self, new: JSON, old: JSON) -> list[FieldError]:
        return validate_policy_status_update(new)


class BindingStrategy(Strategy):
    validation_covers_object_meta = True

    def reset_fields(self) -> tuple[str, ...]:
        return ()

    def default(self, obj: JSON) -> None:
        spec = obj.get("spec")
        if isinstance(spec, dict) and isinstance(spec.get("matchResources"), dict):
            default_match_resources(spec["matchResources"])

    def prepare_for_create(self, obj: JSON) -> None:
        obj["metadata"]["generation"] = 1

    def validate(self, obj: JSON) -> list[FieldError]:
        return validate_binding(obj)

    def prepare_for_update(self, new: JSON, old: JSON) -> None:
        _bump_generation(new, old)

    def validate_update(self, new: JSON, old: JSON) -> list[FieldError]:
        return validate_binding(new)

    def allow_unconditional_update(self) -> bool:
        return False
