"""RoleBinding and ClusterRoleBinding Table cells: upstream v1.32 `printRoleBinding` /
`printClusterRoleBinding` (the subjects in the wide columns, as rbac.SubjectsStrings splits them)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fakeapi.machinery.tables.columns import AGE_COLUMN, NAME_COLUMN, Column, Printer
from fakeapi.machinery.tables.timefmt import age
from fakeapi.machinery.types import JSON

# the v1beta1 swagger docs of roleRef, as upstream's printers read them
_ROLE_REF = ("RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. "
             "If the RoleRef cannot be resolved, the Authorizer must return an error.")
_CLUSTER_ROLE_REF = ("RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot be "
                     "resolved, the Authorizer must return an error.")


def binding_cells(binding: JSON, now: datetime) -> list[Any]:
    meta: JSON = binding.get("metadata") or {}
    ref: JSON = binding.get("roleRef") or {}
    users, groups, service_accounts = subjects_strings(binding.get("subjects") or [])
    return [meta.get("name", ""), f"{ref.get('kind', '')}/{ref.get('name', '')}",
            age(meta.get("creationTimestamp"), now), ", ".join(users), ", ".join(groups),
            ", ".join(service_accounts)]


def subjects_strings(subjects: list[JSON]) -> tuple[list[str], list[str], list[str]]:
    """Users, groups and service accounts (`namespace/name`) of a binding's subjects."""
    users: list[str] = []
    groups: list[str] = []
    service_accounts: list[str] = []
    for subject in subjects:
        kind, name = subject.get("kind"), subject.get("name", "")
        if kind == "User":
            users.append(name)
        elif kind == "Group":
            groups.append(name)
        elif kind == "ServiceAccount":
            service_accounts.append(f"{subject.get('namespace', '')}/{name}")
    return users, groups, service_accounts


def _columns(role_ref: str, owner: str) -> tuple[Column, ...]:
    return (NAME_COLUMN, Column("Role", "string", "", 0, role_ref), AGE_COLUMN,
            Column("Users", "string", "", 1, f"Users in the {owner}"),
            Column("Groups", "string", "", 1, f"Groups in the {owner}"),
            Column("ServiceAccounts", "string", "", 1, f"ServiceAccounts in the {owner}"))


ROLE_BINDING_PRINTER = Printer(_columns(_ROLE_REF, "roleBinding"), binding_cells)
CLUSTER_ROLE_BINDING_PRINTER = Printer(_columns(_CLUSTER_ROLE_REF, "clusterRoleBinding"), binding_cells)
