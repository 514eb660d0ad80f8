"""FakeAPIServer: fakeapi in-process, on the caller's event loop (`async with`) or in a thread (`with`)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

from aiohttp import web

from fakeapi import seeding
from fakeapi.app import create_app
from fakeapi.config import (
    DEFAULT_NODE_CAPACITY,
    SIMULATION_MODES,
    Authentication,
    ServerConfig,
    SimulationConfig,
)
from fakeapi.http import control
from fakeapi.http.access import answered_hosts
from fakeapi.http.faults import FaultRule, FiredFault
from fakeapi.http.keys import api_key, containers_key, faults_key, request_log_key, watch_hub_key
from fakeapi.http.requestlog import RecordedRequest
from fakeapi.kubeconfig import ADMIN, Credentials, credentials_for, write_kubeconfig
from fakeapi.listener import Listener, app_runner
from fakeapi.machinery.clock import Clock
from fakeapi.machinery.types import JSON
from fakeapi.machinery.users import UserInfo
from fakeapi.processes.handlers import ExecRule, Handler
from fakeapi.processes.ports import PortRule, Target
from fakeapi.registry.options import WriteOptions
from fakeapi.simulation import simulation_key
from fakeapi.simulation.controllers.names import parse as parse_controllers
from fakeapi.testing.webhooks import Webhook, WebhookFunction, WebhookHost
from fakeapi.tls import ServerTLS, self_signed

T = TypeVar("T")
Objects = list[JSON]
Requests = list[RecordedRequest]
Rules = list[FaultRule]
Fired = list[FiredFault]
CALL_TIMEOUT = 30.0  # seconds a direct state call waits for the server thread


class FakeAPIServer:
    """An empty fakeapi server on 127.0.0.1 and a free port, with direct access to its state.

    `async with FakeAPIServer() as server:` serves on the running loop (for asyncio clients);
    `with FakeAPIServer() as server:` serves from a background thread with its own loop (for blocking
    clients such as the official `kubernetes` client). Every state method is safe to call from the
    caller's thread in both modes: in thread mode it runs on the server's loop and waits.

    `nodes=N` runs a simulated cluster of N nodes (a scheduler, kubelets and kube-controller-manager's
    controllers); `simulate="scheduler"` binds pods without starting them; `controllers="*,-deployment"`
    chooses the controllers as kube-controller-manager's flag does (every one on by default). Without any
    of them, nothing runs pods.

    Authentication and TLS as `fakeapi serve` has them: `tls=True` serves https with a CA made for this
    server, `token` is a bearer token for `user` (default: kubernetes-admin in system:masters), and
    `anonymous_auth=False` answers requests without credentials 401 (None: as `config` says, by default
    true as upstream's). The clients it makes and its kubeconfig trust the CA (`certificate_authority`)
    and present the token, or else (with TLS) a client certificate for `user` that the CA issues
    (`credentials`). `authorization_mode="Node,RBAC"` authorizes requests as `--authorization-mode` does
    (default AlwaysAllow); give a `token` or `tls=True` then, the anonymous user may do next to nothing.
    """

    def __init__(self, *, seed: int | None = None, config: ServerConfig | None = None,
                 clock: Clock | None = None, host: str = "127.0.0.1", port: int = 0,
                 disable_admission_plugins: Iterable[str] = (), nodes: int | None = None,
                 simulate: str | None = None, node_capacity: Mapping[str, str] | None = None,
                 node_labels: Mapping[str, str] | None = None, controllers: str | Iterable[str] | None = None,
                 tls: bool = False, token: str | None = None,
                 user: UserInfo = ADMIN, anonymous_auth: bool | None = None,
                 authorization_mode: str | Iterable[str] | None = None) -> None:
        config = config or ServerConfig()
        if authorization_mode is not None:
            modes = authorization_mode.split(",") if isinstance(authorization_mode, str) else authorization_mode
            config = replace(config, authorization_modes=tuple(mode.strip() for mode in modes))
        if seed is not None:
            config = replace(config, seed=seed)
        if disable_admission_plugins:
            config = replace(config, disabled_admission_plugins=frozenset(disable_admission_plugins))
        if nodes is not None or simulate is not None or controllers is not None:
            config = replace(config, simulation=simulation_config(nodes, simulate, node_capacity, node_labels,
                                                                  controllers))
        if config.allowed_hosts is None:  # loopback answers loopback names only, as `fakeapi serve` does
            config = replace(config, allowed_hosts=answered_hosts(host, None))
        self._tls: ServerTLS | None = self_signed(host) if tls else None
        config = replace(config, authentication=_authentication(config, self._tls, token, user, anonymous_auth))
        if self._tls is not None and config.cluster_signing is None:
            config = replace(config, cluster_signing=self._tls.signing_pair())
        self.config = config
        self.credentials: Credentials | None = credentials_for(self._tls, {token: user} if token else None, user)
        self.app = create_app(self.config, clock)
        self.api = self.app[api_key]
        self.host = host
        self.port = port
        self.url = ""
        self._runner: web.AppRunner | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._tempdir: Path | None = None
        self._sync_clients: list[Any] = []
        self._async_clients: list[Any] = []
        self.clock = ServerClock(self)
        self._webhooks = WebhookHost(self.api.webhook_client)
        self._starting: list[Webhook] = []  # webhooks added before the server's loop runs
        self._tasks: set[asyncio.Task[None]] = set()

    # ---- async mode: on the caller's loop

    async def start(self) -> None:
        if self._loop is not None:
            raise RuntimeError("FakeAPIServer is already running")
        self._loop = asyncio.get_running_loop()
        await self._serve()
        await asyncio.sleep(0)  # a simulated cluster's first steps (its nodes registering) run

    async def stop(self) -> None:
        for client in self._async_clients:
            await client.close()
        self._async_clients.clear()
        self._close_sync_clients()
        await self._shutdown()
        self._loop = None

    async def __aenter__(self) -> FakeAPIServer:
        await self.start()
        return self

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None,
                        traceback: TracebackType | None) -> None:
        await self.stop()

    # ---- thread mode: a background thread with its own loop

    def start_in_thread(self) -> None:
        if self._loop is not None:
            raise RuntimeError("FakeAPIServer is already running")
        started: concurrent.futures.Future[None] = concurrent.futures.Future()
        loop = asyncio.new_event_loop()
        self._loop = loop

        def run() -> None:
            asyncio.set_event_loop(loop)
            try:
                loop.run_until_complete(self._serve())
            except BaseException as error:  # noqa: B036 - handed to the starting thread
                started.set_exception(error)
                loop.close()
                return
            started.set_result(None)
            loop.run_forever()
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()

        self._thread = threading.Thread(target=run, name="fakeapi-server", daemon=True)
        self._thread.start()
        try:
            started.result()
        except BaseException:
            self._thread.join()
            self._thread = self._loop = None
            raise

    def stop_thread(self) -> None:
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        self._close_sync_clients()
        asyncio.run_coroutine_threadsafe(self._shutdown(), loop).result(CALL_TIMEOUT)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(CALL_TIMEOUT)
        self._thread = self._loop = None

    def __enter__(self) -> FakeAPIServer:
        self.start_in_thread()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.stop_thread()

    def _close_sync_clients(self) -> None:
        for client in self._sync_clients:
            client.close()
        self._sync_clients.clear()

    # ---- serving

    async def _serve(self) -> None:
        runner = app_runner(self.app)
        await runner.setup()
        site = Listener(runner, self.host, self.port, self._tls.context() if self._tls is not None else None)
        try:
            await site.start()
        except BaseException:
            await runner.cleanup()
            raise
        self._runner = runner
        for webhook in self._starting:
            await webhook.start()
        self._starting.clear()
        self.port = site.port
        self.app[api_key].publish_address(self.host, self.port)
        self.url = f"{'https' if self._tls is not None else 'http'}://{self.host}:{self.port}"

    async def _shutdown(self) -> None:
        await self._webhooks.stop()
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()
        if self._tempdir is not None:
            shutil.rmtree(self._tempdir, ignore_errors=True)
            self._tempdir = None

    def _call(self, operation: Callable[[], T]) -> T:
        """Run a state operation on the server's loop (at once when already on it) and return its result."""
        loop, thread = self._loop, self._thread
        if loop is None or thread is None or threading.get_ident() == thread.ident:
            return operation()
        done: concurrent.futures.Future[T] = concurrent.futures.Future()

        def run() -> None:
            try:
                done.set_result(operation())
            except BaseException as error:  # noqa: B036 - re-raised in the calling thread
                done.set_exception(error)

        loop.call_soon_threadsafe(run)
        return done.result(CALL_TIMEOUT)

    # ---- clients

    @property
    def kubeconfig(self) -> str:
        """The path of a kubeconfig for this server (written on first use, removed at stop)."""
        if not self.url:
            raise RuntimeError("FakeAPIServer is not running")
        path = self._files() / "kubeconfig"
        if not path.exists():
            write_kubeconfig(path, self.url, self._tls.trusted if self._tls is not None else None, self.credentials)
        return str(path)

    @property
    def certificate_authority(self) -> bytes | None:
        """The CA certificate (PEM) clients trust to reach the server over https (None over http)."""
        return self._tls.trusted if self._tls is not None else None

    def _files(self) -> Path:
        """The folder of the files clients are given (removed at stop)."""
        if self._tempdir is None:
            self._tempdir = Path(tempfile.mkdtemp(prefix="fakeapi-"))  # (readable by its owner only)
        return self._tempdir

    def _configure(self, configuration: Any, service_account: tuple[str, str] | None = None) -> Any:
        """A `kubernetes` or `kubernetes_asyncio` client Configuration set for this server: its URL, the CA
        and the credentials (the server's, or a token of `service_account`), which these clients take as files."""
        configuration.host = self.url
        credentials = self.credentials
        if service_account is not None:
            credentials = Credentials(token=self.service_account_token(*service_account))
        if self._tls is not None and self._tls.trusted is not None:
            configuration.ssl_ca_cert = str(self._write("ca.crt", self._tls.trusted))
        if credentials is not None and credentials.token is not None:
            configuration.api_key = {"BearerToken": f"Bearer {credentials.token}"}  # (both clients' name)
        if credentials is not None and credentials.client_certificate is not None \
                and credentials.client_key is not None:
            configuration.cert_file = str(self._write("client.crt", credentials.client_certificate))
            configuration.key_file = str(self._write("client.key", credentials.client_key))
        return configuration

    def _write(self, name: str, content: bytes) -> Path:
        path = self._files() / name
        if not path.exists():
            path.write_bytes(content)
        return path

    def kubernetes_client(self, service_account: tuple[str, str] | None = None) -> Any:
        """A `kubernetes.client.ApiClient` for this server (closed when the server stops); with
        `service_account=(namespace, name)` it acts as that ServiceAccount (see service_account_token)."""
        from kubernetes import client

        configuration = self._configure(client.Configuration(), service_account)
        api_client = client.ApiClient(configuration)
        self._sync_clients.append(api_client)
        return api_client

    def kubernetes_asyncio_client(self, service_account: tuple[str, str] | None = None) -> Any:
        """A `kubernetes_asyncio.client.ApiClient`; call it on your loop. In async mode it is closed at
        stop; in thread mode close it yourself (`async with` or `await client.close()`). `service_account` as
        for kubernetes_client."""
        from kubernetes_asyncio import client

        configuration = self._configure(client.Configuration(), service_account)
        api_client = client.ApiClient(configuration)
        if self._thread is None:
            self._async_clients.append(api_client)
        return api_client

    def service_account_token(self, namespace: str, name: str, *, audiences: Iterable[str] = (),
                              expiration_seconds: int = 3600, bound_pod: str | None = None) -> str:
        """A token of the ServiceAccount `namespace/name` (made first if missing), asked for through its
        TokenRequest subresource as `kubectl create token` asks: for the API audiences unless `audiences`
        are given, optionally bound to a pod of the namespace. Requests with it authenticate as
        `system:serviceaccount:<namespace>:<name>`."""
        spec: JSON = {"expirationSeconds": expiration_seconds}
        if audiences:
            spec["audiences"] = list(audiences)
        if bound_pod is not None:
            spec["boundObjectRef"] = {"kind": "Pod", "apiVersion": "v1", "name": bound_pod}

        def issue() -> str:
            if self.api.registry("serviceaccounts").find(namespace, name) is None:
                self.api.registry("serviceaccounts").create(namespace, {"metadata": {"name": name}}, WriteOptions())
            answer = self.api.token_requests().create(namespace, name, {"spec": spec}, WriteOptions())
            return str(answer["status"]["token"])

        return self._call(issue)

    def kubeconfig_for_service_account(self, namespace: str, name: str) -> str:
        """The path of a kubeconfig whose user is a token of the ServiceAccount (see service_account_token;
        kubectl sends it over https only, as it sends every credential)."""
        if not self.url:
            raise RuntimeError("FakeAPIServer is not running")
        path = self._files() / f"kubeconfig-{namespace}-{name}"
        write_kubeconfig(path, self.url, self._tls.trusted if self._tls is not None else None,
                         Credentials(token=self.service_account_token(namespace, name)))
        return str(path)

    # ---- direct state access

    def seed(self, objects: seeding.Seed) -> Objects:
        """Create objects (dicts, a List, or YAML text or a file with many documents) through the normal
        create pipeline; a `status` given is then written through the status subresource."""
        return self._call(lambda: seeding.seed(self.api, objects))

    def get(self, resource: str, name: str, namespace: str = "default") -> JSON:
        """One object as stored (`resource`: plural, singular, short name or kind); NotFound if missing."""
        return self._call(lambda: control.get_object(self.api, resource, name, namespace))

    def list(self, resource: str, namespace: str | None = None, label_selector: str = "") -> Objects:
        return self._call(lambda: control.list_objects(self.api, resource, namespace, label_selector))

    def dump(self) -> JSON:
        """Every object, as one `List` that `seed` takes back."""
        import orjson

        dumped: JSON = orjson.loads(self._call(lambda: control.dump(self.api)))
        return dumped

    def reset(self) -> None:
        """Back to a fresh, empty server (see `fakeapi.http.control.reset`); snapshots are kept. A simulated
        cluster starts again as `config.simulation` says."""
        def operation() -> None:
            self.app[simulation_key].configure(self.config.simulation)
            control.reset(self.app, self.config.seed)

        self._call(operation)

    def snapshot(self) -> control.Snapshot:
        return self._call(lambda: control.take_snapshot(self.api))

    def restore(self, snapshot: control.Snapshot | str) -> None:
        """Put back a snapshot (or one taken over HTTP, by its id); watchers resuming get 410 and relist."""
        def operation() -> None:
            snap = self.app[control.snapshots_key][snapshot] if isinstance(snapshot, str) else snapshot
            control.restore(self.app, snap)

        self._call(operation)

    def close_watches(self) -> None:
        """End every open watch stream, as when a connection to the apiserver drops: clients watch
        again from their last resourceVersion (and resume, since the history is intact)."""
        self._call(self.app[watch_hub_key].end_all)

    @property
    def requests(self) -> Requests:
        """The recorded request log, oldest first (control API requests are not recorded)."""
        return self._call(self.app[request_log_key].entries)

    def clear_requests(self) -> None:
        self._call(self.app[request_log_key].clear)

    def inject(self, verb: str | None = None, resource: str | None = None, subresource: str | None = None,
               namespace: str | None = None, name: str | None = None, status: int | None = None,
               delay: float | None = None, times: int | None = None, nth: int | None = None,
               probability: float | None = None, seed: int | None = None, cut_watch_after: int | None = None,
               *, field_manager: str | None = None, user_agent: str | None = None, message: str | None = None,
               retry_after: int | None = None) -> FaultRule:
        """Add a fault rule (see `fakeapi.http.faults`); the rule's `fired` counts the faults it caused."""
        rule = FaultRule(verb=verb, resource=resource, subresource=subresource, namespace=namespace,
                         name=name, field_manager=field_manager, user_agent=user_agent, status=status,
                         message=message, retry_after=retry_after, delay=delay,
                         cut_watch_after=cut_watch_after, times=times, nth=nth, probability=probability,
                         seed=seed)
        return self._call(lambda: self.app[faults_key].add(rule))

    def clear_faults(self) -> None:
        """Remove every fault rule and forget the faults fired."""
        self._call(self.app[faults_key].clear)

    @property
    def faults(self) -> Rules:
        return self._call(lambda: list(self.app[faults_key].rules))

    @property
    def fired_faults(self) -> Fired:
        return self._call(lambda: list(self.app[faults_key].fired))

    def node(self, name: str) -> SimulatedNode:
        """A simulated node, to make it fail and recover."""
        return SimulatedNode(self, name)

    # ---- what runs in containers

    def on_exec(self, handler: Handler, *, namespace: str = "*", pod: str = "*", container: str = "*",
                command: str = "*") -> ExecRule:
        """Answer the execs that match (glob patterns; the command as its words joined by spaces) with
        `handler`: a function (run in a worker thread) or a coroutine function (run on the server's loop)
        taking an `ExecCall` and returning the exit code. Handlers come before scripts and the built-in
        shell; the first registered that matches answers. `remove()` drops it again."""
        return self._call(lambda: self.app[containers_key].add_exec_handler(handler, namespace, pod, container,
                                                                            command))

    def on_port(self, target: Target, *, namespace: str = "*", pod: str = "*", port: int | None = None) -> PortRule:
        """Where port-forwarded connections to the matching pods' `port` (every port if None) go: a coroutine
        function taking asyncio's `(reader, writer)`, an aiohttp `web.Application`, or an address
        `"host:port"`. Before the pod's `fakeapi.dev/port-forward` annotation; without either the
        connection is refused."""
        return self._call(lambda: self.app[containers_key].add_port_target(target, namespace, pod, port))

    def remove_handler(self, rule: ExecRule | PortRule) -> None:
        self._call(lambda: self.app[containers_key].remove(rule.id))

    def set_log(self, namespace: str, pod: str, container: str, text: str, previous: bool = False) -> None:
        """Set the text `GET .../pods/{pod}/log?container=...` answers (`previous`: the container's previous
        instance, which `previous=true` reads once the pod's status names one)."""
        self._call(lambda: self.api.pod_logs.set(namespace, pod, container, text, self.api.clock.now(), previous))

    def on_webhook(self, function: WebhookFunction, *, service: str | None = None, path: str = "/") -> Webhook:
        """Serve `function` as an admission webhook over HTTPS on 127.0.0.1: it gets each AdmissionReview's
        `request` and returns its `response` (`allowed`, `status`, `patch` as JSONPatch operations,
        `warnings`...). Put `webhook.client_config` in a webhook configuration: a `url`, or with
        `service="NAMESPACE/NAME"` that service, which the server reaches at the function. The server trusts
        the certificate without a caBundle (`webhook.ca_bundle` holds the CA for one written by hand)."""
        webhook = self._webhooks.add(function, service, path)
        loop = self._loop
        if loop is None:
            self._starting.append(webhook)
        elif self._thread is not None:
            asyncio.run_coroutine_threadsafe(webhook.start(), loop).result(CALL_TIMEOUT)
        else:  # on the caller's loop: served from its next turn (connections made meanwhile wait in the backlog)
            task = loop.create_task(webhook.start())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        return webhook

    def append_log(self, namespace: str, pod: str, container: str, text: str, previous: bool = False) -> None:
        """Add text to a container's log; `follow=true` readers receive it."""
        self._call(lambda: self.api.pod_logs.append(namespace, pod, container, text, self.api.clock.now(),
                                                    previous))


def simulation_config(nodes: int | None, simulate: str | None, node_capacity: Mapping[str, str] | None = None,
                      node_labels: Mapping[str, str] | None = None,
                      controllers: str | Iterable[str] | None = None) -> SimulationConfig:
    """The simulated cluster `FakeAPIServer(nodes=..., simulate=...)` asks for."""
    mode = simulate or "cluster"
    if mode not in SIMULATION_MODES:
        raise ValueError(f"simulate must be 'cluster', 'scheduler' or 'none', not {mode!r}")
    return SimulationConfig(mode=mode, nodes=1 if nodes is None else nodes,
                            node_capacity={**DEFAULT_NODE_CAPACITY, **(node_capacity or {})},
                            node_labels=dict(node_labels or {}), controllers=controller_entries(controllers))


def controller_entries(controllers: str | Iterable[str] | None) -> tuple[str, ...]:
    """`controllers` as kube-controller-manager's --controllers entries (`"*,-deployment"` or a list of
    them); ValueError for a name it does not know."""
    if controllers is None:
        return ("*",)
    return parse_controllers(controllers if isinstance(controllers, str) else ",".join(controllers))


class SimulatedNode:
    """A node of the simulated cluster, seen from a test."""

    def __init__(self, server: FakeAPIServer, name: str) -> None:
        self._server = server
        self.name = name

    def fail(self) -> None:
        """Its kubelet stops: no lease renewals, no status. After the node controller's grace period (50 s
        on the server clock) the node is Unknown, its pods not ready; after their `unreachable`
        toleration (300 s by default) they are evicted."""
        self._server._call(lambda: self._server.app[simulation_key].fail_node(self.name))

    def recover(self) -> None:
        """Its kubelet starts again: the node is Ready, its taints go, its pods are ready again."""
        self._server._call(lambda: self._server.app[simulation_key].recover_node(self.name))


def _authentication(config: ServerConfig, tls: ServerTLS | None, token: str | None, user: UserInfo,
                    anonymous: bool | None) -> Authentication:
    """The config's authentication with the server's own: its token, its CA's client certificates."""
    authentication = config.authentication
    tokens = authentication.tokens
    if token is not None:
        tokens = {**(tokens or {}), token: user}
    return Authentication(tokens, authentication.client_certificates or tls is not None,
                          authentication.anonymous if anonymous is None else anonymous)


class ServerClock:
    """The server's clock, safe to drive from the test's thread: now, freeze, unfreeze, set, advance."""

    def __init__(self, server: FakeAPIServer) -> None:
        self._server = server

    @property
    def _clock(self) -> Clock:
        return self._server.api.clock

    def now(self) -> datetime:
        return self._server._call(self._clock.now)

    def freeze(self, when: datetime | None = None) -> datetime:
        return self._server._call(lambda: self._clock.freeze(when))

    def unfreeze(self) -> None:
        self._server._call(self._clock.unfreeze)

    def set(self, when: datetime) -> None:
        self._server._call(lambda: self._clock.set(when))

    def advance(self, seconds: float | timedelta) -> datetime:
        step = seconds.total_seconds() if isinstance(seconds, timedelta) else seconds
        return self._server._call(lambda: self._clock.advance(step))

    @property
    def frozen(self) -> bool:
        return self._clock.frozen
