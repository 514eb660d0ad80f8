"""GET on collections and objects: lists (JSON or Table), watches, and deletecollection."""

from __future__ import annotations

import orjson
from aiohttp import web

from fakeapi.errors import MethodNotAllowed
from fakeapi.options import DeleteOptions
from fakeapi.registry import Registry
from fakeapi.responses import json_response


def list_body(registry: Registry, items: list[bytes], resource_version: int) -> bytes:
    head = b'{"kind":"%s","apiVersion":"v1","metadata":{"resourceVersion":"%d"},"items":[' % (
        registry.info.list_kind.encode(), resource_version)
    return head + b",".join(items) + b"]}"


async def list_or_watch(request: web.Request, registry: Registry, namespace: str | None) -> web.StreamResponse:
    if request.query.get("watch") in ("true", "1"):
        raise MethodNotAllowed.verb("watch", registry.info.resource)
    items = registry.store.list_bytes(registry.info.resource, namespace)
    return json_response(list_body(registry, items, registry.store.resource_version))


async def get_one(request: web.Request, registry: Registry, namespace: str, name: str) -> web.Response:
    return json_response(registry.get_bytes(namespace, name))


async def delete_collection(request: web.Request, registry: Registry, namespace: str) -> web.Response:
    from fakeapi.bodies import read_optional_json

    options = DeleteOptions.parse(await read_optional_json(request), request.query)
    deleted = []
    for key, _data in list(registry.store.items(registry.info.resource, namespace or None)):
        obj, _gone = registry.delete(key.namespace, key.name, options)
        deleted.append(orjson.dumps(obj))
    return json_response(list_body(registry, deleted, registry.store.resource_version))
