"""create_app(): a server (its own store, clock and registries) as an aiohttp app: fresh and empty, or
over the objects of its storage file."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from aiohttp import web
from aiohttp.typedefs import Handler

from fakeapi.cluster import Api, build_api
from fakeapi.config import ServerConfig
from fakeapi.http import discovery, handlers
from fakeapi.http.authentication import add_warning
from fakeapi.http.binding import BINDINGS, create_binding, create_bindings
from fakeapi.http.control import setup_control_routes
from fakeapi.http.eviction import create_eviction
from fakeapi.http.faults import Faults
from fakeapi.http.guard import GuardedRouter
from fakeapi.http.health import setup_health_routes
from fakeapi.http.keys import (
    StateFollower,
    api_key,
    config_key,
    containers_key,
    create_only_key,
    deadlines_key,
    faults_key,
    inflight_key,
    kubelets_key,
    request_log_key,
    state_followers_key,
    watch_hub_key,
    watch_writer_key,
)
from fakeapi.http.limits import Deadlines, InFlight
from fakeapi.http.oidc import setup_oidc_routes
from fakeapi.http.openapi import setup_openapi_routes
from fakeapi.http.podlogs import pod_log
from fakeapi.http.portforward import pod_portforward
from fakeapi.http.remotecommand import pod_attach, pod_exec
from fakeapi.http.requestlog import RequestLog
from fakeapi.http.responses import add_kind_warnings
from fakeapi.http.reviews import REVIEW_HANDLERS
from fakeapi.http.routing import CORE_PREFIX, GROUPS_PREFIX, ApiHandlers, ApiPaths, CreateOnly
from fakeapi.http.serviceaccounttoken import create_token
from fakeapi.http.watchstream import WatchWriter
from fakeapi.kinds.kind import ResourceInfo
from fakeapi.machinery.clock import Clock
from fakeapi.machinery.errors import NotFound
from fakeapi.processes.containers import Containers
from fakeapi.simulation import Simulation, simulation_key
from fakeapi.storage.watch import WatchHub

# Resources that are only ever created and never stored: their answer is computed from the request.
CREATE_ONLY: tuple[tuple[ResourceInfo, Handler], ...] = (
    (BINDINGS, create_bindings),
    *REVIEW_HANDLERS,
)


def create_app(config: ServerConfig | None = None, clock: Clock | None = None) -> web.Application:
    config = config or ServerConfig()
    api = build_api(config, clock)
    # auto_decompress off: upstream ignores Content-Encoding and decodes the bytes as sent (aiohttp would
    # inflate gzip, and answer a body that is not gzip by dropping the connection)
    app = web.Application(client_max_size=config.max_body_bytes, handler_args={"auto_decompress": False})
    app[config_key] = config
    app[api_key] = api
    app[faults_key] = Faults()
    app[request_log_key] = RequestLog(config.request_log, config.request_log_bytes)
    app[inflight_key] = InFlight(config.max_requests_inflight, config.max_mutating_requests_inflight)
    app[deadlines_key] = Deadlines(config.request_timeout)
    app[create_only_key] = [info for info, _ in CREATE_ONLY]
    app[watch_hub_key] = WatchHub(api.store, api.clock, config.bookmark_interval)
    app[watch_writer_key] = WatchWriter()
    app[containers_key] = Containers(api)
    app.on_startup.append(_start_api)
    app.on_shutdown.append(_end_watches)
    app.on_response_prepare.append(add_warning)
    app.on_response_prepare.append(add_kind_warnings)
    simulation = Simulation(api, app[request_log_key], app[faults_key], config.simulation, app[containers_key])
    app[simulation_key] = simulation
    app[kubelets_key] = simulation
    # reset and restore tell them the objects were replaced
    followers: list[StateFollower] = [simulation, api.event_ttl]
    if api.authorizer.rbac is not None:
        followers.append(api.authorizer.rbac)
    app[state_followers_key] = followers
    app.on_startup.append(simulation.on_startup)
    app.on_cleanup.append(simulation.on_cleanup)
    app.on_cleanup.append(_close_containers)
    app.on_cleanup.append(_close_webhook_client)
    app.on_cleanup.append(_close_store)
    routes = GuardedRouter(app.router, app)
    setup_routes(app, routes)
    if config.control_api:
        setup_control_routes(app, routes)
    routes.finish()
    return app


async def _start_api(app: web.Application) -> None:
    app[api_key].start()


async def _end_watches(app: web.Application) -> None:
    """Every watch ends before aiohttp waits for the handlers still running."""
    await app[watch_hub_key].shutdown()


async def _close_containers(app: web.Application) -> None:
    """The loopback servers of tests' port-forward handlers stop."""
    await app[containers_key].close()


async def _close_webhook_client(app: web.Application) -> None:
    """The connections kept to admission webhooks close."""
    await app[api_key].webhook_client.close()


async def _close_store(app: web.Application) -> None:
    """After the last handler: a durable store's file is complete and unlocked, and no event expires into
    it any more."""
    api = app[api_key]
    api.event_ttl.stop()
    api.store.close()


def setup_routes(app: web.Application, router: GuardedRouter) -> None:
    router.add_get("/", discovery.root_paths)
    router.add_get("/index.html", discovery.root_paths)
    setup_health_routes(router)
    # discovery answers with a trailing slash as without, as upstream's does
    for path, handler in (("/version", handlers.version), ("/api", discovery.core_api),
                          ("/apis", discovery.api_groups)):
        router.add_get(path, handler)
        router.add_get(path + "/", handler)
    setup_openapi_routes(app, router)
    setup_oidc_routes(router)
    api_handlers = _api_handlers(router, partial(_serves_subresource, app[api_key]))
    router.register_resource(ApiPaths(CORE_PREFIX, api_handlers))
    router.register_resource(ApiPaths(GROUPS_PREFIX, api_handlers))


async def _not_found(request: web.Request) -> web.StreamResponse:
    raise NotFound.path()


def _serves_subresource(api: Api, group: str, version: str, resource: str, subresource: str) -> bool:
    """Whether a kind serves the subresource written like its object (status) or its scale."""
    if subresource == "scale":
        return api.kinds.scale(resource, group, version) is not None
    return api.kinds.subresource(resource, subresource, group, version) is not None


def _api_handlers(router: GuardedRouter, serves_subresource: Callable[[str, str, str, str], bool]) -> ApiHandlers:
    """Every handler of the group-version paths, guarded."""
    guard = router.guard
    streaming = {("", "pods", "exec"): pod_exec, ("", "pods", "attach"): pod_attach,
                 ("", "pods", "portforward"): pod_portforward}
    return ApiHandlers(
        group=guard(discovery.api_group),
        resources=guard(discovery.group_version_resources),
        collection={"GET": guard(handlers.list_collection), "POST": guard(handlers.create),
                    "DELETE": guard(handlers.delete_collection)},
        object={"GET": guard(handlers.get), "PUT": guard(handlers.replace), "PATCH": guard(handlers.patch),
                "DELETE": guard(handlers.delete)},
        subresource={"GET": guard(handlers.get_subresource), "PUT": guard(handlers.replace_subresource),
                     "PATCH": guard(handlers.patch_subresource)},
        watch_collection=guard(handlers.watch_collection),
        watch_object=guard(handlers.watch_object),
        special_subresources={("", "pods", "binding"): {"POST": guard(create_binding)},
                              ("", "pods", "eviction"): {"POST": guard(create_eviction)},
                              ("", "pods", "log"): {"GET": guard(pod_log)},
                              ("", "serviceaccounts", "token"): {"POST": guard(create_token)},
                              **{path: {"GET": guard(handler), "POST": guard(handler)}
                                 for path, handler in streaming.items()}},
        serves_subresource=serves_subresource,
        not_found=guard(_not_found),
        create_only={(info.group, info.resource): CreateOnly(info.namespaced, guard(handler))
                     for info, handler in CREATE_ONLY},
    )
