"""POST pods/{name}/binding and POST bindings: a scheduler assigns a pod to a node."""

from __future__ import annotations

from aiohttp import web

from fakeapi.http.admitted import admitted_request
from fakeapi.http.bodies import read_object
from fakeapi.http.keys import api_key
from fakeapi.http.responses import json_response
from fakeapi.kinds.kind import ResourceInfo
from fakeapi.registry.admission import CREATE
from fakeapi.registry.binding import SUCCESS, bind_pod, decode_binding
from fakeapi.registry.options import WriteOptions

# upstream lists `bindings` (create only) beside pods/binding; neither is stored
BINDINGS = ResourceInfo("bindings", "Binding", namespaced=True, singular="binding", verbs=("create",),
                        definition="io.k8s.api.core.v1.Binding")


async def create_binding(request: web.Request) -> web.Response:
    """POST /api/v1/namespaces/{namespace}/pods/{name}/binding"""
    return await _bind(request, request.match_info["name"])


async def create_bindings(request: web.Request) -> web.Response:
    """POST /api/v1/namespaces/{namespace}/bindings: the pod is the one the Binding names."""
    return await _bind(request, None)


async def _bind(request: web.Request, name: str | None) -> web.Response:
    pods = request.app[api_key].registry("pods")
    options = WriteOptions.from_request(request.query, request.headers.get("User-Agent", ""))
    binding = decode_binding(await read_object(request), options)
    if name is None:
        await admitted_request(request, CREATE, "", ("", "v1", "Binding"), binding, options, BINDINGS)
        name = str(binding["metadata"].get("name") or "")
    else:
        await admitted_request(request, CREATE, "binding", ("", "v1", "Binding"), binding, options)
    bind_pod(pods, request.match_info["namespace"], name, binding, options.dry_run)
    return json_response(SUCCESS, status=201, warnings=options.warnings)
