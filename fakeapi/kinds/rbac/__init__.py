"""rbac.authorization.k8s.io/v1 Role, ClusterRole, RoleBinding and ClusterRoleBinding: defaults, validation,
strategies and Table columns (upstream pkg/registry/rbac)."""

from __future__ import annotations

from fakeapi.kinds.kind import Kind, ResourceInfo
from fakeapi.kinds.rbac.strategy import BindingStrategy, RoleStrategy
from fakeapi.kinds.rbac.table import CLUSTER_ROLE_BINDING_PRINTER, ROLE_BINDING_PRINTER
from fakeapi.machinery.tables.columns import DEFAULT_PRINTER

RBAC_GROUP = "rbac.authorization.k8s.io"
_DEFINITION = "io.k8s.api.rbac.v1."

ROLE = Kind(
    ResourceInfo("roles", "Role", namespaced=True, singular="role", group=RBAC_GROUP,
                 definition=_DEFINITION + "Role"),
    RoleStrategy(namespaced=True),
    printer=DEFAULT_PRINTER,  # upstream's printRole: Name and Created At
)
CLUSTER_ROLE = Kind(
    ResourceInfo("clusterroles", "ClusterRole", namespaced=False, singular="clusterrole", group=RBAC_GROUP,
                 definition=_DEFINITION + "ClusterRole"),
    RoleStrategy(namespaced=False),
    printer=DEFAULT_PRINTER,
)
ROLE_BINDING = Kind(
    ResourceInfo("rolebindings", "RoleBinding", namespaced=True, singular="rolebinding", group=RBAC_GROUP,
                 definition=_DEFINITION + "RoleBinding"),
    BindingStrategy(namespaced=True),
    printer=ROLE_BINDING_PRINTER,
)
CLUSTER_ROLE_BINDING = Kind(
    ResourceInfo("clusterrolebindings", "ClusterRoleBinding", namespaced=False, singular="clusterrolebinding",
                 group=RBAC_GROUP, definition=_DEFINITION + "ClusterRoleBinding"),
    BindingStrategy(namespaced=False),
    printer=CLUSTER_ROLE_BINDING_PRINTER,
)
RBAC_KINDS = (ROLE, CLUSTER_ROLE, ROLE_BINDING, CLUSTER_ROLE_BINDING)
