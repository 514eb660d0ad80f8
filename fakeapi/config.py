"""Server settings that the CLI and the in-process test server pass to create_app()."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from fakeapi.machinery.limits import MAX_BODY_BYTES
from fakeapi.machinery.serviceaccountsettings import ServiceAccountSettings
from fakeapi.machinery.users import UserInfo
from fakeapi.storage.etcd.config import EtcdConfig
from fakeapi.storage.store import DEFAULT_HISTORY, DEFAULT_HISTORY_AGE, DEFAULT_HISTORY_BYTES

DEFAULT_REQUEST_LOG = 1_000  # requests kept in the request log
DEFAULT_REQUEST_LOG_BYTES = 16 * 1024 * 1024  # bodies, headers and paths together
# what a simulated node has, unless told otherwise (upstream's kubelet reports hugepages sizes at 0)
DEFAULT_NODE_CAPACITY: Mapping[str, str] = MappingProxyType({
    "cpu": "8", "ephemeral-storage": "100Gi", "hugepages-1Gi": "0", "hugepages-2Mi": "0", "memory": "32Gi",
    "pods": "110"})
SIMULATION_MODES = ("cluster", "scheduler", "none")


@dataclass(frozen=True)
class SimulationConfig:
    """The simulated cluster: `cluster` runs a scheduler, kubelets and kube-controller-manager's controllers;
    `scheduler` the same without starting pods (they are bound and stay Pending); `none` nothing."""

    mode: str = "none"
    nodes: int = 1  # nodes registered at start, named node-1, node-2...
    node_capacity: Mapping[str, str] = field(default_factory=lambda: dict(DEFAULT_NODE_CAPACITY))  # (= allocatable)
    node_labels: Mapping[str, str] = field(default_factory=dict)  # labels of the nodes registered at start
    # kube-controller-manager's --controllers: `*` (those on by default), `name`, `-name`
    controllers: tuple[str, ...] = ("*",)

    @property
    def enabled(self) -> bool:
        return self.mode != "none"

    @property
    def runs_pods(self) -> bool:
        return self.mode == "cluster"


@dataclass(frozen=True)
class Authentication:
    """Who requests are from, as kube-apiserver's authenticators are configured (AlwaysAllow then lets
    every user do everything). A request's credentials are tried in upstream's order: a client certificate,
    then a bearer token (the token file's, then service account tokens, always checked); credentials
    presented but not recognised are a 401, and a request without any is the anonymous user's, or a 401
    when `anonymous` is off."""

    tokens: Mapping[str, UserInfo] | None = None  # --token-auth-file: token -> user (None: no token file)
    client_certificates: bool = False  # a client certificate the TLS layer verified names the user
    anonymous: bool = True  # --anonymous-auth

    @property
    def checks_credentials(self) -> bool:
        """False when the server was given no credentials to check: a request without a service account
        token is then anonymous."""
        return self.tokens is not None or self.client_certificates or not self.anonymous


@dataclass(frozen=True)
class ServerConfig:
    watch_history: int = DEFAULT_HISTORY  # change events kept for watches that resume from a version
    watch_history_bytes: int = DEFAULT_HISTORY_BYTES  # ... and the bytes they may hold (see store.event_size)
    watch_history_age: float | None = DEFAULT_HISTORY_AGE  # forget changes older than this (None or 0: never)
    bookmark_interval: float = 60.0  # seconds between BOOKMARK events (upstream: about a minute)
    event_ttl: float = 3600.0  # seconds an event lives after its last write (kube-apiserver's --event-ttl)
    seed: int | None = None  # seeds uids and generated names, for reproducible runs
    max_body_bytes: int = MAX_BODY_BYTES  # upstream's request body limit (3 MiB)
    request_log: int = DEFAULT_REQUEST_LOG  # requests kept in the request log (0: record nothing)
    request_log_bytes: int = DEFAULT_REQUEST_LOG_BYTES  # and the bytes it may hold (bodies are cut at 64 KiB)
    # admission plugins turned off, by upstream name (kube-apiserver's --disable-admission-plugins)
    disabled_admission_plugins: frozenset[str] = field(default_factory=frozenset)
    simulation: SimulationConfig = field(default_factory=SimulationConfig)  # off unless asked for
    # requests handled at once, reads and writes (upstream's in-flight limits; 0: no limit); watches and
    # pod logs are not counted
    max_requests_inflight: int = 400
    max_mutating_requests_inflight: int = 200
    request_timeout: float = 60.0  # seconds a request other than a watch or pod log may take (upstream's)
    idle_timeout: float = 90.0  # seconds a connection may wait for its next request (upstream's http.Server)
    read_header_timeout: float = 32.0  # seconds a new connection has to send its first request's headers
    # Host names answered besides loopback ones (any port); None answers every name. See fakeapi.http.access.
    allowed_hosts: frozenset[str] | None = None
    control_api: bool = True  # serve /fakeapi/v1/
    authentication: Authentication = field(default_factory=Authentication)
    # the SQLite file that keeps every object across restarts (None: objects live in memory only)
    storage_file: Path | None = None
    # where webhooks named by a service are reached (fakeapi runs no Services): "<name>.<namespace>.svc:<port>"
    # -> "host:port", e.g. {"converter.default.svc:443": "127.0.0.1:9443"}
    webhook_addresses: Mapping[str, str] = field(default_factory=dict)
    # what Services are given from (kube-apiserver's --service-cluster-ip-range, --service-node-port-range)
    service_cluster_ip_range: str = "10.96.0.0/12"
    service_node_port_range: str = "30000-32767"
    # the address the `kubernetes` Service's endpoints name (--advertise-address; None: the listening address
    # when endpoints may hold it, else the server's place in the simulated network)
    advertise_address: str | None = None
    # etcd, shared by every server of one cluster (None: the SQLite file, or memory)
    etcd: EtcdConfig | None = None
    # kube-apiserver's --authorization-mode: AlwaysAllow, AlwaysDeny, Node, RBAC, asked in this order
    authorization_modes: tuple[str, ...] = ("AlwaysAllow",)
    # the service account issuer: its name, keys and token lifetimes
    service_accounts: ServiceAccountSettings = field(default_factory=ServiceAccountSettings)
    # the CA (certificate, key; PEM) that issues approved kube-apiserver-client CSRs' certificates
    # (kube-controller-manager's --cluster-signing-*-file; None: one made at the first)
    cluster_signing: tuple[bytes, bytes] | None = None
