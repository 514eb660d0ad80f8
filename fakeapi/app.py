"""create_app(): a fresh, empty server (its own store, clock and registries) as an aiohttp app."""

from __future__ import annotations

from aiohttp import web

from fakeapi.cluster import build_api
from fakeapi.config import ServerConfig
from fakeapi.http import discovery, handlers
from fakeapi.http.binding import create_binding
from fakeapi.http.control import setup_control_routes
from fakeapi.http.guard import GuardedRouter
from fakeapi.http.keys import api_key, config_key, watch_hub_key
from fakeapi.http.openapi import setup_openapi_routes
from fakeapi.http.podlogs import pod_log
from fakeapi.http.routing import NamespacedPaths
from fakeapi.machinery.clock import Clock
from fakeapi.storage.watch import WatchHub

CLUSTER = "/api/v1/{resource}"
WATCH_NAMESPACED = "/api/v1/watch/namespaces/{namespace}/{resource}"
WATCH_CLUSTER = "/api/v1/watch/{resource}"


def create_app(config: ServerConfig | None = None, clock: Clock | None = None) -> web.Application:
    config = config or ServerConfig()
    api = build_api(config, clock)
    app = web.Application(client_max_size=config.max_body_bytes)
    app[config_key] = config
    app[api_key] = api
    api.store.set_history_age(config.watch_history_age, api.clock.monotonic)
    app[watch_hub_key] = WatchHub(api.store, api.clock, config.bookmark_interval)
    app.on_shutdown.append(app[watch_hub_key].shutdown)  # ends every watch before aiohttp waits for handlers
    routes = GuardedRouter(app.router, api)
    setup_routes(app, routes)
    setup_control_routes(app, routes)
    routes.finish()
    return app


def setup_routes(app: web.Application, router: GuardedRouter) -> None:
    for path in ("/healthz", "/livez", "/readyz"):
        router.add_get(path, handlers.healthz)
    router.add_get("/version", handlers.version)
    router.add_get("/api", discovery.core_api)
    router.add_get("/apis", discovery.api_groups)
    router.add_get("/api/v1", discovery.core_v1_resources)
    setup_openapi_routes(app, router)
    router.register_resource(_namespaced_paths(router))
    # pods/binding is the one subresource written with POST
    router.add_post("/api/v1/namespaces/{namespace}/pods/{name}/binding", create_binding)
    # pods/log streams text
    router.add_get("/api/v1/namespaces/{namespace}/pods/{name}/log", pod_log)
    # legacy watch paths (/api/v1/watch/...) must win over the generic patterns below
    router.add_get(WATCH_NAMESPACED, handlers.watch_collection)
    router.add_get(WATCH_NAMESPACED + "/{name}", handlers.watch_object)
    router.add_get(WATCH_CLUSTER, handlers.watch_collection)
    router.add_get(WATCH_CLUSTER + "/{name}", handlers.watch_object)
    # namespaces/{name}/status (NamespacedPaths leaves it alone)
    _subresource_routes(router, "/api/v1/{resource:namespaces}/{name}/{subresource:status}")
    # cluster-scoped resources (namespaces) and lists across namespaces (/api/v1/pods)
    router.add_get(CLUSTER, handlers.list_collection)
    router.add_post(CLUSTER, handlers.create)
    _object_routes(router, CLUSTER + "/{name}")


def _namespaced_paths(router: GuardedRouter) -> NamespacedPaths:
    """Collections, objects and subresources in a namespace (binding and log are routes of their own)."""
    paths = NamespacedPaths()
    for segments, method, handler in (
        (2, "GET", handlers.list_collection), (2, "POST", handlers.create), (2, "DELETE", handlers.delete_collection),
        (3, "GET", handlers.get), (3, "PUT", handlers.replace), (3, "PATCH", handlers.patch),
        (3, "DELETE", handlers.delete),
        (4, "GET", handlers.get_subresource), (4, "PUT", handlers.replace_subresource),
        (4, "PATCH", handlers.patch_subresource),
    ):
        paths.add(segments, method, router.guard(handler))
    return paths


def _object_routes(router: GuardedRouter, path: str) -> None:
    router.add_get(path, handlers.get)
    router.add_put(path, handlers.replace)
    router.add_patch(path, handlers.patch)
    router.add_delete(path, handlers.delete)


def _subresource_routes(router: GuardedRouter, path: str) -> None:
    router.add_get(path, handlers.get_subresource)
    router.add_put(path, handlers.replace_subresource)
    router.add_patch(path, handlers.patch_subresource)
