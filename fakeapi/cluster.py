"""The whole API: one store, one clock, and the registries of every resource served."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import orjson

from fakeapi.config import ServerConfig
from fakeapi.controllers.admissionpolicystatus import AdmissionPolicyStatusController
from fakeapi.controllers.clusterroleaggregation import ClusterRoleAggregation
from fakeapi.controllers.crd import CustomResourceDefinitionController
from fakeapi.controllers.csrsigning import CSRSigningController
from fakeapi.controllers.eventttl import EventTTL
from fakeapi.controllers.kubedns import DNS_IP_INDEX, create_kube_dns
from fakeapi.controllers.kubedns import NAME as KUBE_DNS_NAME
from fakeapi.controllers.kubedns import NAMESPACE as KUBE_DNS_NAMESPACE
from fakeapi.controllers.kubernetesservice import DEFAULT_ADVERTISE_ADDRESS, KubernetesService
from fakeapi.controllers.kubernetesservice import NAME as KUBERNETES_NAME
from fakeapi.controllers.kubernetesservice import NAMESPACE as KUBERNETES_NAMESPACE
from fakeapi.controllers.namespace import NamespaceController
from fakeapi.controllers.rootcacert import CONFIG_MAP_NAME, RootCACertPublisher
from fakeapi.controllers.serviceaccounts import DEFAULT_SERVICE_ACCOUNT, ServiceAccountsController
from fakeapi.controllers.tokens import TokensController
from fakeapi.kinds.admissionpolicy import VALIDATING_ADMISSION_POLICY, VALIDATING_ADMISSION_POLICY_BINDING
from fakeapi.kinds.certificatesigningrequest import CERTIFICATE_SIGNING_REQUEST, CERTIFICATES_GROUP
from fakeapi.kinds.configmap import CONFIG_MAP
from fakeapi.kinds.controllerrevision import CONTROLLER_REVISION
from fakeapi.kinds.cronjob import CRON_JOB
from fakeapi.kinds.customresourcedefinition import CUSTOM_RESOURCE_DEFINITION
from fakeapi.kinds.daemonset import DAEMON_SET
from fakeapi.kinds.deployment import DEPLOYMENT
from fakeapi.kinds.endpoints import ENDPOINTS
from fakeapi.kinds.endpoints.validation import validate_endpoint_ip
from fakeapi.kinds.endpointslice import ENDPOINT_SLICE
from fakeapi.kinds.event import EVENT
from fakeapi.kinds.eventsv1 import EVENTS_V1_EVENT
from fakeapi.kinds.horizontalpodautoscaler import HORIZONTAL_POD_AUTOSCALER, HORIZONTAL_POD_AUTOSCALER_V1
from fakeapi.kinds.job import JOB
from fakeapi.kinds.kind import Kind
from fakeapi.kinds.lease import LEASE
from fakeapi.kinds.namespace import NAMESPACE
from fakeapi.kinds.node import NODE
from fakeapi.kinds.persistentvolumeclaim import PERSISTENT_VOLUME_CLAIM
from fakeapi.kinds.pod import POD
from fakeapi.kinds.poddisruptionbudget import POD_DISRUPTION_BUDGET
from fakeapi.kinds.rbac import CLUSTER_ROLE, CLUSTER_ROLE_BINDING, RBAC_GROUP, ROLE, ROLE_BINDING
from fakeapi.kinds.rbac.bootstrap import CLUSTER_ROLE_BINDINGS, CLUSTER_ROLES, ROLE_BINDINGS, ROLES
from fakeapi.kinds.replicaset import REPLICA_SET
from fakeapi.kinds.replicationcontroller import REPLICATION_CONTROLLER
from fakeapi.kinds.secret import SECRET
from fakeapi.kinds.service import SERVICE
from fakeapi.kinds.service.ranges import ServiceRanges
from fakeapi.kinds.serviceaccount import SERVICE_ACCOUNT
from fakeapi.kinds.statefulset import STATEFUL_SET
from fakeapi.kinds.webhookconfiguration import (
    ADMISSION_GROUP,
    MUTATING_WEBHOOK_CONFIGURATION,
    VALIDATING_WEBHOOK_CONFIGURATION,
)
from fakeapi.machinery.clock import Clock
from fakeapi.machinery.errors import AlreadyExists, NotFound
from fakeapi.machinery.ids import IdSource
from fakeapi.machinery.serviceaccountsettings import ServiceAccountSettings
from fakeapi.machinery.types import JSON
from fakeapi.podlogs import PodLogs
from fakeapi.registry.admission import (
    Admission,
    PluginFactory,
    ValidatorFactory,
    build_admission,
    defaulttolerationseconds,
    namespacelifecycle,
    priority,
    serviceaccount,
    taintnodesbycondition,
)
from fakeapi.registry.admission.policy import plugin as policy_plugin
from fakeapi.registry.admission.webhook import plugins as webhook_plugins
from fakeapi.registry.admission.webhook.calls import WebhookClient
from fakeapi.registry.admission.webhook.source import mutating_webhooks, validating_webhooks
from fakeapi.registry.authorization.escalation import EscalationCheck
from fakeapi.registry.authorization.modes import ServerAuthorizer
from fakeapi.registry.generic import Registry, WriteHooks
from fakeapi.registry.kinds import KindRegistry
from fakeapi.registry.options import WriteOptions
from fakeapi.registry.scale import ScaleRegistry
from fakeapi.registry.serviceallocation import ServiceAllocation
from fakeapi.registry.tokens.authenticator import ServiceAccountAuthenticator
from fakeapi.registry.tokens.issuer import Issuer
from fakeapi.registry.tokens.tokenrequest import TokenRequests
from fakeapi.storage.sqlite import SqliteJournal
from fakeapi.storage.store import Store

if TYPE_CHECKING:
    from fakeapi.kinds.customresource.strategy import Rules
    from fakeapi.machinery.jsonschema.schema import Schema

# The kinds this server stores: one line each; discovery, OpenAPI, routes and the control API follow.
KINDS: tuple[Kind, ...] = (
    POD,
    NAMESPACE,
    EVENT,
    NODE,
    LEASE,
    CONFIG_MAP,
    SECRET,
    SERVICE_ACCOUNT,
    EVENTS_V1_EVENT,
    DEPLOYMENT,
    REPLICA_SET,
    STATEFUL_SET,
    DAEMON_SET,
    CONTROLLER_REVISION,
    REPLICATION_CONTROLLER,
    JOB,
    CRON_JOB,
    SERVICE,
    ENDPOINTS,
    ENDPOINT_SLICE,
    PERSISTENT_VOLUME_CLAIM,
    POD_DISRUPTION_BUDGET,
    HORIZONTAL_POD_AUTOSCALER,
    HORIZONTAL_POD_AUTOSCALER_V1,
    CUSTOM_RESOURCE_DEFINITION,
    ROLE,
    CLUSTER_ROLE,
    ROLE_BINDING,
    CLUSTER_ROLE_BINDING,
    CERTIFICATE_SIGNING_REQUEST,
    MUTATING_WEBHOOK_CONFIGURATION,
    VALIDATING_WEBHOOK_CONFIGURATION,
    VALIDATING_ADMISSION_POLICY,
    VALIDATING_ADMISSION_POLICY_BINDING,
)
INITIAL_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")
# (resource, name) of what the controllers keep in every namespace
NAMESPACE_CONTENT = frozenset({("serviceaccounts", DEFAULT_SERVICE_ACCOUNT), ("configmaps", CONFIG_MAP_NAME)})
# upstream's bootstrap RBAC policy, by resource
BOOTSTRAP_POLICY = (("clusterroles", CLUSTER_ROLES), ("clusterrolebindings", CLUSTER_ROLE_BINDINGS),
                    ("roles", ROLES), ("rolebindings", ROLE_BINDINGS))
# (resource, namespace, name) of what the server itself keeps: the `kubernetes` Service and its endpoints,
# `kube-dns` and the bootstrap RBAC policy (a seed or a dump names them: they are updated, not created)
SERVER_OBJECTS = frozenset({(resource, KUBERNETES_NAMESPACE, KUBERNETES_NAME)
                            for resource in ("services", "endpoints", "endpointslices")}
                           | {("services", KUBE_DNS_NAMESPACE, KUBE_DNS_NAME)}
                           | {(resource, obj["metadata"].get("namespace", ""), obj["metadata"]["name"])
                              for resource, objects in BOOTSTRAP_POLICY for obj in objects})


# Admission plugins in upstream's order (kube-apiserver's AllOrderedPlugins), by their upstream names.
ADMISSION_PLUGINS: tuple[tuple[str, PluginFactory], ...] = (
    (namespacelifecycle.NAME, namespacelifecycle.NamespaceLifecycle),
    (serviceaccount.NAME, serviceaccount.ServiceAccount),
    (taintnodesbycondition.NAME, taintnodesbycondition.TaintNodesByCondition),
    (priority.NAME, priority.Priority),
    (defaulttolerationseconds.NAME, defaulttolerationseconds.DefaultTolerationSeconds),
    (webhook_plugins.MUTATING_NAME, mutating_webhooks),
)
# Validating admission, after the strategy's validation, in upstream's order.
VALIDATING_PLUGINS: tuple[tuple[str, ValidatorFactory], ...] = (
    (policy_plugin.NAME, policy_plugin.ValidatingAdmissionPolicies),
    (webhook_plugins.VALIDATING_NAME, validating_webhooks),
)


@dataclass
class Api:
    store: Store
    clock: Clock
    ids: IdSource
    event_ttl: EventTTL  # expires events an hour after their last write
    admission: Admission = field(init=False)  # reads other objects through the API: made after it
    kinds: KindRegistry = field(init=False)  # what is served, changeable while the server runs
    pod_logs: PodLogs = field(default_factory=PodLogs)  # pods/log text, set through the control API
    restarted: bool = False  # the store came from a storage file that already held objects
    service_ranges: ServiceRanges = field(default_factory=ServiceRanges.parse)
    advertise_address: str | None = None  # --advertise-address
    namespace_controller: NamespaceController = field(init=False)
    kubernetes_service: KubernetesService = field(init=False)
    crd_controller: CustomResourceDefinitionController = field(init=False)
    authorizer: ServerAuthorizer = field(init=False)  # --authorization-mode
    service_account_issuer: Issuer = field(default_factory=lambda: Issuer(ServiceAccountSettings()))
    service_account_tokens: ServiceAccountAuthenticator = field(init=False)  # reads the tokens back
    webhook_client: WebhookClient = field(default_factory=WebhookClient)  # how admission webhooks are reached

    def __post_init__(self) -> None:
        self.kinds = KindRegistry(self._registry_for)
        self.service_account_tokens = ServiceAccountAuthenticator(self.service_account_issuer, self.find, self.clock)

    def token_requests(self) -> TokenRequests:
        """What answers POST serviceaccounts/{name}/token."""
        return TokenRequests(self.registry("serviceaccounts"), self.registry("pods"), self.registry("secrets"),
                             self.registry("nodes"), self.service_account_issuer, self.clock, self.ids.uid)

    def _registry_for(self, kind: Kind) -> Registry:
        hooks: WriteHooks | None = None
        if kind.storage_resource == SERVICE.storage_resource:
            hooks = ServiceAllocation(self.store, self.service_ranges, self.ids.below)
        elif kind.info.group == RBAC_GROUP:
            hooks = EscalationCheck(self.authorizer, kind.info)
        return Registry(self.store, kind, self.clock, self.ids, self.admission, hooks=hooks)

    def publish_address(self, host: str, port: int) -> None:
        """The server listens at host:port: the `kubernetes` Service's endpoints name it (the advertise address
        when one was given, or the host when endpoints may hold it)."""
        address = self.advertise_address or (host if endpoint_address(host) else DEFAULT_ADVERTISE_ADDRESS)
        self.kubernetes_service.publish(address, port)

    def start(self) -> None:
        """On the event loop, before serving: resume what the controllers left when a durable store's
        server stopped (as upstream's controllers list everything when they start)."""
        self.store.start()
        self.namespace_controller.resume()

    def registry(self, resource: str, group: str = "", version: str = "v1") -> Registry:
        """The registry of a served resource, or the 404 of a path nothing serves."""
        registry = self.kinds.get(resource, group, version)
        if registry is None:
            raise NotFound.path()
        return registry

    def subresource(self, resource: str, subresource: str, group: str = "", version: str = "v1") -> Registry:
        registry = self.kinds.subresource(resource, subresource, group, version)
        if registry is None:
            raise NotFound.path()
        return registry

    def scale(self, resource: str, group: str = "", version: str = "v1") -> ScaleRegistry:
        scale = self.kinds.scale(resource, group, version)
        if scale is None:
            raise NotFound.path()
        return scale

    def find(self, resource: str, namespace: str, name: str) -> JSON | None:
        """A core object by resource, or None: how admission plugins read other objects."""
        registry = self.kinds.get(resource)
        return registry.find(namespace, name) if registry is not None else None

    def list_stored(self, resource: str, group: str) -> list[bytes]:
        """Every stored object of a resource: how admission plugins read webhook configurations."""
        return self.store.list_bytes(f"{resource}.{group}" if group else resource)

    def has_dynamic_admission(self) -> bool:
        """Whether any admission webhook or policy binding is configured (client writes without them skip the
        request context they need)."""
        return any(self.store.list_bytes(f"{resource}.{ADMISSION_GROUP}") for resource in
                   ("mutatingwebhookconfigurations", "validatingwebhookconfigurations",
                    "validatingadmissionpolicybindings"))

    def objects_of_kind(self, api_version: str, kind: str) -> tuple[bool, list[JSON]] | None:
        for registry in self.kinds.registries():
            if registry.info.api_version == api_version and registry.info.kind == kind:
                return registry.info.namespaced, [orjson.loads(data) for data in registry.list_all()]
        return None

    def serves_other_versions(self, group: str, resource: str, version: str) -> bool:
        return any(info.group == group and info.resource == resource and info.version != version
                   for info in self.kinds.infos())

    def stored_registries(self) -> list[Registry]:
        """One registry per stored resource: those that serve another kind's objects are left out."""
        return [registry for registry in self.kinds.registries() if not registry.kind.stored_as]


def build_api(config: ServerConfig, clock: Clock | None = None) -> Api:
    """The API over a new store, or over the objects of `config.storage_file` (StorageError if that file
    cannot be used)."""
    clock = clock or Clock()
    store = build_store(config, clock)
    # 0 for a new store (etcd counts revisions from 1, and other clusters' keys: it held this one's when
    # the namespaces are there)
    restarted_at = store.resource_version if not store.shared or store.list_bytes("namespaces") else 0
    seed: int | str | None = config.seed
    if restarted_at and seed is not None:  # a seeded server restarted must not draw its first uids again
        seed = f"{seed}@{restarted_at}"
    api = Api(store, clock, IdSource(seed), EventTTL(store, clock, config.event_ttl), restarted=bool(restarted_at),
              service_ranges=ServiceRanges.parse(config.service_cluster_ip_range, config.service_node_port_range),
              advertise_address=config.advertise_address, service_account_issuer=Issuer(config.service_accounts),
              webhook_client=WebhookClient(dict(config.webhook_addresses)))
    api.admission = build_admission(ADMISSION_PLUGINS, config.disabled_admission_plugins, api, VALIDATING_PLUGINS)
    api.authorizer = ServerAuthorizer(config.authorization_modes, store)
    store.subscribe(api.pod_logs.on_event)
    store.subscribe(api.event_ttl.on_event)
    for kind in KINDS:
        api.kinds.add(kind)
    start_namespace_content_controllers(api)
    seed_namespaces(api)
    seed_bootstrap_policy(api)
    # following ClusterRoles from here: one pass over the seeded ones, not one per role seeded
    aggregation = ClusterRoleAggregation(api.registry("clusterroles", RBAC_GROUP))
    store.subscribe(aggregation.on_event)
    aggregation.sync()
    api.namespace_controller = NamespaceController(
        api.registry("namespaces"), lambda: [r for r in api.stored_registries() if r.info.namespaced])
    api.store.subscribe(api.namespace_controller.on_event)
    start_kubernetes_service(api)
    if not api.restarted:
        create_kube_dns(api.registry("services"), str(api.service_ranges.ip_at(DNS_IP_INDEX)))
    tokens = TokensController(api.registry("secrets"), api.registry("serviceaccounts"), api.service_account_issuer)
    api.store.subscribe(tokens.on_event)
    tokens.resume()
    signer = CSRSigningController(api.registry("certificatesigningrequests", CERTIFICATES_GROUP),
                                  api.subresource("certificatesigningrequests", "status", CERTIFICATES_GROUP),
                                  clock, config.cluster_signing)
    api.store.subscribe(signer.on_event)
    signer.resume()
    api.crd_controller = CustomResourceDefinitionController(
        api.registry("customresourcedefinitions", "apiextensions.k8s.io"), api.kinds, clock.timestamp, _cel_rules,
        config.webhook_addresses)
    api.store.subscribe(api.crd_controller.on_event)
    api.crd_controller.start()
    policy_status = AdmissionPolicyStatusController(
        api.subresource("validatingadmissionpolicies", "status", ADMISSION_GROUP))
    api.store.subscribe(policy_status.on_event)
    return api


def start_kubernetes_service(api: Api) -> None:
    """The `kubernetes` Service in `default`, as the apiserver's bootstrap controller keeps it (until the
    server listens, its endpoints name kube-apiserver's default port)."""
    api.kubernetes_service = KubernetesService(
        api.registry("services"), api.registry("endpoints"), api.registry("endpointslices", "discovery.k8s.io"),
        str(api.service_ranges.first_ip), api.advertise_address or DEFAULT_ADVERTISE_ADDRESS)
    api.store.subscribe(api.kubernetes_service.on_event)
    api.kubernetes_service.sync()


def endpoint_address(host: str) -> bool:
    """Whether an address is one Endpoints accept (not loopback, unspecified or link-local)."""
    return not validate_endpoint_ip(host, "")


def _cel_rules(schema: Schema) -> Rules | None:
    """The CEL rules of a custom resource version's schema (the CEL runtime loads with the first CRD)."""
    from fakeapi.kinds.customresource.cel import rules_for

    return rules_for(schema)


def build_store(config: ServerConfig, clock: Clock) -> Store:
    """In memory, in an SQLite file, or in etcd (StorageError when it cannot be used)."""
    if config.etcd is not None:
        from fakeapi.storage.etcd.store import EtcdStore  # (only servers on etcd load its client)

        return EtcdStore(config.etcd, config.watch_history, config.watch_history_age, clock.monotonic,
                         config.watch_history_bytes)
    journal = SqliteJournal(config.storage_file) if config.storage_file is not None else None
    return Store(config.watch_history, config.watch_history_age, clock.monotonic, journal, config.watch_history_bytes)


def start_namespace_content_controllers(api: Api) -> None:
    """The controllers that fill every namespace: its `default` ServiceAccount and `kube-root-ca.crt`. They
    go through the namespaces a restarted server has, as upstream's do when they start."""
    namespaces = api.registry("namespaces")
    stored = [orjson.loads(data)["metadata"]["name"] for data in namespaces.list_all()]
    for controller in (ServiceAccountsController(namespaces, api.registry("serviceaccounts")),
                       RootCACertPublisher(namespaces, api.registry("configmaps"))):
        api.store.subscribe(controller.on_event)
        for name in stored:
            controller.sync(name)


def seed_initial_objects(api: Api) -> None:
    """What a fresh server has: the initial namespaces (and their content), the `kubernetes` Service and
`kube-dns`."""
    seed_namespaces(api)
    seed_bootstrap_policy(api)
    api.kubernetes_service.sync()
    create_kube_dns(api.registry("services"), str(api.service_ranges.ip_at(DNS_IP_INDEX)))


def seed_namespaces(api: Api) -> None:
    """The initial namespaces that are missing (all of them in a new store), as upstream's system
    namespaces controller creates them when the apiserver starts."""
    namespaces = api.registry("namespaces")
    for name in INITIAL_NAMESPACES:
        if namespaces.find("", name) is None:
            try:
                namespaces.create("", {"metadata": {"name": name}}, WriteOptions())
            except AlreadyExists:
                pass  # another server sharing the store made it meanwhile


def seed_bootstrap_policy(api: Api) -> None:
    """The bootstrap roles and bindings that are missing (all of them in a new store), as upstream's RBAC
    post-start hook creates them (after the initial namespaces, which hold the namespaced ones)."""
    for resource, objects in BOOTSTRAP_POLICY:
        registry = api.registry(resource, RBAC_GROUP)
        for obj in objects:
            namespace = obj["metadata"].get("namespace", "")
            if registry.find(namespace, obj["metadata"]["name"]) is None:
                try:
                    registry.create(namespace, orjson.loads(orjson.dumps(obj)), WriteOptions())
                except AlreadyExists:
                    pass  # another server sharing the store made it meanwhile
