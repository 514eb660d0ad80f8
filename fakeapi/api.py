"""The whole in-memory API: one store, one clock, and the registries of every resource served."""

from __future__ import annotations

from dataclasses import dataclass, field

from fakeapi.clock import Clock
from fakeapi.config import ServerConfig
from fakeapi.errors import NotFound
from fakeapi.ids import IdSource
from fakeapi.namespaces import NamespaceController, NamespaceRegistry
from fakeapi.registry import Registry, ResourceInfo
from fakeapi.schemas import SCHEMAS
from fakeapi.store import Store
from fakeapi.strategy.base import Strategy
from fakeapi.strategy.namespace import NamespaceStatusStrategy, NamespaceStrategy
from fakeapi.strategy.pod import PodResizeStrategy, PodStatusStrategy, PodStrategy
from fakeapi.types import JSON, ObjectKey

PODS = ResourceInfo("pods", "Pod", namespaced=True, singular="pod", short_names=("po",), categories=("all",))
NAMESPACES = ResourceInfo(
    "namespaces", "Namespace", namespaced=False, singular="namespace", short_names=("ns",),
    verbs=("create", "delete", "get", "list", "patch", "update", "watch"),
)
INITIAL_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")


@dataclass
class Api:
    store: Store
    clock: Clock
    ids: IdSource
    resources: dict[str, Registry] = field(default_factory=dict)
    subresources: dict[tuple[str, str], Registry] = field(default_factory=dict)

    def registry(self, resource: str) -> Registry:
        try:
            return self.resources[resource]
        except KeyError:
            raise NotFound.path() from None

    def subresource(self, resource: str, subresource: str) -> Registry:
        try:
            return self.subresources[(resource, subresource)]
        except KeyError:
            raise NotFound.path() from None

    def namespace(self, name: str) -> JSON:
        return self.store.get(ObjectKey("namespaces", "", name))


def build_api(config: ServerConfig, clock: Clock | None = None) -> Api:
    api = Api(Store(config.watch_history), clock or Clock(), IdSource(config.seed))
    pods = _registry(api, PODS, PodStrategy())
    api.subresources[("pods", "status")] = pods.with_strategy(PodStatusStrategy())
    api.subresources[("pods", "resize")] = pods.with_strategy(PodResizeStrategy())
    namespaces = NamespaceRegistry(api.store, NAMESPACES, SCHEMAS["Namespace"], NamespaceStrategy(), api.clock,
                                   api.ids)
    api.resources["namespaces"] = namespaces
    api.subresources[("namespaces", "status")] = namespaces.with_strategy(NamespaceStatusStrategy())
    seed_namespaces(api)
    controller = NamespaceController(
        namespaces, lambda: [r for r in api.resources.values() if r.info.namespaced])
    api.store.subscribe(controller.on_event)
    return api


def seed_namespaces(api: Api) -> None:
    from fakeapi.options import WriteOptions

    for name in INITIAL_NAMESPACES:
        api.resources["namespaces"].create("", {"metadata": {"name": name}}, WriteOptions())


def _registry(api: Api, info: ResourceInfo, strategy: Strategy) -> Registry:
    registry = Registry(api.store, info, SCHEMAS[info.kind], strategy, api.clock, api.ids)
    api.resources[info.resource] = registry
    return registry
