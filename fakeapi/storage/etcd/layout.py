"""Where objects live in etcd: kube-apiserver's key layout, `<prefix>/<resource>/<namespace>/<name>`.

Upstream stores a built-in resource under its plural alone (`/registry/pods/default/web`,
`/registry/leases/kube-node-lease/node-1`), a few under names of their own (nodes under `minions`,
services under `services/specs`), CustomResourceDefinitions under `apiextensions.k8s.io/...`, and custom
resources under `<group>/<resource>`. Cluster-scoped objects have no namespace segment. Names cannot
hold a `/`, so a key reads back unambiguously: one segment left is a name, two a namespace and a name.
"""

from __future__ import annotations

from fakeapi.machinery.types import ObjectKey

# Built-in API groups, whose resources upstream keys by plural alone (a custom resource's group has a dot
# and none of these names). Group resources of other groups are keyed `<group>/<resource>`.
BUILT_IN_GROUPS = frozenset({
    "apps", "batch", "autoscaling", "policy", "coordination.k8s.io", "discovery.k8s.io", "events.k8s.io",
    "networking.k8s.io", "rbac.authorization.k8s.io", "scheduling.k8s.io", "storage.k8s.io", "node.k8s.io",
    "certificates.k8s.io", "admissionregistration.k8s.io", "flowcontrol.apiserver.k8s.io",
    "resource.k8s.io", "internal.apiserver.k8s.io", "storagemigration.k8s.io",
})
# group resource -> its path under the prefix, where upstream's differs from the plural
SPECIAL_PATHS = {
    "nodes": "minions",
    "services": "services/specs",
    "customresourcedefinitions.apiextensions.k8s.io": "apiextensions.k8s.io/customresourcedefinitions",
    "apiservices.apiregistration.k8s.io": "apiregistration.k8s.io/apiservices",
}
_SPECIAL_RESOURCES = {path: resource for resource, path in SPECIAL_PATHS.items()}


class KeyLayout:
    """Keys of one cluster under `prefix` (`--etcd-prefix`, `/registry` by default)."""

    def __init__(self, prefix: str = "/registry") -> None:
        self.prefix = "/" + prefix.strip("/") if prefix.strip("/") else ""
        self.root = self.prefix + "/"  # every object's key starts with this
        self._paths: dict[str, str] = {}
        self._built_ins: dict[str, str] = {}  # plural -> group resource, of the built-in group resources seen

    def resource_path(self, resource: str) -> str:
        """`pods` -> `pods`, `leases.coordination.k8s.io` -> `leases`, `widgets.example.com` ->
        `example.com/widgets`."""
        path = self._paths.get(resource)
        if path is None:
            path = SPECIAL_PATHS.get(resource)
            if path is None:
                plural, _, group = resource.partition(".")
                if not group:
                    path = plural
                elif group in BUILT_IN_GROUPS:
                    path = plural
                    self._built_ins[plural] = resource
                else:
                    path = f"{group}/{plural}"
            self._paths[resource] = path
        return path

    def key(self, key: ObjectKey) -> str:
        path = self.resource_path(key.resource)
        if key.namespace:
            return f"{self.root}{path}/{key.namespace}/{key.name}"
        return f"{self.root}{path}/{key.name}"

    def resource_prefix(self, resource: str, namespace: str | None = None) -> str:
        """The prefix of every key of a resource (in one namespace), ending with `/`."""
        path = self.resource_path(resource)
        return f"{self.root}{path}/{namespace}/" if namespace else f"{self.root}{path}/"

    def object_key(self, key: str) -> ObjectKey | None:
        """The object a key holds, or None for a key that is not an object of this cluster."""
        if not key.startswith(self.root):
            return None
        parts = key[len(self.root):].split("/")
        if len(parts) >= 3 and "/".join(parts[:2]) in _SPECIAL_RESOURCES:
            resource, rest = _SPECIAL_RESOURCES["/".join(parts[:2])], parts[2:]
        elif len(parts) >= 3 and "." in parts[0]:  # <group>/<resource>/...
            resource, rest = f"{parts[1]}.{parts[0]}", parts[2:]
        elif len(parts) >= 2:
            resource = _SPECIAL_RESOURCES.get(parts[0]) or self._built_in(parts[0])
            rest = parts[1:]
        else:
            return None
        if len(rest) == 1 and rest[0]:
            return ObjectKey(resource, "", rest[0])
        if len(rest) == 2 and rest[0] and rest[1]:
            return ObjectKey(resource, rest[0], rest[1])
        return None

    def _built_in(self, plural: str) -> str:
        return self._built_ins.get(plural) or _KNOWN_BUILT_INS.get(plural, plural)


def _known_built_ins() -> dict[str, str]:
    """The built-in group resources fakeapi may meet before serving them (another replica serves them)."""
    known = ("leases.coordination.k8s.io", "deployments.apps", "replicasets.apps", "statefulsets.apps",
             "daemonsets.apps", "controllerrevisions.apps", "jobs.batch", "cronjobs.batch",
             "horizontalpodautoscalers.autoscaling", "poddisruptionbudgets.policy",
             "endpointslices.discovery.k8s.io", "ingresses.networking.k8s.io", "networkpolicies.networking.k8s.io",
             "ingressclasses.networking.k8s.io", "roles.rbac.authorization.k8s.io",
             "rolebindings.rbac.authorization.k8s.io", "clusterroles.rbac.authorization.k8s.io",
             "clusterrolebindings.rbac.authorization.k8s.io", "priorityclasses.scheduling.k8s.io",
             "storageclasses.storage.k8s.io", "csidrivers.storage.k8s.io", "csinodes.storage.k8s.io",
             "volumeattachments.storage.k8s.io", "runtimeclasses.node.k8s.io",
             "certificatesigningrequests.certificates.k8s.io",
             "validatingwebhookconfigurations.admissionregistration.k8s.io",
             "mutatingwebhookconfigurations.admissionregistration.k8s.io",
             "validatingadmissionpolicies.admissionregistration.k8s.io",
             "validatingadmissionpolicybindings.admissionregistration.k8s.io",
             "flowschemas.flowcontrol.apiserver.k8s.io",
             "prioritylevelconfigurations.flowcontrol.apiserver.k8s.io")
    return {resource.partition(".")[0]: resource for resource in known}


_KNOWN_BUILT_INS = _known_built_ins()
