"""Thin HTTP handlers: parse the request, call the registry, encode the answer."""

from __future__ import annotations

from aiohttp import web

from fakeapi.cluster import Api
from fakeapi.http import conversion
from fakeapi.http.admitted import admitted
from fakeapi.http.authentication import user_of
from fakeapi.http.bodies import read_object, read_optional_object, read_patch, repeated_key_errors
from fakeapi.http.keys import api_key
from fakeapi.http.largepatches import computed_ahead
from fakeapi.http.listing import delete_collection as delete_listed
from fakeapi.http.listing import get_one, list_or_watch
from fakeapi.http.pretty import indented
from fakeapi.http.responses import KIND_WARNINGS, json_response
from fakeapi.http.versioninfo import VERSION
from fakeapi.machinery.errors import MethodNotAllowed, UnsupportedMediaType
from fakeapi.machinery.patch import APPLY_PATCH, CUSTOM_RESOURCE_PATCH_TYPES, PATCH_TYPES
from fakeapi.machinery.types import JSON
from fakeapi.registry.generic import Registry
from fakeapi.registry.options import DeleteOptions, WriteOptions
from fakeapi.registry.scale import ScaleRegistry

# ---- meta


async def version(request: web.Request) -> web.Response:
    """GET /version: always indented, as upstream's WriteRawJSON writes it."""
    return json_response(indented(VERSION))


# ---- collections


def _api(request: web.Request) -> Api:
    return request.app[api_key]


def _namespace(request: web.Request) -> str:
    return request.match_info.get("namespace", "")


def _registry(request: web.Request) -> Registry:
    match = request.match_info
    registry = _api(request).registry(match["resource"], match["group"], match["version"])
    namespaced_path = "namespace" in request.match_info
    if registry.info.namespaced != namespaced_path and not (registry.info.namespaced and request.method == "GET"):
        raise MethodNotAllowed.on_path()
    if registry.kind.warnings:
        request[KIND_WARNINGS] = registry.kind.warnings
    return registry


def _subresource(request: web.Request) -> Registry | ScaleRegistry:
    """The registry of a subresource: one written as its object (status), or a kind's scale."""
    match = request.match_info
    if match["subresource"] == "scale":
        return _api(request).scale(match["resource"], match["group"], match["version"])
    return _api(request).subresource(match["resource"], match["subresource"], match["group"], match["version"])


async def list_collection(request: web.Request) -> web.StreamResponse:
    registry = _registry(request)
    namespace = request.match_info.get("namespace") if registry.info.namespaced else None
    webhook = conversion.webhook_conversion(registry)
    if webhook is not None:
        return await conversion.list_objects(request, registry, webhook, namespace)
    return await list_or_watch(request, registry, namespace)


async def watch_collection(request: web.Request) -> web.StreamResponse:
    """The legacy `/api/v1/watch/...` collection path: a list request that always watches."""
    registry = _registry(request)
    _refuse_webhook_watch(registry)
    namespace = request.match_info.get("namespace") if registry.info.namespaced else None
    return await list_or_watch(request, registry, namespace, force_watch=True)


async def watch_object(request: web.Request) -> web.StreamResponse:
    """The legacy `/api/v1/watch/.../{name}` path: a watch of one object."""
    registry = _registry(request)
    _refuse_webhook_watch(registry)
    namespace = request.match_info.get("namespace") if registry.info.namespaced else None
    name = request.match_info["name"]
    return await list_or_watch(request, registry, namespace, name=name, force_watch=True)


def _refuse_webhook_watch(registry: Registry) -> None:
    webhook = conversion.webhook_conversion(registry)
    if webhook is not None:
        raise webhook.refusal()


async def create(request: web.Request) -> web.Response:
    registry = _registry(request)
    body = await read_object(request)
    options = await _write_options(request, registry)
    webhook = conversion.webhook_conversion(registry)
    if webhook is not None:
        return await conversion.write(request, registry, webhook, _namespace(request), None, body, options)
    created = await admitted(request, lambda: registry.create(_namespace(request), body, options), options)
    return json_response(created, status=201, warnings=options.warnings)


async def delete_collection(request: web.Request) -> web.Response:
    registry = _registry(request)
    return await delete_listed(request, registry, _namespace(request))


# ---- one object


async def get(request: web.Request) -> web.Response:
    registry = _registry(request)
    webhook = conversion.webhook_conversion(registry)
    if webhook is not None:
        return await conversion.get(request, registry, webhook, _namespace(request), request.match_info["name"])
    return await get_one(request, registry, _namespace(request), request.match_info["name"])


async def replace(request: web.Request) -> web.Response:
    return await _replace(request, _registry(request))


async def patch(request: web.Request) -> web.Response:
    return await _patch(request, _registry(request))


async def delete(request: web.Request) -> web.Response:
    registry = _registry(request)
    body = await read_optional_object(request)
    options = DeleteOptions.parse(body, request.query)
    webhook = conversion.webhook_conversion(registry)
    if webhook is not None:
        obj, gone = await conversion.delete(request, registry, webhook, _namespace(request), request.match_info["name"],
                                            options)
    else:
        obj, gone = await admitted(
            request, lambda: registry.delete(_namespace(request), request.match_info["name"], options), options)
    if gone and not registry.info.returns_deleted_object:
        return json_response(success_status(registry.info.resource, registry.info.group, obj),
                             warnings=options.warnings)
    accepted = not gone and options.orphan_dependents is False
    return json_response(obj, status=202 if accepted else 200, warnings=options.warnings)


def _patch_types(registry: Registry | ScaleRegistry) -> tuple[str, ...]:
    kind = registry.objects.kind if isinstance(registry, ScaleRegistry) else registry.kind
    return PATCH_TYPES if kind.strategic_merge_patch else CUSTOM_RESOURCE_PATCH_TYPES


def success_status(resource: str, group: str, deleted: JSON) -> JSON:
    """What upstream answers for a finished delete of a resource that does not return the object."""
    meta = deleted.get("metadata", {})
    details: JSON = {"name": meta.get("name", "")}
    if group:
        details["group"] = group
    details.update(kind=resource, uid=meta.get("uid", ""))
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "details": details}


# ---- subresources


async def get_subresource(request: web.Request) -> web.Response:
    registry = _subresource(request)
    return json_response(registry.get_bytes(_namespace(request), request.match_info["name"]))


async def replace_subresource(request: web.Request) -> web.Response:
    return await _replace(request, _subresource(request))


async def patch_subresource(request: web.Request) -> web.Response:
    return await _patch(request, _subresource(request))


async def _replace(request: web.Request, registry: Registry | ScaleRegistry) -> web.Response:
    body = await read_object(request)
    options = await _write_options(request, registry)
    webhook = conversion.webhook_conversion(registry)
    if webhook is not None and isinstance(registry, Registry):
        return await conversion.write(request, registry, webhook, _namespace(request), request.match_info["name"],
                                      body, options)
    updated, created = await admitted(
        request, lambda: registry.replace(_namespace(request), request.match_info["name"], body, options), options,
        calls_webhooks=isinstance(registry, Registry))
    return json_response(updated, status=201 if created else 200, warnings=options.warnings)


async def _write_options(request: web.Request, registry: Registry | ScaleRegistry) -> WriteOptions:
    """A create's or an update's options, with the strict decoding errors of a body that repeats a key
    when the client asked for Strict or Warn. A client that sends no fieldValidation is not checked
    (upstream warns): the check parses the body again, and such clients serialise objects, which
    cannot repeat a key (kubectl always sends it)."""
    options = WriteOptions.from_request(request.query, request.headers.get("User-Agent", ""))
    options.user = user_of(request)
    if "fieldValidation" in request.query and options.field_validation != "Ignore":
        options.strict_errors = await repeated_key_errors(request, registry.decoder)
    return options


async def _patch(request: web.Request, registry: Registry | ScaleRegistry) -> web.Response:
    content_type, patch_body = await read_patch(request, _patch_types(registry))
    name = request.match_info["name"]
    if content_type == APPLY_PATCH:
        from fakeapi.registry.apply import server_side_apply

        if isinstance(registry, ScaleRegistry):
            raise UnsupportedMediaType(f"the {content_type} patch type is not supported for the scale subresource")
        options = WriteOptions.from_query(request.query)  # apply needs an explicit fieldManager
        options.user = user_of(request)
        obj, created = await admitted(
            request, lambda: server_side_apply(registry, _namespace(request), name, patch_body, options), options)
        return json_response(obj, status=201 if created else 200, warnings=options.warnings)
    options = WriteOptions.from_request(request.query, request.headers.get("User-Agent", ""))
    options.user = user_of(request)
    from fakeapi.registry.patchers import patcher_for  # the patch machinery loads on the first PATCH

    patcher = patcher_for(content_type, registry.patch_tree, options.field_validation)
    webhook = conversion.webhook_conversion(registry)
    if webhook is not None and isinstance(registry, Registry):
        return await conversion.patch(request, registry, webhook, _namespace(request), name, patcher, patch_body,
                                      options)
    patcher = await computed_ahead(registry, _namespace(request), name, patcher, patch_body,
                                   len(await request.read()))
    patched = await admitted(request, lambda: registry.patch(_namespace(request), name, patcher, patch_body, options),
                             options, calls_webhooks=isinstance(registry, Registry))
    return json_response(patched, warnings=options.warnings)
