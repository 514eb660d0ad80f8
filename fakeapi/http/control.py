"""The /fakeapi/v1/ control API: reset, seed, dump, snapshots, faults, clock, request log and pod log text.

The operations are plain functions over an `Api`, shared by the HTTP routes below and by the in-process
`fakeapi.testing.FakeAPIServer`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import orjson
from aiohttp import web

from fakeapi.cluster import Api, seed_initial_objects
from fakeapi.http.access import CONTROL_HEADER
from fakeapi.http.authentication import user_of
from fakeapi.http.bodies import media_type, parse_yaml
from fakeapi.http.containercontrol import setup_container_routes
from fakeapi.http.faults import FaultRule
from fakeapi.http.guard import GuardedRouter
from fakeapi.http.keys import (
    api_key,
    config_key,
    containers_key,
    faults_key,
    request_log_key,
    state_followers_key,
    watch_hub_key,
)
from fakeapi.http.responses import json_response
from fakeapi.machinery.clock import OUT_OF_RANGE, Clock, in_range, parse_rfc3339, shifted
from fakeapi.machinery.errors import BadRequest, Forbidden, NotFound
from fakeapi.machinery.labels import parse_label_selector
from fakeapi.machinery.limits import load_json
from fakeapi.machinery.types import JSON
from fakeapi.machinery.users import ANONYMOUS
from fakeapi.machinery.yamlload import load_yaml_all
from fakeapi.podlogs import LogsSnapshot
from fakeapi.registry.generic import Registry
from fakeapi.seeding import seed
from fakeapi.storage.store import StoreSnapshot

PREFIX = "/fakeapi/v1"


@dataclass(frozen=True)
class Snapshot:
    """The whole state at one moment: every object and every pod log text."""

    store: StoreSnapshot
    pod_logs: LogsSnapshot

    @property
    def resource_version(self) -> int:
        return self.store.resource_version

    def __len__(self) -> int:
        return len(self.store)


snapshots_key = web.AppKey("fakeapi_snapshots", dict[str, Snapshot])

# ---- operations


def reset(app: web.Application, seed: int | None = None) -> None:
    """Back to a fresh server: only the initial namespaces (and what the controllers put in each), no logs,
    faults or recorded requests, a live clock, and uids and names drawn from `seed` (as a fresh server's
    with that seed); a simulated cluster starts again (its nodes register anew). The resourceVersion keeps
    counting up; open watches end, and their clients, watching again, get 410 Expired and relist."""
    api = app[api_key]
    api.store.restore(StoreSnapshot({}, 0))
    app[watch_hub_key].end_all()
    api.pod_logs.clear()
    app[containers_key].clear()
    app[faults_key].clear()
    app[request_log_key].clear()
    api.clock.reset()
    api.ids.reseed(seed)
    seed_initial_objects(api)
    for follower in app.get(state_followers_key, ()):
        follower.after_reset()


def take_snapshot(api: Api) -> Snapshot:
    return Snapshot(api.store.snapshot(), api.pod_logs.copy())


def restore(app: web.Application, snapshot: Snapshot) -> None:
    """Put back a snapshot's objects and logs (faults, clock and the request log are not part of it); a
    simulated cluster carries on from them. Open watches end; their clients, watching again, get 410
    Expired and relist."""
    api = app[api_key]
    api.store.restore(snapshot.store)
    api.pod_logs.replace_all(snapshot.pod_logs)
    app[containers_key].forget_all()
    app[watch_hub_key].end_all()
    for follower in app.get(state_followers_key, ()):
        follower.after_restore()


def resolve(api: Api, resource: str) -> Registry:
    """A registry by plural, singular, short name or kind (`pods`, `pod`, `po`, `Pod`)."""
    for registry in api.kinds.registries():
        info = registry.info
        if resource in (info.resource, info.singular, info.kind) or resource in info.short_names:
            return registry
    raise NotFound(f'the server doesn\'t have a resource type "{resource}"', {})


def get_object(api: Api, resource: str, name: str, namespace: str = "default") -> JSON:
    registry = resolve(api, resource)
    return registry.get(namespace if registry.info.namespaced else "", name)


def list_objects(api: Api, resource: str, namespace: str | None = None,
                 label_selector: str = "") -> list[JSON]:
    """Objects of a resource (in one namespace, or all), in storage order (namespace, then name)."""
    registry = resolve(api, resource)
    selector = parse_label_selector(label_selector) if label_selector else None
    scope = namespace if registry.info.namespaced else None
    items = [orjson.loads(data) for data in registry.list_all(scope)]
    if selector is None:
        return items
    return [item for item in items if selector.matches(item["metadata"].get("labels"))]


def dump(api: Api, resource: str | None = None, namespace: str | None = None) -> bytes:
    """Every object as one `List` (cluster-scoped resources first), which `seed` takes back."""
    registries = [resolve(api, resource)] if resource else \
        sorted(api.stored_registries(), key=lambda registry: registry.info.namespaced)
    items: list[bytes] = []
    for registry in registries:
        items.extend(registry.list_all(namespace))
    head = b'{"kind":"List","apiVersion":"v1","metadata":{"resourceVersion":"%d"},"items":[' % (
        api.store.resource_version)
    return head + b",".join(items) + b"]}"


def clock_state(clock: Clock) -> JSON:
    return {"now": iso_time(clock.now()), "frozen": clock.frozen}


async def change_clock(clock: Clock, body: Any) -> JSON:
    """Apply `{"frozen": bool, "now": time, "advanceSeconds": n}`: freeze or unfreeze, set, then advance.
    Checked whole before any of it is applied: the clock stays within the years RFC 3339 can write.

    The advance fires the timers due in slices, answering other requests between them; it is as long as
    the timers due (the simulated cluster's: a lease renewal per node every 10 simulated seconds, a node
    monitor pass every 5), and bound by the request timeout: cut there (504), the clock stays at the last
    timer fired."""
    try:
        from fakeapi.http.controlbodies import CLOCK_CHANGE  # marshmallow loads with the first change

        change: dict[str, Any] = CLOCK_CHANGE.load_body(body)
    except ValueError as error:
        raise BadRequest(str(error)) from None
    when = _parse_time(change["now"]) if change.get("now") is not None else None
    frozen, advance = change.get("frozen"), change.get("advance")
    if advance and shifted(when or clock.now(), advance) is None:
        raise BadRequest(OUT_OF_RANGE)
    if frozen is True:
        clock.freeze(when)
    elif frozen is False:
        clock.unfreeze()
    if when is not None and frozen is not True:
        clock.set(when)
    if advance:
        await clock.advance_in_slices(advance)
    return clock_state(clock)


def iso_time(when: datetime) -> str:
    return when.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _parse_time(value: Any) -> datetime:
    try:
        when = parse_rfc3339(str(value))
    except ValueError:
        raise BadRequest(f"now must be an RFC 3339 time, not {value!r}") from None
    try:
        return in_range(when)
    except ValueError as error:
        raise BadRequest(str(error)) from None


def _json_body(raw: bytes, empty: Any) -> Any:
    """A control request's JSON body (`empty` when there is none), within the request body limits."""
    if not raw:
        return empty
    try:
        return load_json(raw)
    except ValueError as error:
        raise BadRequest(f"json parse error: {error}") from None


def _success(message: str = "") -> web.Response:
    status: JSON = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success"}
    if message:
        status["message"] = message
    status["code"] = 200
    return json_response(status)


# ---- HTTP


def setup_control_routes(app: web.Application, router: GuardedRouter) -> None:
    app[snapshots_key] = {}
    router.add_post(PREFIX + "/reset", reset_handler)
    router.add_post(PREFIX + "/seed", seed_handler)
    router.add_get(PREFIX + "/dump", dump_handler)
    router.add_post(PREFIX + "/snapshots", create_snapshot)
    router.add_get(PREFIX + "/snapshots", list_snapshots)
    router.add_delete(PREFIX + "/snapshots/{id}", delete_snapshot)
    router.add_post(PREFIX + "/snapshots/{id}/restore", restore_snapshot)
    router.add_get(PREFIX + "/faults", list_faults)
    router.add_post(PREFIX + "/faults", create_fault)
    router.add_delete(PREFIX + "/faults", clear_faults)
    router.add_get(PREFIX + "/faults/{id}", get_fault)
    router.add_delete(PREFIX + "/faults/{id}", delete_fault)
    router.add_get(PREFIX + "/clock", get_clock)
    router.add_post(PREFIX + "/clock", post_clock)
    router.add_get(PREFIX + "/requests", list_requests)
    router.add_delete(PREFIX + "/requests", clear_requests)
    log = PREFIX + "/logs/{namespace}/{pod}/{container}"
    router.add_get(log, get_log)
    router.add_put(log, put_log)
    router.add_post(log, append_log)
    setup_container_routes(router, PREFIX)


async def reset_handler(request: web.Request) -> web.Response:
    reset(request.app, request.app[config_key].seed)
    return _success("reset")


async def seed_handler(request: web.Request) -> web.Response:
    """Seed from the body: JSON, or else YAML text. Never a file: a body naming one is just text."""
    raw = await request.read()
    source: Any
    if media_type(request) == "application/json":
        source = _json_body(raw, None)
        if not isinstance(source, dict | list):
            raise BadRequest("seed a JSON object, a List or an array of objects")
    else:
        max_bytes = request.app[config_key].max_body_bytes
        source = await parse_yaml(raw, lambda text: load_yaml_all(text, max_bytes))
    created = seed(request.app[api_key], source)
    return json_response({"kind": "List", "apiVersion": "v1", "metadata": {}, "items": created}, status=201)


async def dump_handler(request: web.Request) -> web.Response:
    query = request.query
    dumped = dump(request.app[api_key], query.get("resource") or None, query.get("namespace") or None)
    return json_response(dumped)


def _snapshot_json(snapshot_id: str, snapshot: Snapshot) -> JSON:
    return {"id": snapshot_id, "resourceVersion": str(snapshot.resource_version), "objects": len(snapshot)}


async def create_snapshot(request: web.Request) -> web.Response:
    snapshots = request.app[snapshots_key]
    snapshot_id = str(max((int(key) for key in snapshots), default=0) + 1)
    snapshots[snapshot_id] = take_snapshot(request.app[api_key])
    return json_response(_snapshot_json(snapshot_id, snapshots[snapshot_id]), status=201)


async def list_snapshots(request: web.Request) -> web.Response:
    items = [_snapshot_json(key, snapshot) for key, snapshot in request.app[snapshots_key].items()]
    return json_response({"items": items})


def _snapshot(request: web.Request) -> tuple[str, Snapshot]:
    snapshot_id = request.match_info["id"]
    snapshot = request.app[snapshots_key].get(snapshot_id)
    if snapshot is None:
        raise NotFound(f'snapshot "{snapshot_id}" not found', {"name": snapshot_id, "kind": "snapshots"})
    return snapshot_id, snapshot


async def restore_snapshot(request: web.Request) -> web.Response:
    snapshot_id, snapshot = _snapshot(request)
    restore(request.app, snapshot)
    return _success(f"restored snapshot {snapshot_id}")


async def delete_snapshot(request: web.Request) -> web.Response:
    snapshot_id, snapshot = _snapshot(request)
    del request.app[snapshots_key][snapshot_id]
    return json_response(_snapshot_json(snapshot_id, snapshot))


async def list_faults(request: web.Request) -> web.Response:
    faults = request.app[faults_key]
    return json_response({"items": [rule.to_json() for rule in faults.rules],
                          "fired": [fired.to_json() for fired in faults.fired]})


async def create_fault(request: web.Request) -> web.Response:
    body = _json_body(await request.read(), None)
    try:
        rule = FaultRule.from_json(body)
    except (ValueError, TypeError) as error:
        raise BadRequest(str(error)) from None
    return json_response(request.app[faults_key].add(rule).to_json(), status=201)


async def clear_faults(request: web.Request) -> web.Response:
    request.app[faults_key].clear()
    return _success("faults cleared")


def _fault(request: web.Request) -> FaultRule:
    rule_id = request.match_info["id"]
    rule = request.app[faults_key].get(int(rule_id)) if rule_id.isdigit() else None
    if rule is None:
        raise NotFound(f'fault "{rule_id}" not found', {"name": rule_id, "kind": "faults"})
    return rule


async def get_fault(request: web.Request) -> web.Response:
    return json_response(_fault(request).to_json())


async def delete_fault(request: web.Request) -> web.Response:
    rule = _fault(request)
    request.app[faults_key].remove(rule.id)
    return json_response(rule.to_json())


async def get_clock(request: web.Request) -> web.Response:
    return json_response(clock_state(request.app[api_key].clock))


async def post_clock(request: web.Request) -> web.Response:
    body = _json_body(await request.read(), {})
    return json_response(await change_clock(request.app[api_key].clock, body))


async def list_requests(request: web.Request) -> web.Response:
    """The request log, to those who may read what clients sent: with the control header, which no web page
    can send, and, on a server that checks credentials, as an authenticated user."""
    if CONTROL_HEADER not in request.headers:
        raise Forbidden(f"reading the request log takes the header {CONTROL_HEADER}: 1 (the log holds what "
                        f"clients sent; web pages cannot send the header to another site)")
    if request.app[config_key].authentication.checks_credentials and user_of(request) == ANONYMOUS:
        raise Forbidden(f'forbidden: User "{ANONYMOUS.username}" cannot get path "{request.path}"', {})
    filters = {key: request.query.get(key) for key in ("verb", "resource", "subresource", "namespace", "name",
                                                        "method", "user")}
    entries = request.app[request_log_key].entries(**filters)
    return json_response({"items": [entry.to_json() for entry in entries]})


async def clear_requests(request: web.Request) -> web.Response:
    request.app[request_log_key].clear()
    return _success("request log cleared")


def _log_key(request: web.Request) -> tuple[str, str, str]:
    match = request.match_info
    return match["namespace"], match["pod"], match["container"]


def _previous(request: web.Request) -> bool:
    """`?previous=true`: the log of the container's previous instance (what `kubectl logs -p` reads)."""
    value = request.query.get("previous", "")
    if value not in ("", "true", "false"):
        raise BadRequest(f'previous must be true or false, not "{value}"')
    return value == "true"


async def get_log(request: web.Request) -> web.Response:
    text = request.app[api_key].pod_logs.text(*_log_key(request), previous=_previous(request))
    return web.Response(text=text, content_type="text/plain")


async def put_log(request: web.Request) -> web.Response:
    api = request.app[api_key]
    previous = _previous(request)
    api.pod_logs.set(*_log_key(request), await _log_text(request), api.clock.now(), previous=previous)
    return _success("log set")


async def append_log(request: web.Request) -> web.Response:
    api = request.app[api_key]
    previous = _previous(request)
    api.pod_logs.append(*_log_key(request), await _log_text(request), api.clock.now(), previous=previous)
    return _success("log appended")


async def _log_text(request: web.Request) -> str:
    """The text of a log body, `{"text": "..."}` (JSON, as every control API body)."""
    body = _json_body(await request.read(), None)
    if not isinstance(body, dict) or set(body) != {"text"} or not isinstance(body["text"], str):
        raise BadRequest('a log body is a JSON object {"text": "..."}')
    text: str = body["text"]
    return text

