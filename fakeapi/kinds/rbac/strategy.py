"""RBAC strategies (upstream pkg/registry/rbac/{role,clusterrole,rolebinding,clusterrolebinding}): defaulting
of API groups (pkg/apis/rbac/v1/defaults.go), validation, and nothing server-owned (no status)."""

from __future__ import annotations

from fakeapi.kinds.rbac.validation import (
    GROUP,
    validate_binding,
    validate_binding_update,
    validate_role,
    validate_role_update,
)
from fakeapi.kinds.strategy import Strategy
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON


class RoleStrategy(Strategy):
    """Roles and ClusterRoles."""

    validation_covers_object_meta = True  # path-segment names, as upstream's minimalNameRequirements

    def __init__(self, namespaced: bool) -> None:
        self.namespaced = namespaced

    def reset_fields(self) -> tuple[str, ...]:
        return ()

    def validate(self, obj: JSON) -> list[FieldError]:
        return validate_role(obj, self.namespaced)

    def validate_update(self, new: JSON, old: JSON) -> list[FieldError]:
        return validate_role_update(new, old, self.namespaced)


class BindingStrategy(Strategy):
    """RoleBindings and ClusterRoleBindings."""

    validation_covers_object_meta = True

    def __init__(self, namespaced: bool) -> None:
        self.namespaced = namespaced

    def reset_fields(self) -> tuple[str, ...]:
        return ()

    def default(self, obj: JSON) -> None:
        ref = obj.get("roleRef")
        if isinstance(ref, dict) and not ref.get("apiGroup"):
            obj["roleRef"] = {**ref, "apiGroup": GROUP}
        subjects = obj.get("subjects")
        if isinstance(subjects, list) and any(_needs_group(subject) for subject in subjects):
            obj["subjects"] = [{**subject, "apiGroup": GROUP} if _needs_group(subject) else subject
                               for subject in subjects]

    def validate(self, obj: JSON) -> list[FieldError]:
        return validate_binding(obj, self.namespaced)

    def validate_update(self, new: JSON, old: JSON) -> list[FieldError]:
        return validate_binding_update(new, old, self.namespaced)


def _needs_group(subject: object) -> bool:
    """A User or Group subject without an apiGroup (upstream's SetDefaults_Subject gives it the RBAC group)."""
    return isinstance(subject, dict) and subject.get("kind") in ("User", "Group") and not subject.get("apiGroup")
