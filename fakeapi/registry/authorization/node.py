"""The Node authorizer, simplified (upstream plugin/pkg/auth/authorizer/node): a kubelet (user
`system:node:<name>` in group `system:nodes`) holds the bootstrap `system:node` rules, narrowed to what
concerns its node:

- secrets, configmaps and persistentvolumeclaims: `get` of one a pod bound to the node uses (volumes,
  env, envFrom, image pull secrets); `serviceaccounts/token`: `create` for a pod's service account;
- leases: its own, in kube-node-lease;
- nodes: updates of its own Node only; pods/status: updates of pods bound to it only (upstream's
  NodeRestriction admission plugin checks these two, after authorization).

Where upstream walks a graph of pods and what they reference, this reads the pods bound to the node."""

from __future__ import annotations

from collections.abc import Iterator

import orjson

from fakeapi.machinery.errors import NotFound
from fakeapi.machinery.types import JSON, ObjectKey
from fakeapi.registry.authorization.attributes import Attributes
from fakeapi.registry.authorization.decision import ALLOW, NO_OPINION, Decision
from fakeapi.registry.authorization.rules import compile_rules
from fakeapi.storage.store import Store

NODE_PREFIX, NODES_GROUP = "system:node:", "system:nodes"
NODE_LEASE_NAMESPACE = "kube-node-lease"
_REFERENCED = frozenset({"secrets", "configmaps", "persistentvolumeclaims"})
_LEASE_VERBS = frozenset({"get", "create", "update", "patch", "delete"})
_WRITES = frozenset({"update", "patch"})


def node_name(attrs: Attributes) -> str:
    """The node a kubelet's user names, "" for any other user."""
    user = attrs.user
    if user.username.startswith(NODE_PREFIX) and NODES_GROUP in user.groups:
        return user.username[len(NODE_PREFIX):]
    return ""


class NodeAuthorizer:
    def __init__(self, store: Store, node_rules: list[JSON]) -> None:
        self.store = store
        self.rules = compile_rules(node_rules)

    def authorize(self, attrs: Attributes) -> Decision:
        node = node_name(attrs)
        if not node or not attrs.resource_request:
            return Decision(NO_OPINION)
        resource = attrs.combined_resource if attrs.api_group == "" else ""
        if resource in _REFERENCED:
            return self._referenced(node, attrs)
        if resource == "serviceaccounts/token":
            return self._token(node, attrs)
        if attrs.api_group == "coordination.k8s.io" and attrs.resource == "leases":
            return _lease(node, attrs)
        if resource in ("nodes", "nodes/status") and attrs.verb in _WRITES and attrs.name != node:
            return Decision(NO_OPINION, f"node '{node}' cannot modify node '{attrs.name}'")
        if resource == "pods/status" and attrs.verb in _WRITES and self._pod_node(attrs) != node:
            return Decision(NO_OPINION, f"node '{node}' can only update the status of pods bound to it")
        if any(rule.allows(attrs) for rule in self.rules):
            return Decision(ALLOW)
        return Decision(NO_OPINION)

    def _referenced(self, node: str, attrs: Attributes) -> Decision:
        if attrs.verb != "get":
            return Decision(NO_OPINION, "can only get individual resources of this type")
        if attrs.subresource:
            return Decision(NO_OPINION, "cannot get subresource")
        if not attrs.name:
            return Decision(NO_OPINION, "No Object name found")
        wanted = (attrs.resource, attrs.name)
        if any(wanted in _references(pod) for pod in self._pods_on(node, attrs.namespace)):
            return Decision(ALLOW)
        return Decision(NO_OPINION, f"no relationship found between node '{node}' and this object")

    def _token(self, node: str, attrs: Attributes) -> Decision:
        if attrs.verb != "create" or not attrs.name:
            return Decision(NO_OPINION, "can only create tokens for individual service accounts")
        if any((pod.get("spec") or {}).get("serviceAccountName", "default") == attrs.name
               for pod in self._pods_on(node, attrs.namespace)):
            return Decision(ALLOW)
        return Decision(NO_OPINION, f"no relationship found between node '{node}' and this object")

    def _pods_on(self, node: str, namespace: str) -> Iterator[JSON]:
        for data in self.store.list_bytes("pods", namespace):
            pod = orjson.loads(data)
            if (pod.get("spec") or {}).get("nodeName") == node:
                yield pod

    def _pod_node(self, attrs: Attributes) -> str | None:
        try:
            pod = orjson.loads(self.store.get_bytes(ObjectKey("pods", attrs.namespace, attrs.name)))
        except NotFound:
            return None
        node: str | None = (pod.get("spec") or {}).get("nodeName")
        return node


def _lease(node: str, attrs: Attributes) -> Decision:
    if attrs.verb not in _LEASE_VERBS:
        return Decision(NO_OPINION, "can only get, create, update, patch, or delete a node lease")
    if attrs.namespace != NODE_LEASE_NAMESPACE:
        return Decision(NO_OPINION, f"can only access leases in the {NODE_LEASE_NAMESPACE} system namespace")
    if attrs.name and attrs.name != node:
        return Decision(NO_OPINION, "can only access node lease with the same name as the requesting node")
    return Decision(ALLOW)


def _references(pod: JSON) -> set[tuple[str, str]]:
    """(resource, name) of the secrets, configmaps and claims a pod uses."""
    spec: JSON = pod.get("spec") or {}
    found = {("secrets", ref.get("name", "")) for ref in spec.get("imagePullSecrets") or []}
    for volume in spec.get("volumes") or []:
        if "secret" in volume:
            found.add(("secrets", (volume["secret"] or {}).get("secretName", "")))
        if "configMap" in volume:
            found.add(("configmaps", (volume["configMap"] or {}).get("name", "")))
        if "persistentVolumeClaim" in volume:
            found.add(("persistentvolumeclaims", (volume["persistentVolumeClaim"] or {}).get("claimName", "")))
        for source in ((volume.get("projected") or {}).get("sources") or []):
            if "secret" in source:
                found.add(("secrets", (source["secret"] or {}).get("name", "")))
            if "configMap" in source:
                found.add(("configmaps", (source["configMap"] or {}).get("name", "")))
    for container in [*(spec.get("initContainers") or []), *(spec.get("containers") or []),
                      *(spec.get("ephemeralContainers") or [])]:
        for source in container.get("envFrom") or []:
            if "secretRef" in source:
                found.add(("secrets", (source["secretRef"] or {}).get("name", "")))
            if "configMapRef" in source:
                found.add(("configmaps", (source["configMapRef"] or {}).get("name", "")))
        for env in container.get("env") or []:
            value_from = env.get("valueFrom") or {}
            if "secretKeyRef" in value_from:
                found.add(("secrets", (value_from["secretKeyRef"] or {}).get("name", "")))
            if "configMapKeyRef" in value_from:
                found.add(("configmaps", (value_from["configMapKeyRef"] or {}).get("name", "")))
    return found
