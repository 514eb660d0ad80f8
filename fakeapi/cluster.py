"""The whole in-memory API: one store, one clock, and the registries of every resource served."""

from __future__ import annotations

from dataclasses import dataclass, field

from fakeapi.config import ServerConfig
from fakeapi.kinds.event import EVENT
from fakeapi.kinds.kind import Kind
from fakeapi.kinds.namespace import NAMESPACE
from fakeapi.kinds.pod import POD
from fakeapi.machinery.clock import Clock
from fakeapi.machinery.errors import NotFound
from fakeapi.machinery.ids import IdSource
from fakeapi.machinery.types import JSON, ObjectKey
from fakeapi.podlogs import PodLogs
from fakeapi.registry.generic import Registry
from fakeapi.registry.namespaces import NamespaceController, NamespaceRegistry
from fakeapi.storage.store import Store

# The kinds this server stores: one line each; discovery, OpenAPI, routes and the control API follow.
KINDS: tuple[Kind, ...] = (
    POD,
    NAMESPACE,
    EVENT,
)
INITIAL_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")


@dataclass
class Api:
    store: Store
    clock: Clock
    ids: IdSource
    resources: dict[str, Registry] = field(default_factory=dict)
    subresources: dict[tuple[str, str], Registry] = field(default_factory=dict)
    pod_logs: PodLogs = field(default_factory=PodLogs)  # pods/log text, set through the control API

    def registry(self, resource: str, group: str = "") -> Registry:
        registry = self.resources.get(resource)
        if registry is None or registry.info.group != group:
            raise NotFound.path()
        return registry

    def subresource(self, resource: str, subresource: str, group: str = "") -> Registry:
        registry = self.subresources.get((resource, subresource))
        if registry is None or registry.info.group != group:
            raise NotFound.path()
        return registry

    def namespace(self, name: str) -> JSON:
        return self.store.get(ObjectKey("namespaces", "", name))


def build_api(config: ServerConfig, clock: Clock | None = None) -> Api:
    api = Api(Store(config.watch_history), clock or Clock(), IdSource(config.seed))
    api.store.subscribe(api.pod_logs.on_event)
    for kind in KINDS:
        registry_class = NamespaceRegistry if kind is NAMESPACE else Registry
        registry = registry_class(api.store, kind, api.clock, api.ids)
        assert kind.info.resource not in api.resources, f"{kind.info.resource} is registered twice"
        api.resources[kind.info.resource] = registry
        for name in kind.subresource_strategies:
            api.subresources[(kind.info.resource, name)] = registry.subresource(name)
    seed_namespaces(api)
    namespaces = api.resources["namespaces"]
    controller = NamespaceController(
        namespaces, lambda: [r for r in api.resources.values() if r.info.namespaced])
    api.store.subscribe(controller.on_event)
    return api


def seed_namespaces(api: Api) -> None:
    from fakeapi.registry.options import WriteOptions

    for name in INITIAL_NAMESPACES:
        api.resources["namespaces"].create("", {"metadata": {"name": name}}, WriteOptions())

