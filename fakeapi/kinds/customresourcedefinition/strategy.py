"""CustomResourceDefinition strategy (upstream's registry/customresourcedefinition/strategy.go and etcd.go):
status is the controllers' (cleared on create, kept on update), generation follows the spec, an update names
the resourceVersion it replaces, and a delete first marks the CRD Terminating with the
`customresourcecleanup.apiextensions.k8s.io` finalizer, whose controller deletes every instance."""

from __future__ import annotations

from fakeapi.kinds.customresourcedefinition.defaults import default_crd
from fakeapi.kinds.customresourcedefinition.schema import RuleCompiler
from fakeapi.kinds.customresourcedefinition.validation import validate_crd, validate_crd_update, validate_status
from fakeapi.kinds.strategy import Strategy
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON

CLEANUP_FINALIZER = "customresourcecleanup.apiextensions.k8s.io"


def set_condition(crd: JSON, condition: JSON, now: str) -> None:
    """Upstream's SetCRDCondition: a condition whose status changes gets a new transition time."""
    status = crd.setdefault("status", {})
    conditions = status.setdefault("conditions", [])
    for index, existing in enumerate(conditions):
        if existing.get("type") == condition["type"]:
            if existing.get("status") == condition["status"]:
                condition = {**condition, "lastTransitionTime": existing.get("lastTransitionTime", now)}
            else:
                condition = {**condition, "lastTransitionTime": now}
            conditions[index] = _ordered(condition)
            return
    conditions.append(_ordered({**condition, "lastTransitionTime": now}))


def _ordered(condition: JSON) -> JSON:
    return {key: condition[key] for key in ("type", "status", "lastTransitionTime", "reason", "message")
            if key in condition}


def _add_stored_version(crd: JSON) -> None:
    status = crd.setdefault("status", {})
    stored = status.setdefault("storedVersions", [])
    for version in (crd.get("spec") or {}).get("versions") or ():
        if isinstance(version, dict) and version.get("storage"):
            if version.get("name") not in stored:
                stored.append(version.get("name"))
            break


class CustomResourceDefinitionStrategy(Strategy):
    validation_covers_object_meta = True

    def __init__(self, compile_rules: RuleCompiler | None = None, now: str = "") -> None:
        self.compile_rules = compile_rules

    def default(self, obj: JSON) -> None:
        default_crd(obj)

    def prepare_for_create(self, obj: JSON) -> None:
        obj["status"] = {}
        obj["metadata"]["generation"] = 1
        _add_stored_version(obj)

    def validate(self, obj: JSON) -> list[FieldError]:
        return validate_crd(obj, self.compile_rules)

    def prepare_for_update(self, new: JSON, old: JSON) -> None:
        new["status"] = old.get("status") or {}
        if new.get("spec") != old.get("spec"):
            new["metadata"]["generation"] = old["metadata"].get("generation", 0) + 1
        _add_stored_version(new)

    def validate_update(self, new: JSON, old: JSON) -> list[FieldError]:
        return validate_crd_update(new, old, self.compile_rules)

    def allow_unconditional_update(self) -> bool:
        return False

    def holds_deletion(self, obj: JSON) -> bool:
        """A CRD not yet being deleted is held: deleting it marks it Terminating with the cleanup finalizer."""
        return not obj["metadata"].get("deletionTimestamp")

    def prepare_for_delete(self, obj: JSON) -> None:
        meta = obj["metadata"]
        meta.pop("deletionGracePeriodSeconds", None)
        finalizers = meta.setdefault("finalizers", [])
        if CLEANUP_FINALIZER not in finalizers:
            finalizers.append(CLEANUP_FINALIZER)
        set_condition(obj, {"type": "Terminating", "status": "True", "reason": "InstanceDeletionPending",
                            "message": "CustomResourceDefinition marked for deletion; CustomResource deletion will "
                                       "begin soon"}, meta["deletionTimestamp"])


class CustomResourceDefinitionStatusStrategy(CustomResourceDefinitionStrategy):
    def reset_fields(self) -> tuple[str, ...]:
        return ("metadata", "spec")

    def prepare_for_update(self, new: JSON, old: JSON) -> None:
        new["spec"] = old.get("spec") or {}

    def validate_update(self, new: JSON, old: JSON) -> list[FieldError]:
        return validate_status(new.get("status") or {})
