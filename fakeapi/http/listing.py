"""GET on collections and objects: lists (JSON or Table), watches, and deletecollection."""

from __future__ import annotations

from functools import partial
from typing import Final

import orjson
from aiohttp import web

from fakeapi.http.admitted import admitted
from fakeapi.http.describeclock import for_describe
from fakeapi.http.keys import watch_hub_key, watch_writer_key
from fakeapi.http.responses import json_response
from fakeapi.http.tableaccept import table_group_version
from fakeapi.http.watchstream import TableRenderer, serve_watch
from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.errors import BadRequest, NotFound
from fakeapi.machinery.types import JSON
from fakeapi.registry.generic import Registry
from fakeapi.registry.listing import list_body, list_page, parse_list_options, parse_resource_version, watch_spec
from fakeapi.registry.options import DeleteOptions
from fakeapi.registry.pagination import Page
from fakeapi.storage.watch import too_large_resource_version

INCLUDE_OBJECT: Final = ("", "Metadata", "Object", "None")


# ---- list and watch


async def list_or_watch(request: web.Request, registry: Registry, namespace: str | None,
                        name: str | None = None, force_watch: bool = False) -> web.StreamResponse:
    """GET on a collection (`namespace` None: across namespaces, or a cluster-scoped resource)."""
    options = parse_list_options(request.query, registry.kind.field_labels, force_watch)
    if name is not None and options.name() != name and options.fields is not None:
        raise BadRequest("fieldSelector metadata.name doesn't match requested name")
    hub = request.app[watch_hub_key]
    table_version = table_group_version(request.headers.get("Accept", ""))
    if options.watch:
        table = _table_renderer(request, registry, table_version)
        spec = watch_spec(registry, namespace, name, options)
        return await serve_watch(request, hub, request.app[watch_writer_key], spec, table)
    page = await list_page(hub, registry, namespace, options)
    if table_version is not None:
        return _table_response(request, registry, table_version, page)
    body = list_body(registry.info.list_kind, registry.info.api_version, page)
    return json_response(for_describe(request, registry.info.resource, registry.clock, body))


# ---- Table output


def _include_object(request: web.Request) -> str:
    """The includeObject query value, checked as upstream's ValidateTableOptions does."""
    value = request.query.get("includeObject", "")
    if value not in INCLUDE_OBJECT:
        error = fe.invalid("includeObject", value, "must be 'Metadata', 'Object', 'None', or empty")
        raise BadRequest(f"Unable to convert to Table as requested: {error}")
    return value


def _table_renderer(request: web.Request, registry: Registry, version: str | None) -> TableRenderer | None:
    if version is None:
        return None
    return TableRenderer(registry.kind.printer, version, _include_object(request), registry.clock.now)


def _table_content_type(version: str) -> str:
    group, _, api_version = version.partition("/")
    return f"application/json;as=Table;v={api_version};g={group}"


def _table_response(request: web.Request, registry: Registry, version: str, page: Page) -> web.Response:
    from fakeapi.machinery.tables.table import to_table

    include = _include_object(request)
    objects = [orjson.loads(data) for data in page.items]
    table = to_table(registry.kind.printer, objects, registry.clock.now(), include,
                     str(page.resource_version), continue_token=page.continue_token or None,
                     remaining=page.remaining, api_version=version)
    return web.Response(body=orjson.dumps(table), headers={"Content-Type": _table_content_type(version)})


# ---- one object


async def get_one(request: web.Request, registry: Registry, namespace: str, name: str) -> web.Response:
    """GET one object, as JSON or as a one-row Table; `resourceVersion=N` waits for N like the cache."""
    text = request.query.get("resourceVersion", "")
    requested = parse_resource_version(text)
    store = registry.store
    if not text:
        await store.consistent_read()  # (a store shared with other servers reads its current revision first)
    if requested > store.resource_version and not await request.app[watch_hub_key].wait_for(requested):
        raise too_large_resource_version(requested, store.resource_version)
    data = registry.get_bytes(namespace, name)
    version = table_group_version(request.headers.get("Accept", ""))
    if version is None:
        return json_response(data)
    from fakeapi.machinery.tables.table import to_table

    include = _include_object(request)
    obj: JSON = orjson.loads(data)
    rv = str((obj.get("metadata") or {}).get("resourceVersion", ""))
    table = to_table(registry.kind.printer, [obj], registry.clock.now(), include, rv, api_version=version)
    return web.Response(body=orjson.dumps(table), headers={"Content-Type": _table_content_type(version)})


# ---- deletecollection


async def delete_collection(request: web.Request, registry: Registry, namespace: str) -> web.Response:
    """Delete every object the list options select; answer with the list as it was before (upstream)."""
    from fakeapi.http.bodies import read_optional_object

    options = parse_list_options(request.query, registry.kind.field_labels)
    delete_options = DeleteOptions.parse(await read_optional_object(request), request.query)
    page = await list_page(request.app[watch_hub_key], registry, namespace or None, options)
    listed = [orjson.loads(data) for data in page.items]
    for obj in listed:
        meta = obj.get("metadata") or {}
        try:  # (each delete admitted as one: webhooks are called for each object)
            await admitted(request, partial(registry.delete, meta.get("namespace", ""), meta.get("name", ""),
                                            delete_options), delete_options)
        except NotFound:
            pass  # deleted meanwhile: upstream ignores that too
    return json_response(list_body(registry.info.list_kind, registry.info.api_version, page),
                         warnings=delete_options.warnings)
