"""The /fakeapi/v1/ control API over HTTP: reset, seed, dump, snapshots, faults, clock, requests, logs."""

from __future__ import annotations

import asyncio
import contextlib
import io
from pathlib import Path
from typing import Any

import aiohttp
import orjson
import pytest
import yaml

from fakeapi.app import create_app
from fakeapi.cluster import BOOTSTRAP_POLICY
from fakeapi.config import ServerConfig
from fakeapi.http.faults import ACTIONS, JSON_NAMES, MATCHERS
from fakeapi.machinery.clock import parse_rfc3339
from fakeapi.serve import serve
from fakeapi.testing import FakeAPIServer

API = "/fakeapi/v1"
PODS = "/api/v1/namespaces/default/pods"
YAML = "application/yaml"
POD_YAML = """
apiVersion: v1
kind: Pod
metadata: {name: web}
spec: {containers: [{name: app, image: nginx}]}
"""


def _success(message: str) -> dict[str, Any]:
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "message": message,
            "code": 200}


async def _names(http: aiohttp.ClientSession, path: str = PODS) -> list[str]:
    async with http.get(path) as response:
        return [item["metadata"]["name"] for item in (await response.json())["items"]]


async def test_reset_empties_the_server(http: aiohttp.ClientSession, make_pod: Any) -> None:
    async with http.post(PODS, json=make_pod("web")):
        pass
    async with http.post(API + "/reset") as response:
        assert (response.status, await response.json()) == (200, _success("reset"))
    assert await _names(http) == []
    namespaces = await _names(http, "/api/v1/namespaces")
    assert namespaces == ["default", "kube-node-lease", "kube-public", "kube-system"]


async def test_seed_takes_yaml_or_a_json_list(http: aiohttp.ClientSession, make_pod: Any) -> None:
    async with http.post(API + "/seed", data=POD_YAML, headers={"Content-Type": YAML}) as response:
        assert response.status == 201
        body = await response.json()
        assert (body["kind"], [i["metadata"]["name"] for i in body["items"]]) == ("List", ["web"])
        assert body["items"][0]["status"] == {"phase": "Pending", "qosClass": "BestEffort"}
    async with http.post(API + "/seed", json=[make_pod("a"), make_pod("b")]) as response:
        assert response.status == 201
    assert await _names(http) == ["a", "b", "web"]


async def test_seed_errors_are_statuses(http: aiohttp.ClientSession, make_pod: Any) -> None:
    async with http.post(API + "/seed", json=[make_pod("web"), make_pod("web")]) as response:
        assert response.status == 409
        assert (await response.json())["message"] == 'pods "web" already exists'
    async with http.post(API + "/seed", data="a: [", headers={"Content-Type": YAML}) as response:
        assert response.status == 400
        assert (await response.json())["message"].startswith("error converting YAML to JSON:")
    async with http.post(API + "/seed", json="pods") as response:
        assert response.status == 400
        assert (await response.json())["message"] == "seed a JSON object, a List or an array of objects"


async def test_seed_and_dump_take_nodes_with_their_status_and_leases_in_their_group(
        http: aiohttp.ClientSession) -> None:
    from tests.builders import kubelet_status, lease, node

    held = lease("node-1", holderIdentity="node-1")
    held["metadata"]["namespace"] = "kube-node-lease"
    async with http.post(API + "/seed", json=[node(status=kubelet_status()), held]) as response:
        assert response.status == 201
        seeded = (await response.json())["items"]
    assert seeded[0]["status"]["nodeInfo"]["kubeletVersion"] == "v1.32.0"
    assert (seeded[1]["apiVersion"], seeded[1]["metadata"]["namespace"]) == ("coordination.k8s.io/v1",
                                                                              "kube-node-lease")
    async with http.post(API + "/seed", json=[held]) as response:
        assert (await response.json())["message"] == 'leases.coordination.k8s.io "node-1" already exists'
    async with http.get(API + "/dump?resource=leases") as response:
        assert [(i["kind"], i["apiVersion"]) for i in (await response.json())["items"]] == [
            ("Lease", "coordination.k8s.io/v1")]
    async with http.get(API + "/dump?resource=no") as response:
        assert [i["metadata"]["name"] for i in (await response.json())["items"]] == ["node-1"]


async def test_dump_lists_every_object_namespaces_first(http: aiohttp.ClientSession, make_pod: Any) -> None:
    async with http.post(API + "/seed", json=[make_pod("web"), make_pod("db", namespace="kube-system")]):
        pass
    async with http.get(API + "/dump") as response:
        dump = await response.json()
    assert dump["kind"] == "List" and dump["apiVersion"] == "v1"
    namespaces = ["default", "kube-node-lease", "kube-public", "kube-system"]
    policy = [i for i in dump["items"] if i["kind"] in ("ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding")]
    assert len(policy) == sum(len(objects) for _, objects in BOOTSTRAP_POLICY)  # the bootstrap policy
    assert [(i["kind"], i["metadata"].get("namespace", ""), i["metadata"]["name"]) for i in dump["items"]
            if i not in policy] == [
        *[("Namespace", "", name) for name in namespaces],
        ("Pod", "default", "web"), ("Pod", "kube-system", "db"),
        # what the controllers keep in every namespace
        *[("ConfigMap", namespace, "kube-root-ca.crt") for namespace in namespaces],
        *[("ServiceAccount", namespace, "default") for namespace in namespaces],
        # what the server keeps: the `kubernetes` Service and its endpoints; kube-dns
        ("Service", "default", "kubernetes"), ("Service", "kube-system", "kube-dns"),
        ("Endpoints", "default", "kubernetes"),
        ("EndpointSlice", "default", "kubernetes")]
    async with http.get(API + "/dump?resource=pods&namespace=kube-system") as response:
        assert [i["metadata"]["name"] for i in (await response.json())["items"]] == ["db"]


async def test_snapshots_are_taken_listed_restored_and_deleted(http: aiohttp.ClientSession,
                                                               make_pod: Any) -> None:
    async with http.post(API + "/seed", json=[make_pod("kept")]):
        pass
    async with http.post(API + "/snapshots") as response:
        assert response.status == 201
        snapshot = await response.json()
    # the pod, the 4 namespaces, the default ServiceAccount and kube-root-ca.crt of each, and the `kubernetes`
    # Service, Endpoints and EndpointSlice, the `kube-dns` Service and the bootstrap RBAC policy
    assert snapshot["id"] == "1" and snapshot["objects"] == 17 + sum(len(objects) for _, objects in BOOTSTRAP_POLICY)
    async with http.post(API + "/seed", json=[make_pod("later")]):
        pass
    async with http.get(API + "/snapshots") as response:
        assert await response.json() == {"items": [snapshot]}
    async with http.post(API + "/snapshots/1/restore") as response:
        assert (response.status, await response.json()) == (200, _success("restored snapshot 1"))
    assert await _names(http) == ["kept"]
    async with http.delete(API + "/snapshots/1") as response:
        assert await response.json() == snapshot
    async with http.post(API + "/snapshots/1/restore") as response:
        assert response.status == 404
        assert (await response.json())["message"] == 'snapshot "1" not found'


async def test_fault_rules_are_created_listed_and_deleted(http: aiohttp.ClientSession) -> None:
    async with http.post(API + "/faults", json={"verb": "list", "resource": "pods", "status": 503,
                                                "times": 1}) as response:
        assert response.status == 201
        rule = await response.json()
    assert rule == {"id": 1, "verb": "list", "resource": "pods", "status": 503, "times": 1, "matched": 0,
                    "fired": 0}
    async with http.get(PODS) as response:
        assert response.status == 503
    async with http.get(API + "/faults") as response:
        listed = await response.json()
    assert listed["items"] == [{**rule, "matched": 1, "fired": 1}]
    [fired] = listed["fired"]
    assert {k: fired[k] for k in ("rule", "method", "path", "verb", "resource")} == {
        "rule": 1, "method": "GET", "path": PODS, "verb": "list", "resource": "pods"}
    async with http.get(API + "/faults/1") as response:
        assert (await response.json())["fired"] == 1
    async with http.delete(API + "/faults/1") as response:
        assert response.status == 200
    async with http.get(API + "/faults/1") as response:
        assert response.status == 404
        assert (await response.json())["message"] == 'fault "1" not found'
    async with http.post(API + "/faults", json={"status": 503}):
        pass
    async with http.delete(API + "/faults") as response:
        assert await response.json() == _success("faults cleared")
    async with http.get(API + "/faults") as response:
        assert await response.json() == {"items": [], "fired": []}


async def test_invalid_fault_rules_are_bad_requests(http: aiohttp.ClientSession) -> None:
    for body, message in (({"status": 418}, "status 418 is not supported: use one of "
                                            "[400, 403, 404, 409, 410, 429, 500, 503, 504]"),
                          ({"verb": "get"}, "a fault rule needs an action: status, delay or cutWatchAfter"),
                          ({"status": 409, "colour": "red"}, "unknown field 'colour' in fault rule"),
                          ([], "a fault rule must be a JSON object")):
        async with http.post(API + "/faults", json=body) as response:
            assert response.status == 400
            assert (await response.json())["message"] == message


async def test_the_clock_can_be_frozen_set_and_advanced(http: aiohttp.ClientSession, make_pod: Any) -> None:
    async with http.get(API + "/clock") as response:
        assert (await response.json())["frozen"] is False
    async with http.post(API + "/clock", json={"frozen": True, "now": "2030-05-01T10:00:00Z"}) as response:
        assert await response.json() == {"now": "2030-05-01T10:00:00Z", "frozen": True}
    async with http.post(API + "/clock", json={"advanceSeconds": 90}) as response:
        assert await response.json() == {"now": "2030-05-01T10:01:30Z", "frozen": True}
    async with http.post(PODS, json=make_pod("web")) as response:
        assert (await response.json())["metadata"]["creationTimestamp"] == "2030-05-01T10:01:30Z"
    async with http.post(API + "/clock", json={"frozen": False}) as response:
        state = await response.json()
    assert state["frozen"] is False and state["now"].startswith("2030-05-01T10:01:3")
    async with http.post(API + "/clock", json={"rewind": 3}) as response:
        assert response.status == 400
        assert (await response.json())["message"] == "unknown clock fields: rewind"
    async with http.post(API + "/clock", json={"now": "soon"}) as response:
        assert (await response.json())["message"] == "now must be an RFC 3339 time, not 'soon'"


async def test_a_long_clock_advance_answers_other_requests_meanwhile_and_stops_at_the_request_timeout() -> None:
    config = ServerConfig(request_timeout=1.0)
    async with FakeAPIServer(nodes=5, config=config) as server, \
            aiohttp.ClientSession(base_url=server.url, headers={"X-Fakeapi-Control": "1"}) as http:
        async with http.post(API + "/clock", json={"frozen": True, "now": "2030-05-01T10:00:00Z"}):
            pass
        # 5 kubelets renew their leases every 10 s: a million seconds is half a million writes
        advance = asyncio.create_task(http.post(API + "/clock", json={"advanceSeconds": 1e6}))
        answered = 0
        while not advance.done():
            async with http.get("/readyz") as response:
                assert await response.text() == "ok"
            answered += int(not advance.done())
            await asyncio.sleep(0.01)
        response = await advance
        assert response.status == 504
        assert (await response.json())["message"] == "Timeout: request did not complete within the allotted timeout"
        assert answered >= 2  # /readyz was answered while the advance ran (a blocked loop answers none)
        async with http.get(API + "/clock") as response:
            now = (await response.json())["now"]
        assert "2030-05-01T10:00:10Z" < now < "2030-05-13"
        # the clock stopped where the timers had got to: every lease was renewed within its last 10 s
        async with http.get("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases") as response:
            renewals = [parse_rfc3339(lease["spec"]["renewTime"]) for lease in (await response.json())["items"]]
        assert len(renewals) == 5
        assert all(0 <= (parse_rfc3339(now) - renewed).total_seconds() <= 10 for renewed in renewals)


async def test_the_request_log_is_listed_filtered_and_cleared(http: aiohttp.ClientSession,
                                                              make_pod: Any) -> None:
    async with http.post(PODS + "?fieldManager=me", json=make_pod("web")):
        pass
    async with http.get(PODS + "/web"):
        pass
    async with http.get(API + "/requests?verb=create") as response:
        [entry] = (await response.json())["items"]
    assert {k: v for k, v in entry.items() if k not in ("time", "headers", "body")} == {
        "method": "POST", "path": PODS, "query": {"fieldManager": "me"}, "status": 201, "verb": "create",
        "resource": "pods", "subresource": "", "namespace": "default", "name": "",
        "user": {"username": "system:anonymous", "groups": ["system:unauthenticated"]}}
    assert orjson.loads(entry["body"]) == make_pod("web")
    assert entry["headers"]["Content-Type"] == "application/json"
    async with http.get(API + "/requests") as response:
        assert [e["verb"] for e in (await response.json())["items"]] == ["create", "get"]
    async with http.delete(API + "/requests"):
        pass
    async with http.get(API + "/requests") as response:
        assert (await response.json())["items"] == []


async def test_the_request_log_records_what_no_route_serves_and_bodies_too_large(
        http: aiohttp.ClientSession) -> None:
    async with http.get("/no/such/path") as response:
        assert (response.status, (await response.json())["reason"]) == (404, "NotFound")
    async with http.delete("/version") as response:
        assert (response.status, (await response.json())["reason"]) == (405, "MethodNotAllowed")
    async with http.get(API + "/no-such-control") as response:  # the control API is never recorded
        assert (response.status, (await response.json())["reason"]) == (404, "NotFound")
    async with http.post(PODS, data=io.BytesIO(b"{" + b" " * (3 * 1024 * 1024))) as response:
        assert (response.status, (await response.json())["reason"]) == (413, "RequestEntityTooLarge")
    async with http.get(API + "/requests") as response:
        logged = [(e["method"], e["path"], e["status"]) for e in (await response.json())["items"]]
    assert logged == [("GET", "/no/such/path", 404), ("DELETE", "/version", 405), ("POST", PODS, 413)]


async def test_log_text_is_set_appended_and_served(async_fakeapi: FakeAPIServer, http: aiohttp.ClientSession,
                                                  make_pod: Any) -> None:
    async_fakeapi.seed(make_pod("web"))
    log = API + "/logs/default/web/main"
    async with http.put(log, json={"text": "one\n"}) as response:
        assert await response.json() == _success("log set")
    async with http.post(log, json={"text": "two\n"}) as response:
        assert await response.json() == _success("log appended")
    async with http.get(log) as response:
        assert await response.text() == "one\ntwo\n"
    async with http.get(PODS + "/web/log") as response:
        assert (response.content_type, await response.text()) == ("text/plain", "one\ntwo\n")


# ---- web pages cannot reach it

# What a web page can send to 127.0.0.1 without a CORS preflight: a form or a no-cors fetch, with a
# text/plain or form body and no header of its own.
SIMPLE_REQUESTS = [
    ("POST", "/reset", "text/plain", ""),
    ("POST", "/seed", "text/plain", POD_YAML),
    ("POST", "/faults", "text/plain", '{"status": 500}'),
    ("POST", "/clock", "application/x-www-form-urlencoded", "frozen=true"),
    ("DELETE", "/requests", "text/plain", ""),
    ("POST", "/snapshots/1/restore", "text/plain", ""),
    ("PUT", "/logs/default/web/main", "text/plain", "planted"),
]
NEEDS_HEADER = ("control API requests that change state must carry the header X-Fakeapi-Control: 1 "
                "(web pages cannot send it to another site)")


@pytest.mark.parametrize(("method", "path", "content_type", "body"), SIMPLE_REQUESTS)
async def test_a_web_pages_simple_request_changes_nothing(async_fakeapi: FakeAPIServer, make_pod: Any,
                                                           method: str, path: str, content_type: str,
                                                           body: str) -> None:
    async_fakeapi.seed(make_pod("web"))
    async_fakeapi.set_log("default", "web", "main", "kept\n")
    async_fakeapi.snapshot()
    before = async_fakeapi.dump()
    async with aiohttp.ClientSession(base_url=async_fakeapi.url) as page, \
            page.request(method, API + path, data=body, headers={"Content-Type": content_type}) as response:
        assert (response.status, (await response.json())["message"]) == (403, NEEDS_HEADER)
    assert async_fakeapi.dump() == before
    assert (async_fakeapi.faults, async_fakeapi.clock.frozen) == ([], False)
    async with aiohttp.ClientSession(base_url=async_fakeapi.url) as page, page.get(PODS + "/web/log") as response:
        assert await response.text() == "kept\n"


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data",
                                          ""])
async def test_control_bodies_are_json(http: aiohttp.ClientSession, content_type: str) -> None:
    headers = {"Content-Type": content_type} if content_type else {}
    async with http.post(API + "/faults", data=b'{"status": 500}', headers=headers,
                         skip_auto_headers=["Content-Type"]) as response:
        answer = await response.json()
    assert (response.status, answer["reason"], answer["message"]) == (
        415, "UnsupportedMediaType", f"the control API takes application/json bodies (seed also takes "
                                     f"application/yaml), not {content_type or 'no Content-Type'}")
    async with http.get(API + "/faults") as response:
        assert (await response.json())["items"] == []


async def test_reads_need_no_header(async_fakeapi: FakeAPIServer) -> None:
    async with aiohttp.ClientSession(base_url=async_fakeapi.url) as session, \
            session.get(API + "/clock") as response:
        assert response.status == 200


@pytest.mark.parametrize(("method", "path"), [("GET", "/requests"), ("POST", "/reset"), ("GET", "/clock")])
async def test_the_control_api_turned_off_is_not_there(method: str, path: str) -> None:
    async with FakeAPIServer(config=ServerConfig(control_api=False)) as server, \
            aiohttp.ClientSession(base_url=server.url, headers={"X-Fakeapi-Control": "1"}) as session, \
            session.request(method, API + path) as response:
        assert (response.status, await response.json()) == (404, {
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": "the server could not find the requested resource", "reason": "NotFound", "details": {},
            "code": 404})


def test_the_openapi_document_describes_every_control_route() -> None:
    document = yaml.safe_load((Path(__file__).resolve().parents[2] / "fakeapi" / "openapi" / "fakeapi-control.yaml")
                              .read_text())
    documented = {(path, method.upper()) for path, item in document["paths"].items()
                  for method in item if method != "parameters"}
    served = {(route.resource.canonical, route.method) for route in create_app().router.routes()
              if route.resource is not None and route.resource.canonical.startswith(API)
              and route.method != "HEAD"}
    assert documented == served
    rule_fields = {JSON_NAMES.get(name, name) for name in (*MATCHERS, *ACTIONS)} | {"id", "matched", "fired"}
    assert set(document["components"]["schemas"]["FaultRule"]["properties"]) == rule_fields


async def test_serve_seeds_the_files_given_at_start(tmp_path: Path) -> None:
    seed_file, kubeconfig = tmp_path / "objects.yaml", tmp_path / "kubeconfig"
    seed_file.write_text(POD_YAML)
    server = asyncio.create_task(serve(ServerConfig(), "127.0.0.1", 0, kubeconfig, [seed_file]))
    try:
        for _ in range(500):
            if kubeconfig.exists() or server.done():
                break
            await asyncio.sleep(0.01)
        url = yaml.safe_load(kubeconfig.read_text())["clusters"][0]["cluster"]["server"]
        async with aiohttp.ClientSession(base_url=url) as http:
            assert await _names(http) == ["web"]
    finally:
        server.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await server
