"""create_app(): a fresh, empty server (its own store, clock and registries) as an aiohttp app."""

from __future__ import annotations

from aiohttp import web

from fakeapi import handlers
from fakeapi.api import build_api
from fakeapi.clock import Clock
from fakeapi.config import ServerConfig
from fakeapi.keys import api_key, config_key
from fakeapi.middleware import status_middleware

NAMESPACED = "/api/v1/namespaces/{namespace}/{resource}"
CLUSTER = "/api/v1/{resource}"


def create_app(config: ServerConfig | None = None, clock: Clock | None = None) -> web.Application:
    config = config or ServerConfig()
    app = web.Application(middlewares=[status_middleware], client_max_size=config.max_body_bytes)
    app[config_key] = config
    app[api_key] = build_api(config, clock)
    setup_routes(app)
    return app


def setup_routes(app: web.Application) -> None:
    router = app.router
    for path in ("/healthz", "/livez", "/readyz"):
        router.add_get(path, handlers.healthz)
    router.add_get("/version", handlers.version)
    # namespaces/{name}/status must win over the namespaced collection pattern below
    status = "/api/v1/{resource:namespaces}/{name}/{subresource:status}"
    router.add_get(status, handlers.get_subresource)
    router.add_put(status, handlers.replace_subresource)
    router.add_patch(status, handlers.patch_subresource)
    # namespaced resources
    router.add_get(NAMESPACED, handlers.list_collection)
    router.add_post(NAMESPACED, handlers.create)
    router.add_delete(NAMESPACED, handlers.delete_collection)
    _object_routes(app, NAMESPACED + "/{name}")
    # cluster-scoped resources (namespaces) and lists across namespaces (/api/v1/pods)
    router.add_get(CLUSTER, handlers.list_collection)
    router.add_post(CLUSTER, handlers.create)
    _object_routes(app, CLUSTER + "/{name}")


def _object_routes(app: web.Application, path: str) -> None:
    router = app.router
    router.add_get(path, handlers.get)
    router.add_put(path, handlers.replace)
    router.add_patch(path, handlers.patch)
    router.add_delete(path, handlers.delete)
    router.add_get(path + "/{subresource}", handlers.get_subresource)
    router.add_put(path + "/{subresource}", handlers.replace_subresource)
    router.add_patch(path + "/{subresource}", handlers.patch_subresource)
