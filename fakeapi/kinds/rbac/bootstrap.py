"""Upstream's bootstrap policy (plugin/pkg/auth/authorizer/rbac/bootstrappolicy, v1.32) as data: the
ClusterRoles and ClusterRoleBindings a cluster starts with, for the components and controllers fakeapi
runs. Each carries `kubernetes.io/bootstrapping: rbac-defaults` and the autoupdate annotation."""

from __future__ import annotations

from fakeapi.machinery.types import JSON

GROUP = "rbac.authorization.k8s.io"
API_VERSION = f"{GROUP}/v1"
LABELS = {"kubernetes.io/bootstrapping": "rbac-defaults"}
ANNOTATIONS = {"rbac.authorization.kubernetes.io/autoupdate": "true"}
AGGREGATE_TO = "rbac.authorization.k8s.io/aggregate-to-"  # + admin | edit | view

READ = ("get", "list", "watch")
WRITE = ("create", "update", "patch", "delete", "deletecollection")
READ_WRITE = READ + WRITE
CORE, APPS, BATCH, AUTOSCALING, POLICY = "", "apps", "batch", "autoscaling", "policy"
EVENTS, COORDINATION, DISCOVERY = "events.k8s.io", "coordination.k8s.io", "discovery.k8s.io"
AUTHENTICATION, AUTHORIZATION = "authentication.k8s.io", "authorization.k8s.io"
EXTENSIONS, NETWORKING, STORAGE = "extensions", "networking.k8s.io", "storage.k8s.io"
CERTIFICATES, NODE_GROUP = "certificates.k8s.io", "node.k8s.io"


def rule(verbs: tuple[str, ...] | str, groups: tuple[str, ...] | str, resources: tuple[str, ...] | str,
         names: tuple[str, ...] = ()) -> JSON:
    """A resource PolicyRule (a lone string is a list of one)."""
    out: JSON = {"verbs": list(_tuple(verbs)), "apiGroups": list(_tuple(groups)), "resources": list(_tuple(resources))}
    if names:
        out["resourceNames"] = list(names)
    return out


def urls(verbs: tuple[str, ...] | str, *paths: str) -> JSON:
    return {"verbs": list(_tuple(verbs)), "nonResourceURLs": list(paths)}


def _tuple(value: tuple[str, ...] | str) -> tuple[str, ...]:
    return (value,) if isinstance(value, str) else value


EVENTS_RULE = rule(("create", "update", "patch"), (CORE, EVENTS), "events")


def cluster_role(name: str, rules: list[JSON], labels: dict[str, str] | None = None,
                 aggregate_from: str = "") -> JSON:
    role: JSON = {"apiVersion": API_VERSION, "kind": "ClusterRole",
                  "metadata": {"name": name, "labels": {**LABELS, **(labels or {})}, "annotations": dict(ANNOTATIONS)}}
    if aggregate_from:
        role["aggregationRule"] = {"clusterRoleSelectors": [{"matchLabels": {AGGREGATE_TO + aggregate_from: "true"}}]}
    role["rules"] = rules
    return role


def cluster_binding(name: str, subjects: list[JSON], role: str | None = None) -> JSON:
    return {"apiVersion": API_VERSION, "kind": "ClusterRoleBinding",
            "metadata": {"name": name, "labels": dict(LABELS), "annotations": dict(ANNOTATIONS)},
            "roleRef": {"apiGroup": GROUP, "kind": "ClusterRole", "name": role or name}, "subjects": subjects}


def group(name: str) -> JSON:
    return {"apiGroup": GROUP, "kind": "Group", "name": name}


def user(name: str) -> JSON:
    return {"apiGroup": GROUP, "kind": "User", "name": name}


def service_account(name: str, namespace: str = "kube-system") -> JSON:
    return {"kind": "ServiceAccount", "name": name, "namespace": namespace}


# ---- the roles of users and components

NODE_RULES = [
    rule("create", AUTHENTICATION, "tokenreviews"),
    rule("create", AUTHORIZATION, ("subjectaccessreviews", "localsubjectaccessreviews")),
    rule(READ, CORE, "services"),
    rule(("create", "get", "list", "watch"), CORE, "nodes"),
    rule(("update", "patch"), CORE, "nodes/status"),
    rule(("update", "patch"), CORE, "nodes"),
    rule(("create", "update", "patch"), CORE, "events"),
    rule(READ, CORE, "pods"),
    rule(("create", "delete"), CORE, "pods"),
    rule(("update", "patch"), CORE, "pods/status"),
    rule("create", CORE, "pods/eviction"),
    rule("get", CORE, ("secrets", "configmaps")),
    rule("get", CORE, ("persistentvolumeclaims", "persistentvolumes")),
    rule("get", CORE, "endpoints"),
    rule(("create", "get", "list", "watch"), CERTIFICATES, "certificatesigningrequests"),
    rule(("get", "create", "update", "patch", "delete"), COORDINATION, "leases"),
    rule("get", STORAGE, "volumeattachments"),
    rule("create", CORE, "serviceaccounts/token"),
    rule(("update", "patch"), CORE, "persistentvolumeclaims/status"),
    rule(READ, STORAGE, "csidrivers"),
    rule(READ + ("create", "update", "patch", "delete"), STORAGE, "csinodes"),
    rule(READ, NODE_GROUP, "runtimeclasses"),
]

_AGGREGATE_TO_VIEW = [
    rule(READ, CORE, ("pods", "replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts", "services",
                      "services/status", "endpoints", "persistentvolumeclaims", "persistentvolumeclaims/status",
                      "configmaps")),
    rule(READ, CORE, ("limitranges", "resourcequotas", "bindings", "events", "pods/status", "resourcequotas/status",
                      "namespaces/status", "replicationcontrollers/status", "pods/log")),
    rule(READ, CORE, "namespaces"),
    rule(READ, DISCOVERY, "endpointslices"),
    rule(READ, APPS, ("controllerrevisions", "statefulsets", "statefulsets/scale", "statefulsets/status",
                      "daemonsets", "daemonsets/status", "deployments", "deployments/scale", "deployments/status",
                      "replicasets", "replicasets/scale", "replicasets/status")),
    rule(READ, AUTOSCALING, ("horizontalpodautoscalers", "horizontalpodautoscalers/status")),
    rule(READ, BATCH, ("jobs", "cronjobs", "cronjobs/status", "jobs/status")),
    rule(READ, EXTENSIONS, ("daemonsets", "daemonsets/status", "deployments", "deployments/scale",
                            "deployments/status", "ingresses", "ingresses/status", "replicasets", "replicasets/scale",
                            "replicasets/status", "replicationcontrollers/scale", "networkpolicies")),
    rule(READ, POLICY, ("poddisruptionbudgets", "poddisruptionbudgets/status")),
    rule(READ, NETWORKING, ("ingresses", "ingresses/status", "networkpolicies")),
]
_AGGREGATE_TO_EDIT = [
    rule("impersonate", CORE, "serviceaccounts"),
    rule(WRITE, CORE, ("pods", "pods/attach", "pods/proxy", "pods/exec", "pods/portforward")),
    rule("create", CORE, "pods/eviction"),
    rule(WRITE, CORE, ("replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts", "services",
                       "services/proxy", "persistentvolumeclaims", "configmaps", "secrets")),
    rule("create", CORE, "serviceaccounts/token"),
    rule(WRITE, APPS, ("statefulsets", "statefulsets/scale", "daemonsets", "deployments", "deployments/rollback",
                       "deployments/scale", "replicasets", "replicasets/scale")),
    rule(WRITE, AUTOSCALING, "horizontalpodautoscalers"),
    rule(WRITE, BATCH, ("jobs", "cronjobs")),
    rule(WRITE, EXTENSIONS, ("daemonsets", "deployments", "deployments/rollback", "deployments/scale", "ingresses",
                             "networkpolicies", "replicasets", "replicasets/scale", "replicationcontrollers/scale")),
    rule(WRITE, POLICY, "poddisruptionbudgets"),
    rule(WRITE, NETWORKING, ("ingresses", "networkpolicies")),
    rule(READ_WRITE, COORDINATION, "leases"),
]
_AGGREGATE_TO_ADMIN = [
    rule("create", AUTHORIZATION, "localsubjectaccessreviews"),
    rule(READ_WRITE, GROUP, ("roles", "rolebindings")),
]

USER_ROLES = [
    cluster_role("cluster-admin", [rule("*", "*", "*"), urls("*", "*")]),
    cluster_role("system:discovery", [urls("get", "/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez",
                                           "/openapi", "/openapi/*", "/readyz", "/version", "/version/")]),
    cluster_role("system:monitoring", [urls("get", "/healthz", "/healthz/*", "/livez", "/livez/*", "/metrics",
                                            "/metrics/slis", "/readyz", "/readyz/*")]),
    cluster_role("system:basic-user", [rule("create", AUTHORIZATION, ("selfsubjectaccessreviews",
                                                                      "selfsubjectrulesreviews")),
                                       rule("create", AUTHENTICATION, "selfsubjectreviews")]),
    cluster_role("system:public-info-viewer", [urls("get", "/healthz", "/livez", "/readyz", "/version",
                                                    "/version/")]),
    cluster_role("admin", [], aggregate_from="admin"),
    cluster_role("edit", [], {AGGREGATE_TO + "admin": "true"}, aggregate_from="edit"),
    cluster_role("view", [], {AGGREGATE_TO + "edit": "true"}, aggregate_from="view"),
    cluster_role("system:aggregate-to-admin", _AGGREGATE_TO_ADMIN, {AGGREGATE_TO + "admin": "true"}),
    cluster_role("system:aggregate-to-edit", _AGGREGATE_TO_EDIT, {AGGREGATE_TO + "edit": "true"}),
    cluster_role("system:aggregate-to-view", _AGGREGATE_TO_VIEW, {AGGREGATE_TO + "view": "true"}),
    cluster_role("system:node", NODE_RULES),
    cluster_role("system:auth-delegator", [rule("create", AUTHENTICATION, "tokenreviews"),
                                           rule("create", AUTHORIZATION, "subjectaccessreviews")]),
    cluster_role("system:kube-scheduler", [
        EVENTS_RULE,
        rule("create", COORDINATION, "leases"),
        rule(("get", "update"), COORDINATION, "leases", ("kube-scheduler",)),
        rule("create", CORE, "endpoints"),
        rule(("get", "update"), CORE, "endpoints", ("kube-scheduler",)),
        rule(READ, CORE, "nodes"),
        rule(READ + ("delete",), CORE, "pods"),
        rule("create", CORE, ("pods/binding", "bindings")),
        rule(("patch", "update"), CORE, "pods/status"),
        rule(READ, CORE, ("replicationcontrollers", "services")),
        rule(READ, (APPS, EXTENSIONS), "replicasets"),
        rule(READ, APPS, "statefulsets"),
        rule(READ, POLICY, "poddisruptionbudgets"),
        rule(READ, CORE, ("persistentvolumeclaims", "persistentvolumes")),
        rule("create", AUTHENTICATION, "tokenreviews"),
        rule("create", AUTHORIZATION, "subjectaccessreviews"),
        rule(READ, STORAGE, ("csinodes", "csidrivers", "csistoragecapacities")),
        rule(READ, CORE, "namespaces"),
    ]),
    cluster_role("system:kube-controller-manager", [
        EVENTS_RULE,
        rule("create", COORDINATION, "leases"),
        # (+ the simulated cluster's own leader-election lease, which this user renews)
        rule(("get", "update"), COORDINATION, "leases", ("kube-controller-manager", "fakeapi-simulation")),
        rule("create", CORE, "endpoints"),
        rule(("get", "update"), CORE, "endpoints", ("kube-controller-manager",)),
        rule("create", CORE, ("secrets", "serviceaccounts")),
        rule("delete", CORE, "secrets"),
        rule("get", CORE, ("namespaces", "secrets", "serviceaccounts")),
        rule("update", CORE, ("secrets", "serviceaccounts")),
        rule("create", AUTHENTICATION, "tokenreviews"),
        rule("create", AUTHORIZATION, "subjectaccessreviews"),
        rule(("list", "watch"), "*", "*"),
        rule("create", CORE, "serviceaccounts/token"),
    ]),
]
USER_BINDINGS = [
    cluster_binding("cluster-admin", [group("system:masters")]),
    cluster_binding("system:monitoring", [group("system:monitoring")]),
    cluster_binding("system:discovery", [group("system:authenticated")]),
    cluster_binding("system:basic-user", [group("system:authenticated")]),
    cluster_binding("system:public-info-viewer", [group("system:authenticated"), group("system:unauthenticated")]),
    cluster_binding("system:kube-controller-manager", [user("system:kube-controller-manager")]),
    cluster_binding("system:kube-scheduler", [user("system:kube-scheduler")]),
    # the nodes' permissions come from the Node authorizer: this binding names no one (upstream's too)
    cluster_binding("system:node", []),
]

# ---- the controllers' roles (upstream controller_policy.go), bound to their service accounts in kube-system

CONTROLLER_RULES: dict[str, list[JSON]] = {
    "cronjob-controller": [
        rule(("get", "list", "watch", "update"), BATCH, "cronjobs"),
        rule(("get", "list", "watch", "create", "update", "delete", "patch"), BATCH, "jobs"),
        rule("update", BATCH, "cronjobs/status"),
        rule("update", BATCH, "cronjobs/finalizers"),
        rule(("list", "delete"), CORE, "pods"),
        EVENTS_RULE,
    ],
    "daemon-set-controller": [
        rule(READ, (APPS, EXTENSIONS), "daemonsets"),
        rule("update", (APPS, EXTENSIONS), "daemonsets/status"),
        rule("update", (APPS, EXTENSIONS), "daemonsets/finalizers"),
        rule(("list", "watch"), CORE, "nodes"),
        rule(("list", "watch", "create", "delete", "patch"), CORE, "pods"),
        rule("create", CORE, "pods/binding"),
        rule(("get", "list", "watch", "create", "delete", "update", "patch"), APPS, "controllerrevisions"),
        EVENTS_RULE,
    ],
    "deployment-controller": [
        rule(("get", "list", "watch", "update"), (APPS, EXTENSIONS), "deployments"),
        rule("update", (APPS, EXTENSIONS), "deployments/status"),
        rule("update", (APPS, EXTENSIONS), "deployments/finalizers"),
        rule(("get", "list", "watch", "create", "update", "patch", "delete"), (APPS, EXTENSIONS), "replicasets"),
        rule(("get", "list", "watch", "update"), CORE, "pods"),
        EVENTS_RULE,
    ],
    "disruption-controller": [
        rule(READ, (APPS, EXTENSIONS), ("deployments", "replicasets")),
        rule(READ, CORE, "replicationcontrollers"),
        rule(READ, POLICY, "poddisruptionbudgets"),
        rule(READ, APPS, "statefulsets"),
        rule("update", POLICY, "poddisruptionbudgets/status"),
        rule("get", "*", "*/scale"),
        rule("patch", CORE, "pods/status"),
        EVENTS_RULE,
    ],
    "endpoint-controller": [
        rule(READ, CORE, ("services", "pods")),
        rule(("get", "list", "create", "update", "delete"), CORE, "endpoints"),
        rule("create", CORE, "endpoints/restricted"),
        EVENTS_RULE,
    ],
    "endpointslice-controller": [
        rule(READ, CORE, ("services", "pods", "nodes")),
        rule(("get", "list", "create", "update", "delete"), DISCOVERY, "endpointslices"),
        EVENTS_RULE,
    ],
    "generic-garbage-collector": [rule(("get", "list", "watch", "patch", "update", "delete"), "*", "*")],
    "job-controller": [
        rule(("get", "list", "watch", "update", "patch"), BATCH, "jobs"),
        rule("update", BATCH, "jobs/status"),
        rule("update", BATCH, "jobs/finalizers"),
        rule(("list", "watch", "create", "delete", "patch"), CORE, "pods"),
        EVENTS_RULE,
    ],
    "namespace-controller": [
        rule(("get", "list", "watch", "delete"), CORE, "namespaces"),
        rule("update", CORE, ("namespaces/finalize", "namespaces/status")),
        rule(("get", "list", "delete", "deletecollection"), "*", "*"),
    ],
    "node-controller": [
        rule(("get", "list", "update", "delete", "patch"), CORE, "nodes"),
        rule(("patch", "update"), CORE, "nodes/status"),
        rule(("patch", "update"), CORE, "pods/status"),
        rule(("list", "delete"), CORE, "pods"),
        EVENTS_RULE,
    ],
    "pod-garbage-collector": [
        rule(("list", "watch", "delete"), CORE, "pods"),
        rule(READ, CORE, "nodes"),
        rule("patch", CORE, "pods/status"),
    ],
    "replicaset-controller": [
        rule(("get", "list", "watch", "update"), (APPS, EXTENSIONS), "replicasets"),
        rule("update", (APPS, EXTENSIONS), "replicasets/status"),
        rule("update", (APPS, EXTENSIONS), "replicasets/finalizers"),
        rule(("list", "watch", "patch", "create", "delete"), CORE, "pods"),
        EVENTS_RULE,
    ],
    "replication-controller": [
        rule(("get", "list", "watch", "update"), CORE, "replicationcontrollers"),
        rule("update", CORE, "replicationcontrollers/status"),
        rule("update", CORE, "replicationcontrollers/finalizers"),
        rule(("list", "watch", "patch", "create", "delete"), CORE, "pods"),
        EVENTS_RULE,
    ],
    "root-ca-cert-publisher": [rule(("create", "update"), CORE, "configmaps"), EVENTS_RULE],
    "service-account-controller": [rule("create", CORE, "serviceaccounts"), EVENTS_RULE],
    "statefulset-controller": [
        rule(("list", "watch"), CORE, "pods"),
        rule(("list", "watch"), APPS, "statefulsets"),
        rule("update", APPS, "statefulsets/status"),
        rule("update", APPS, "statefulsets/finalizers"),
        rule(("get", "create", "delete", "update", "patch"), CORE, "pods"),
        rule(("get", "create", "delete", "update", "patch", "list", "watch"), APPS, "controllerrevisions"),
        rule(("get", "create"), CORE, "persistentvolumeclaims"),
        rule(("update", "delete"), CORE, "persistentvolumeclaims"),
        EVENTS_RULE,
    ],
    "taint-eviction-controller": [
        rule(("patch", "update"), CORE, "pods/status"),
        rule(("list", "get", "delete"), CORE, "pods"),
        EVENTS_RULE,
    ],
    "ttl-after-finished-controller": [rule(("get", "list", "watch", "delete"), BATCH, "jobs"), EVENTS_RULE],
}
CONTROLLER_PREFIX = "system:controller:"

CLUSTER_ROLES: list[JSON] = USER_ROLES + [cluster_role(CONTROLLER_PREFIX + name, rules)
                                          for name, rules in CONTROLLER_RULES.items()]
CLUSTER_ROLE_BINDINGS: list[JSON] = USER_BINDINGS + [
    cluster_binding(CONTROLLER_PREFIX + name, [service_account(name)]) for name in CONTROLLER_RULES]

# ---- the namespaced roles (upstream namespace_policy.go), in kube-system and kube-public


def role(name: str, namespace: str, rules: list[JSON]) -> JSON:
    return {"apiVersion": API_VERSION, "kind": "Role",
            "metadata": {"name": name, "namespace": namespace, "labels": dict(LABELS),
                         "annotations": dict(ANNOTATIONS)}, "rules": rules}


def role_binding(name: str, namespace: str, role_name: str, subjects: list[JSON]) -> JSON:
    return {"apiVersion": API_VERSION, "kind": "RoleBinding",
            "metadata": {"name": name, "namespace": namespace, "labels": dict(LABELS),
                         "annotations": dict(ANNOTATIONS)},
            "roleRef": {"apiGroup": GROUP, "kind": "Role", "name": role_name}, "subjects": subjects}


def _leader_locking(component: str) -> JSON:
    return role(f"system::leader-locking-{component}", "kube-system", [
        rule("watch", CORE, "configmaps"), rule(("get", "update"), CORE, "configmaps", (component,))])


ROLES: list[JSON] = [
    role("extension-apiserver-authentication-reader", "kube-system",
         [rule(READ, CORE, "configmaps", ("extension-apiserver-authentication",))]),
    _leader_locking("kube-controller-manager"),
    _leader_locking("kube-scheduler"),
    role(CONTROLLER_PREFIX + "bootstrap-signer", "kube-system", [rule(READ, CORE, "secrets")]),
    role(CONTROLLER_PREFIX + "cloud-provider", "kube-system", [rule(("create",) + READ, CORE, "configmaps")]),
    role(CONTROLLER_PREFIX + "token-cleaner", "kube-system",
         [rule(("delete",) + READ, CORE, "secrets"), EVENTS_RULE]),
    role(CONTROLLER_PREFIX + "bootstrap-signer", "kube-public",
         [rule(READ, CORE, "configmaps"), rule("update", CORE, "configmaps", ("cluster-info",)), EVENTS_RULE]),
]
ROLE_BINDINGS: list[JSON] = [
    role_binding("system::extension-apiserver-authentication-reader", "kube-system",
                 "extension-apiserver-authentication-reader",
                 [user("system:kube-controller-manager"), user("system:kube-scheduler")]),
    role_binding("system::leader-locking-kube-controller-manager", "kube-system",
                 "system::leader-locking-kube-controller-manager",
                 [user("system:kube-controller-manager"), service_account("kube-controller-manager")]),
    role_binding("system::leader-locking-kube-scheduler", "kube-system", "system::leader-locking-kube-scheduler",
                 [user("system:kube-scheduler"), service_account("kube-scheduler")]),
    *(role_binding(CONTROLLER_PREFIX + name, "kube-system", CONTROLLER_PREFIX + name, [service_account(name)])
      for name in ("bootstrap-signer", "cloud-provider", "token-cleaner")),
    role_binding(CONTROLLER_PREFIX + "bootstrap-signer", "kube-public", CONTROLLER_PREFIX + "bootstrap-signer",
                 [service_account("bootstrap-signer")]),
]
