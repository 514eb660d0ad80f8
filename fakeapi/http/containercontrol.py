"""The control API's part about containers: exec scripts, port-forward addresses and the simulated kubelets.

    GET, POST, DELETE /fakeapi/v1/exec          scripts exec answers with (fakeapi.processes.scripts)
    GET, DELETE       /fakeapi/v1/exec/{id}
    GET, POST, DELETE /fakeapi/v1/ports         where port-forwarded connections go (an address)
    GET, DELETE       /fakeapi/v1/ports/{id}
    POST              /fakeapi/v1/nodes/{name}/fail, /recover   stop a node's kubelet, start it again
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from aiohttp import web

from fakeapi.http.guard import GuardedRouter
from fakeapi.http.keys import containers_key, kubelets_key
from fakeapi.http.responses import json_response
from fakeapi.machinery.errors import BadRequest, NotFound
from fakeapi.machinery.limits import load_json
from fakeapi.processes.ports import PortRule
from fakeapi.processes.scripts import Script


def setup_container_routes(router: GuardedRouter, prefix: str) -> None:
    for collection in ("/exec", "/ports"):
        router.add_get(prefix + collection, list_rules)
        router.add_post(prefix + collection, create_rule)
        router.add_delete(prefix + collection, clear_rules)
        router.add_get(prefix + collection + "/{id}", get_rule)
        router.add_delete(prefix + collection + "/{id}", delete_rule)
    router.add_post(prefix + "/nodes/{name}/fail", fail_node)
    router.add_post(prefix + "/nodes/{name}/recover", recover_node)


def _rules(request: web.Request) -> Sequence[Script | PortRule]:
    containers = request.app[containers_key]
    return containers.scripts if _kind(request) == "exec" else containers.ports


def _kind(request: web.Request) -> str:
    return "exec" if request.path.split("/")[3] == "exec" else "ports"


async def list_rules(request: web.Request) -> web.Response:
    return json_response({"items": [rule.to_json() for rule in _rules(request)]})


async def create_rule(request: web.Request) -> web.Response:
    raw = await request.read()
    try:
        body: Any = load_json(raw) if raw else None
    except ValueError as error:
        raise BadRequest(f"json parse error: {error}") from None
    containers = request.app[containers_key]
    try:
        if _kind(request) == "exec":
            created = containers.add_script(Script.from_json(body)).to_json()
        else:
            created = containers.add_port(PortRule.from_json(body)).to_json()
    except (ValueError, TypeError) as error:
        raise BadRequest(str(error)) from None
    return json_response(created, status=201)


async def clear_rules(request: web.Request) -> web.Response:
    containers = request.app[containers_key]
    for rule in list(_rules(request)):
        containers.remove(rule.id)
    return json_response({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
                          "message": f"{_kind(request)} rules cleared", "code": 200})


def _rule(request: web.Request) -> Script | PortRule:
    rule_id = request.match_info["id"]
    for rule in _rules(request):
        if str(rule.id) == rule_id:
            return rule
    kind = _kind(request)
    raise NotFound(f'{kind} rule "{rule_id}" not found', {"name": rule_id, "kind": kind})


async def get_rule(request: web.Request) -> web.Response:
    return json_response(_rule(request).to_json())


async def delete_rule(request: web.Request) -> web.Response:
    rule = _rule(request)
    request.app[containers_key].remove(rule.id)
    return json_response(rule.to_json())


async def fail_node(request: web.Request) -> web.Response:
    """Stop the node's kubelet: it renews no lease and reports no status (the node controller finds the
    node Unknown after 50 s, then evicts its pods), and exec, attach and port-forward cannot reach it."""
    return _switch(request, fail=True)


async def recover_node(request: web.Request) -> web.Response:
    return _switch(request, fail=False)


def _switch(request: web.Request, fail: bool) -> web.Response:
    name = request.match_info["name"]
    kubelets = request.app[kubelets_key]
    try:
        (kubelets.fail_node if fail else kubelets.recover_node)(name)
    except KeyError:
        raise NotFound(f'node "{name}" has no simulated kubelet', {"name": name, "kind": "nodes"}) from None
    return json_response({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
                          "message": f"kubelet of node {name} {'stopped' if fail else 'started'}", "code": 200})
