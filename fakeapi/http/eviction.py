"""POST pods/{name}/eviction: kubectl drain's way of removing a pod (fakeapi.registry.eviction)."""

from __future__ import annotations

from aiohttp import web

from fakeapi.http.bodies import read_object
from fakeapi.http.keys import api_key
from fakeapi.http.responses import json_response
from fakeapi.registry.binding import SUCCESS
from fakeapi.registry.eviction import decode_eviction, evict_pod
from fakeapi.registry.options import WriteOptions


async def create_eviction(request: web.Request) -> web.Response:
    """POST /api/v1/namespaces/{namespace}/pods/{name}/eviction"""
    pods = request.app[api_key].registry("pods")
    options = WriteOptions.from_request(request.query, request.headers.get("User-Agent", ""))
    eviction = decode_eviction(await read_object(request), options)
    evict_pod(pods, request.match_info["namespace"], request.match_info["name"], eviction, options.dry_run)
    return json_response(SUCCESS, status=201, warnings=options.warnings)
