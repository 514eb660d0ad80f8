"""The simulated components' API client: registry calls made as the component's own requests.

Each call goes through the same registry pipeline an HTTP request takes (admission, validation,
managedFields with the component's field manager) and is recorded in the request log as the request
the component would send (method, path, User-Agent, JSON body, status), so that everything the
simulation does shows in the request log and in watches. Under an authorization mode other than
AlwaysAllow each write is authorized as the component's user (reads go to the store's view directly).
Fault rules apply to these requests only when they name a user agent (`userAgent: "kubelet/*"`); a
rule's `delay` does not apply (the simulation runs on the server clock, not in real time).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from multidict import CIMultiDict, CIMultiDictProxy, MultiDict, MultiDictProxy

from fakeapi.cluster import Api
from fakeapi.http.authorization import attributes_of
from fakeapi.http.faults import Faults
from fakeapi.http.requestinfo import request_info
from fakeapi.http.requestlog import RequestLog
from fakeapi.machinery.errors import StatusError
from fakeapi.machinery.patch import MERGE_PATCH, STRATEGIC_MERGE_PATCH, apply_merge_patch, apply_strategic_merge_patch
from fakeapi.machinery.types import JSON
from fakeapi.machinery.users import AUTHENTICATED_GROUP, UserInfo
from fakeapi.registry.authorization.forbidden import forbidden
from fakeapi.registry.binding import bind_pod, decode_binding
from fakeapi.registry.generic import Registry
from fakeapi.registry.options import DeleteOptions, WriteOptions

T = TypeVar("T")
KUBERNETES_VERSION = "v1.32.0"
_PLATFORM = f"{KUBERNETES_VERSION} (linux/amd64) kubernetes/fakeapi"
_NO_QUERY: MultiDictProxy[str] = MultiDictProxy(MultiDict())
JSON_TYPE = "application/json"


@dataclass(frozen=True)
class Component:
    """Who sends a request: upstream's user agent for the component (the field manager follows from it),
    and the user its credentials name (the request log's user)."""

    user_agent: str
    user: UserInfo

    @property
    def manager(self) -> str:
        return self.user_agent.split("/", 1)[0]


SCHEDULER = Component(f"kube-scheduler/{_PLATFORM}/scheduler",
                      UserInfo("system:kube-scheduler", groups=(AUTHENTICATED_GROUP,)))

# the leader election of the simulated cluster, as kube-controller-manager's (its own user, not a controller's)
LEADER_ELECTION = Component(f"kube-controller-manager/{_PLATFORM}/leader-election",
                            UserInfo("system:kube-controller-manager", groups=(AUTHENTICATED_GROUP,)))


def kubelet(node: str) -> Component:
    """A node's kubelet, which authenticates as its node (upstream's node client certificate)."""
    return Component(f"kubelet/{_PLATFORM}",
                     UserInfo(f"system:node:{node}", groups=("system:nodes", AUTHENTICATED_GROUP)))


def controller(service_account: str) -> Component:
    """A kube-controller-manager controller, which uses its own service account's credentials."""
    user = f"system:serviceaccount:kube-system:{service_account}"
    return Component(f"kube-controller-manager/{_PLATFORM}/{user}",
                     UserInfo(user, groups=("system:serviceaccounts", "system:serviceaccounts:kube-system",
                                            AUTHENTICATED_GROUP)))


class Client:
    def __init__(self, api: Api, requests: RequestLog, faults: Faults, component: Component) -> None:
        self.api = api
        self.requests = requests
        self.faults = faults
        self.component = component
        self._headers = {content_type: _headers(component.user_agent, content_type)
                         for content_type in (JSON_TYPE, STRATEGIC_MERGE_PATCH, MERGE_PATCH)}
        self._nodes: dict[str, Client] = {}

    def as_node(self, node: str) -> Client:
        """This client's calls made as `node`'s kubelet (whose credentials name the node)."""
        client = self._nodes.get(node)
        if client is None:
            client = self._nodes[node] = Client(self.api, self.requests, self.faults, kubelet(node))
        return client

    def create(self, resource: str, namespace: str, body: JSON, group: str = "", version: str = "v1") -> JSON:
        registry = self.api.registry(resource, group, version)
        return self._send("POST", _path(registry, namespace), body, JSON_TYPE, 201,
                          lambda: registry.create(namespace, body, self._options()))

    def update(self, resource: str, namespace: str, name: str, body: JSON, subresource: str = "",
               group: str = "", version: str = "v1") -> JSON:
        """PUT the object (or its subresource)."""
        registry = self._registry(resource, subresource, group, version)
        return self._send("PUT", _path(registry, namespace, name, subresource), body, JSON_TYPE, 200,
                          lambda: registry.update(namespace, name, body, self._options()))

    def patch(self, resource: str, namespace: str, name: str, patch: JSON, subresource: str = "",
              group: str = "", version: str = "v1") -> JSON:
        """A strategic merge PATCH of the object (or its subresource)."""
        registry = self._registry(resource, subresource, group, version)
        tree = registry.kind.patch_tree  # (built with the kind: building one per patch costs milliseconds)

        def apply(current: JSON, body: Any) -> JSON:
            return apply_strategic_merge_patch(current, body, tree)

        return self._send("PATCH", _path(registry, namespace, name, subresource), patch, STRATEGIC_MERGE_PATCH,
                          200, lambda: registry.patch(namespace, name, apply, patch, self._options()))

    def merge_patch(self, resource: str, namespace: str, name: str, patch: JSON, subresource: str = "",
                    group: str = "", version: str = "v1") -> JSON:
        """A JSON merge PATCH of the object (or its subresource)."""
        registry = self._registry(resource, subresource, group, version)
        return self._send("PATCH", _path(registry, namespace, name, subresource), patch, MERGE_PATCH, 200,
                          lambda: registry.patch(namespace, name, apply_merge_patch, patch, self._options()))

    def bind(self, namespace: str, name: str, uid: str, node: str) -> None:
        """POST pods/{name}/binding, as kube-scheduler's DefaultBinder."""
        registry = self.api.registry("pods")
        body: JSON = {"kind": "Binding", "apiVersion": "v1",
                      "metadata": {"name": name, "namespace": namespace, "uid": uid},
                      "target": {"kind": "Node", "name": node}}
        self._send("POST", _path(registry, namespace, name, "binding"), body, JSON_TYPE, 201,
                   lambda: bind_pod(registry, namespace, name, decode_binding(body, self._options())))

    def delete(self, resource: str, namespace: str, name: str, grace_period: int | None = None,
               uid: str | None = None, resource_version: str | None = None, propagation: str | None = None,
               group: str = "", version: str = "v1") -> None:
        registry = self.api.registry(resource, group, version)
        body: JSON = {"kind": "DeleteOptions", "apiVersion": "v1"}
        if grace_period is not None:
            body["gracePeriodSeconds"] = grace_period
        if uid is not None or resource_version is not None:
            body["preconditions"] = {key: value for key, value in (("uid", uid), ("resourceVersion", resource_version))
                                     if value is not None}
        if propagation is not None:
            body["propagationPolicy"] = propagation
        options = DeleteOptions(grace_period_seconds=grace_period, uid=uid, resource_version=resource_version,
                                propagation_policy=propagation)
        self._send("DELETE", _path(registry, namespace, name), body, JSON_TYPE, 200,
                   lambda: registry.delete(namespace, name, options))

    def _registry(self, resource: str, subresource: str, group: str, version: str) -> Registry:
        if subresource:
            return self.api.subresource(resource, subresource, group, version)
        return self.api.registry(resource, group, version)

    def _options(self) -> WriteOptions:
        return WriteOptions(field_manager=self.component.manager, user=self.component.user)

    def _send(self, method: str, path: str, body: JSON, content_type: str, status: int, call: Callable[[], T]) -> T:
        """Record the request, let fault rules aimed at this component answer it, else make the call."""
        entry = None
        headers = self._headers[content_type]
        if self.requests.limit > 0:
            entry = self.requests.record(method, path, _NO_QUERY, headers, self.api.clock.now(), self.component.user)
            self.requests.set_object_body(entry, body)
        try:
            if not self.api.authorizer.always_allows:
                self._authorize(method, path)
            if self.faults.rules:
                self._inject_faults(method, path)
            result = call()
        except StatusError as error:
            if entry is not None:
                entry.status = error.code
            raise
        if entry is not None:
            entry.status = status
        return result

    def _authorize(self, method: str, path: str) -> None:
        """The component's request is authorized as anyone's (its user under the bootstrap policy)."""
        attrs = attributes_of(self.component.user, request_info(method, path, _NO_QUERY), path)
        decision = self.api.authorizer.authorize(attrs)
        if not decision.allowed:
            raise forbidden(attrs, decision.reason)

    def _inject_faults(self, method: str, path: str) -> None:
        info = request_info(method, path, _NO_QUERY)
        fired = self.faults.fire(info, self.component.manager, self.component.user_agent, method, path,
                                 self.api.clock.now(), aimed_at_agent=True)
        for rule in fired:
            error = rule.error(info, _NO_QUERY, self.api.store.resource_version)
            if error is not None:
                raise error


def _headers(user_agent: str, content_type: str) -> CIMultiDictProxy[str]:
    return CIMultiDictProxy(CIMultiDict({"User-Agent": user_agent, "Accept": JSON_TYPE, "Content-Type": content_type}))


def _path(registry: Registry, namespace: str, name: str = "", subresource: str = "") -> str:
    info = registry.info
    path = f"/apis/{info.group}/{info.version}" if info.group else f"/api/{info.version}"
    if info.namespaced:
        path += f"/namespaces/{namespace}"
    path += f"/{info.resource}"
    if name:
        path += f"/{name}"
    if subresource:
        path += f"/{subresource}"
    return path
