"""POST pods/{name}/eviction: kubectl drain's way of removing a pod (fakeapi.registry.eviction)."""

from __future__ import annotations

from aiohttp import web

from fakeapi.http.admitted import admitted_request
from fakeapi.http.bodies import read_object
from fakeapi.http.keys import api_key
from fakeapi.http.responses import json_response
from fakeapi.registry.admission import CREATE
from fakeapi.registry.eviction import Evictions, decode_eviction
from fakeapi.registry.options import WriteOptions


async def create_eviction(request: web.Request) -> web.Response:
    """POST /api/v1/namespaces/{namespace}/pods/{name}/eviction"""
    api = request.app[api_key]
    pods = api.registry("pods")
    budgets = api.kinds.get("poddisruptionbudgets", "policy")
    evictions = Evictions(pods, api.subresource("pods", "status"), budgets,
                          api.kinds.subresource("poddisruptionbudgets", "status", "policy"), api.clock)
    options = WriteOptions.from_request(request.query, request.headers.get("User-Agent", ""))
    eviction = decode_eviction(await read_object(request), options)
    await admitted_request(request, CREATE, "eviction", ("policy", "v1", "Eviction"), eviction, options)
    status = evictions.evict(request.match_info["namespace"], request.match_info["name"], eviction, options)
    return json_response(status, status=status["code"], warnings=options.warnings)
