"""The whole in-memory API: one store, one clock, and the registries of every resource served."""

from __future__ import annotations

from dataclasses import dataclass, field

from fakeapi.config import ServerConfig
from fakeapi.http.faults import Faults
from fakeapi.http.podlogs import PodLogs
from fakeapi.http.requestlog import RequestLog
from fakeapi.kinds.event.strategy import EventStrategy
from fakeapi.kinds.namespace.strategy import NamespaceStatusStrategy, NamespaceStrategy
from fakeapi.kinds.pod.strategy import PodResizeStrategy, PodStatusStrategy, PodStrategy
from fakeapi.kinds.schemas import SCHEMAS
from fakeapi.kinds.strategy import Strategy
from fakeapi.machinery.clock import Clock
from fakeapi.machinery.errors import NotFound
from fakeapi.machinery.ids import IdSource
from fakeapi.machinery.types import JSON, ObjectKey
from fakeapi.registry.generic import STATUS_VERBS, Registry, ResourceInfo, SubresourceInfo
from fakeapi.registry.namespaces import NamespaceController, NamespaceRegistry
from fakeapi.storage.store import Store

# subresources listed here must be routed (tests/api/test_discovery.py checks every one answers)
PODS = ResourceInfo(
    "pods", "Pod", namespaced=True, singular="pod", short_names=("po",), categories=("all",),
    subresources=(
        SubresourceInfo("binding", "Binding", ("create",)),
        SubresourceInfo("log", "Pod", ("get",)),
        SubresourceInfo("resize", "Pod", STATUS_VERBS),
        SubresourceInfo("status", "Pod", STATUS_VERBS),
    ),
)
NAMESPACES = ResourceInfo(
    "namespaces", "Namespace", namespaced=False, singular="namespace", short_names=("ns",),
    verbs=("create", "delete", "get", "list", "patch", "update", "watch"),
    subresources=(SubresourceInfo("status", "Namespace", STATUS_VERBS),),
)
EVENTS = ResourceInfo("events", "Event", namespaced=True, singular="event", short_names=("ev",),
                      returns_deleted_object=False)
INITIAL_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")


@dataclass
class Api:
    store: Store
    clock: Clock
    ids: IdSource
    resources: dict[str, Registry] = field(default_factory=dict)
    subresources: dict[tuple[str, str], Registry] = field(default_factory=dict)
    pod_logs: PodLogs = field(default_factory=PodLogs)  # pods/log text, set through the control API
    faults: Faults = field(default_factory=Faults)  # fault rules and the faults they fired
    requests: RequestLog = field(default_factory=RequestLog)  # the recorded request log

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
    api = Api(Store(config.watch_history), clock or Clock(), IdSource(config.seed),
              requests=RequestLog(config.request_log))
    api.store.subscribe(api.pod_logs.on_event)
    pods = _registry(api, PODS, PodStrategy())
    api.subresources[("pods", "status")] = pods.with_strategy(PodStatusStrategy(), "status")
    api.subresources[("pods", "resize")] = pods.with_strategy(PodResizeStrategy(), "resize")
    namespaces = NamespaceRegistry(api.store, NAMESPACES, SCHEMAS["Namespace"], NamespaceStrategy(), api.clock,
                                   api.ids)
    api.resources["namespaces"] = namespaces
    api.subresources[("namespaces", "status")] = namespaces.with_strategy(NamespaceStatusStrategy(), "status")
    _registry(api, EVENTS, EventStrategy())
    seed_namespaces(api)
    controller = NamespaceController(
        namespaces, lambda: [r for r in api.resources.values() if r.info.namespaced])
    api.store.subscribe(controller.on_event)
    return api


def seed_namespaces(api: Api) -> None:
    from fakeapi.registry.options import WriteOptions

    for name in INITIAL_NAMESPACES:
        api.resources["namespaces"].create("", {"metadata": {"name": name}}, WriteOptions())


def _registry(api: Api, info: ResourceInfo, strategy: Strategy) -> Registry:
    registry = Registry(api.store, info, SCHEMAS[info.kind], strategy, api.clock, api.ids)
    api.resources[info.resource] = registry
    return registry
