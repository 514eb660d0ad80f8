"""Requests to a custom resource version whose objects the CRD's conversion webhook converts: the request is
served by the storage version's registry, with the objects converted on the way in and out (one webhook call
for a whole list). A failed conversion is a 500 with upstream's `conversion webhook for ... failed: ...`.

The object is validated and its managedFields kept in the storage version (upstream validates the version
asked for); watches and server-side apply of such a version answer 503 (see WebhookConversion)."""

from __future__ import annotations

from typing import Any

import orjson
from aiohttp import web

from fakeapi.http.keys import api_key, watch_hub_key
from fakeapi.http.responses import json_response
from fakeapi.kinds.customresource.conversion import ConversionFailed, WebhookConversion
from fakeapi.machinery.errors import InternalError
from fakeapi.machinery.types import JSON
from fakeapi.registry.generic import Registry
from fakeapi.registry.listing import list_body, list_page, parse_list_options
from fakeapi.registry.options import DeleteOptions, WriteOptions
from fakeapi.registry.pagination import Page


def webhook_conversion(registry: Any) -> WebhookConversion | None:
    conversion = getattr(registry, "conversion", None)
    return conversion if isinstance(conversion, WebhookConversion) else None


def storage_registry(request: web.Request, registry: Registry, conversion: WebhookConversion) -> Registry:
    group, version = conversion.stored.split("/", 1)
    return request.app[api_key].registry(registry.info.resource, group, version)


async def convert(conversion: WebhookConversion, objects: list[JSON], api_version: str) -> list[JSON]:
    try:
        return await conversion.convert(objects, api_version)
    except ConversionFailed as error:
        raise InternalError(f"Internal error occurred: {error}") from None


async def get(request: web.Request, registry: Registry, conversion: WebhookConversion, namespace: str,
              name: str) -> web.Response:
    stored = storage_registry(request, registry, conversion).get(namespace, name)
    return json_response((await convert(conversion, [stored], conversion.served))[0])


async def list_objects(request: web.Request, registry: Registry, conversion: WebhookConversion,
                       namespace: str | None) -> web.Response:
    options = parse_list_options(request.query, registry.kind.field_labels, False)
    if options.watch:
        raise conversion.refusal()
    page = await list_page(request.app[watch_hub_key], storage_registry(request, registry, conversion), namespace,
                           options)
    converted = await convert(conversion, [orjson.loads(item) for item in page.items], conversion.served)
    page = Page([orjson.dumps(obj) for obj in converted], page.resource_version, page.continue_token, page.remaining)
    return json_response(list_body(registry.info.list_kind, registry.info.api_version, page))


async def write(request: web.Request, registry: Registry, conversion: WebhookConversion, namespace: str,
                name: str | None, body: Any, options: WriteOptions) -> web.Response:
    """A create (`name` None) or an update of an object sent in the served version."""
    storage = storage_registry(request, registry, conversion)
    if isinstance(body, dict) and body.get("apiVersion") == conversion.served:
        body = (await convert(conversion, [body], conversion.stored))[0]
    if name is None:
        written, created = storage.create(namespace, body, options), True
    else:
        written, created = storage.replace(namespace, name, body, options)
    served = (await convert(conversion, [written], conversion.served))[0]
    return json_response(served, status=201 if created else 200, warnings=options.warnings)


async def patch(request: web.Request, registry: Registry, conversion: WebhookConversion, namespace: str, name: str,
                patcher: Any, patch_body: Any, options: WriteOptions) -> web.Response:
    """A JSON or merge patch of the served form; the update names the resourceVersion it was made from, so a
    concurrent write is a conflict."""
    storage = storage_registry(request, registry, conversion)
    current = storage.get(namespace, name)
    served = (await convert(conversion, [current], conversion.served))[0]
    patched = patcher(served, patch_body)
    if isinstance(patched, dict) and isinstance(patched.get("metadata"), dict):
        patched["metadata"]["resourceVersion"] = current["metadata"]["resourceVersion"]
    return await write(request, registry, conversion, namespace, name, patched, options)


async def delete(request: web.Request, registry: Registry, conversion: WebhookConversion, namespace: str, name: str,
                 options: DeleteOptions) -> tuple[JSON, bool]:
    obj, gone = storage_registry(request, registry, conversion).delete(namespace, name, options)
    if obj.get("kind") == "Status":
        return obj, gone
    return (await convert(conversion, [obj], conversion.served))[0], gone
