"""FakeAPIServer: both modes, clients, seeding, direct state access, reset, snapshots, request log."""

from __future__ import annotations

import asyncio
import re
import threading
import time
import urllib.error
import urllib.request
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiohttp
import orjson
import pytest
import yaml

from fakeapi.config import ServerConfig
from fakeapi.machinery.clock import Clock
from fakeapi.machinery.errors import BadRequest, Invalid, NotFound
from fakeapi.registry.options import DeleteOptions
from fakeapi.testing import FakeAPIServer

PODS = "/api/v1/namespaces/default/pods"
TWO_PODS_YAML = """
apiVersion: v1
kind: Pod
metadata: {name: a}
spec: {containers: [{name: app, image: nginx}]}
---
apiVersion: v1
kind: Pod
metadata: {name: b, namespace: team}
spec: {containers: [{name: app, image: nginx}]}
---
apiVersion: v1
kind: Namespace
metadata: {name: team}
"""


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=5) as response:
        return orjson.loads(response.read())


def _refused(url: str) -> bool:
    try:
        urllib.request.urlopen(url + "/readyz", timeout=2)
    except (urllib.error.URLError, ConnectionError):
        return True
    return False


# ---- the two modes


async def test_async_mode_serves_on_the_callers_loop() -> None:
    async with FakeAPIServer() as server:
        assert server.url == f"http://127.0.0.1:{server.port}"
        async with aiohttp.ClientSession() as http, http.get(server.url + "/api/v1/namespaces") as response:
            names = [ns["metadata"]["name"] for ns in (await response.json())["items"]]
        assert names == ["default", "kube-node-lease", "kube-public", "kube-system"]
        assert server._thread is None
    assert await asyncio.to_thread(_refused, server.url)


def test_thread_mode_serves_blocking_clients() -> None:
    from kubernetes import client

    with FakeAPIServer() as server:
        v1 = client.CoreV1Api(server.kubernetes_client())
        assert "default" in [ns.metadata.name for ns in v1.list_namespace().items]
        assert server._thread is not None and server._thread.is_alive()
        thread = server._thread
    assert not thread.is_alive()
    assert _refused(server.url)


def test_kubeconfig_points_at_the_server_and_is_removed_at_stop() -> None:
    from kubernetes import client, config

    with FakeAPIServer() as server:
        path = Path(server.kubeconfig)
        kubeconfig = yaml.safe_load(path.read_text())
        assert kubeconfig["clusters"][0]["cluster"]["server"] == server.url
        api_client = config.new_client_from_config(str(path))
        assert client.CoreV1Api(api_client).read_namespace("default").metadata.name == "default"
        api_client.close()
    assert not path.exists() and not path.parent.exists()


async def test_kubernetes_asyncio_client_is_configured_and_closed_at_stop() -> None:
    from kubernetes_asyncio import client

    async with FakeAPIServer() as server:
        api_client = server.kubernetes_asyncio_client()
        namespaces = await client.CoreV1Api(api_client).list_namespace()
        assert len(namespaces.items) == 4
    assert api_client.rest_client.pool_manager.closed


async def test_start_to_first_answer_is_fast() -> None:
    started = time.perf_counter()
    async with FakeAPIServer() as server, aiohttp.ClientSession() as session:
        async with session.get(server.url + "/readyz") as response:
            assert await response.text() == "ok"
        assert time.perf_counter() - started < 0.5  # benchmarks/inprocess.py measures ~15 ms


# ---- seeding


@pytest.mark.parametrize("form", ["yaml text", "yaml bytes", "file path", "path object", "dicts", "List"])
def test_seed_takes_yaml_files_dicts_and_lists(form: str, tmp_path: Path) -> None:
    documents = list(yaml.safe_load_all(TWO_PODS_YAML))
    file = tmp_path / "objects.yaml"
    file.write_text(TWO_PODS_YAML)
    source: Any = {
        "yaml text": TWO_PODS_YAML, "yaml bytes": TWO_PODS_YAML.encode(), "file path": str(file),
        "path object": file, "dicts": documents,
        "List": {"apiVersion": "v1", "kind": "List", "items": documents},
    }[form]
    with FakeAPIServer() as server:
        created = server.seed(source)
        # namespaces go first, so a pod may come before its namespace
        assert [(o["kind"], o["metadata"]["name"]) for o in created] == [("Namespace", "team"), ("Pod", "a"),
                                                                         ("Pod", "b")]
        assert [(p["metadata"]["namespace"], p["metadata"]["name"]) for p in server.list("pods")] == [
            ("default", "a"), ("team", "b")]


async def test_seeded_objects_go_through_the_create_pipeline(make_pod: Any) -> None:
    pod = make_pod("web", status={"phase": "Running", "podIP": "10.0.0.7"})
    async with FakeAPIServer() as server:
        [created] = server.seed(pod)
        assert created["spec"]["restartPolicy"] == "Always"  # defaulted
        assert created["metadata"]["uid"] and created["metadata"]["creationTimestamp"]
        # the status is written through pods/status: kept, with the qosClass the server computed
        assert created["status"] == {"phase": "Running", "podIP": "10.0.0.7", "podIPs": [{"ip": "10.0.0.7"}],
                                     "qosClass": "BestEffort"}
        assert server.get("pods", "web") == created
        assert "status" in pod and "uid" not in pod["metadata"]  # the caller's dict is untouched
        with pytest.raises(Invalid) as invalid:
            server.seed(make_pod("Bad_Name"))
        assert invalid.value.message.startswith('Pod "Bad_Name" is invalid: metadata.name: Invalid value: '
                                                '"Bad_Name": a lowercase RFC 1123 subdomain')


async def test_changing_a_seeded_object_changes_nothing_the_server_keeps(make_pod: Any) -> None:
    # the server works out alike statuses once; what seed returns must be the caller's own copy
    status = {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}
    async with FakeAPIServer() as server:
        [first] = server.seed(make_pod("a", status=status))
        owned = first["metadata"]["managedFields"][-1]["fieldsV1"]["f:status"]
        owned["f:conditions"].clear()
        owned["f:phase"]["f:surprise"] = {}
        [second] = server.seed(make_pod("b", status=status))
        assert second["metadata"]["managedFields"][-1]["fieldsV1"] == {"f:status": {
            # a condition's unset times are written as null, and so owned (as upstream's kubelet entries show)
            "f:conditions": {".": {}, 'k:{"type":"Ready"}': {".": {}, "f:lastProbeTime": {},
                                                            "f:lastTransitionTime": {}, "f:status": {},
                                                            "f:type": {}}},
            "f:phase": {}}}
        assert server.get("pods", "a")["metadata"]["managedFields"][-1]["fieldsV1"] == \
            second["metadata"]["managedFields"][-1]["fieldsV1"]


def test_seed_refuses_kinds_it_does_not_serve() -> None:
    with FakeAPIServer() as server, pytest.raises(BadRequest) as refused:
        server.seed({"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": {"name": "d"}})
    assert refused.value.message == 'no matches for kind "Ingress" in version "networking.k8s.io/v1"'


def test_a_dump_seeds_back_into_a_fresh_server() -> None:
    with FakeAPIServer() as first, FakeAPIServer() as second:
        first.seed(TWO_PODS_YAML)
        second.seed(first.dump())
        def names(server: FakeAPIServer) -> list[tuple[str, str]]:
            return [(o["metadata"].get("namespace"), o["metadata"]["name"]) for o in server.dump()["items"]]

        assert names(second) == names(first)


# ---- reading


@pytest.mark.parametrize("resource", ["pods", "pod", "po", "Pod"])
def test_get_and_list_take_any_resource_name(resource: str, make_pod: Any) -> None:
    with FakeAPIServer() as server:
        server.seed([make_pod("b", labels={"tier": "db"}), make_pod("a", labels={"tier": "web"})])
        assert server.get(resource, "a")["metadata"]["labels"] == {"tier": "web"}
        assert [p["metadata"]["name"] for p in server.list(resource)] == ["a", "b"]
        assert [p["metadata"]["name"] for p in server.list(resource, label_selector="tier=db")] == ["b"]
        assert server.list(resource, namespace="kube-system") == []


def test_get_of_a_missing_object_raises_not_found() -> None:
    with FakeAPIServer() as server:
        with pytest.raises(NotFound, match='pods "nope" not found'):
            server.get("pods", "nope")
        with pytest.raises(NotFound, match='the server doesn\'t have a resource type "widgets"'):
            server.list("widgets")
        assert server.get("namespaces", "default")["metadata"]["name"] == "default"


# ---- reset and snapshots


def test_reset_returns_to_a_fresh_server_and_replays_the_same_ids(make_pod: Any) -> None:
    with FakeAPIServer(seed=5) as server:
        first = server.seed(make_pod("web"))[0]["metadata"]["uid"]
        server.inject(verb="get", status=500)
        server.set_log("default", "web", "app", "hello")
        server.clock.freeze(datetime(2030, 1, 1, tzinfo=UTC))
        _get(server.url + "/api/v1/namespaces")
        version = server.api.store.resource_version
        server.reset()
        assert server.list("pods") == [] and server.faults == [] and server.requests == []
        assert not server.clock.frozen and server.clock.now().year < 2030
        assert server.api.pod_logs.text("default", "web", "app") == ""
        assert [ns["metadata"]["name"] for ns in server.list("namespaces")][0] == "default"
        assert server.seed(make_pod("web"))[0]["metadata"]["uid"] == first
        assert server.api.store.resource_version > version


async def test_snapshot_restore_brings_objects_back_and_versions_keep_rising(make_pod: Any) -> None:
    async with FakeAPIServer() as server:
        server.seed(make_pod("kept"))
        server.set_log("default", "kept", "app", "line\n")
        snapshot = server.snapshot()
        taken_at = server.api.store.resource_version
        server.seed(make_pod("added"))
        server.api.registry("pods").delete("default", "kept", DeleteOptions(grace_period_seconds=0))
        server.restore(snapshot)
        assert [p["metadata"]["name"] for p in server.list("pods")] == ["kept"]
        assert server.api.pod_logs.text("default", "kept", "app") == "line\n"
        assert server.api.store.resource_version > taken_at + 2
        # a watcher resuming from before the restore must relist
        async with aiohttp.ClientSession() as session, session.get(
                f"{server.url}{PODS}?watch=true&resourceVersion={taken_at}") as response:
            events = [orjson.loads(line) for line in (await response.read()).splitlines()]
        assert [(e["type"], e["object"]["reason"], e["object"]["code"]) for e in events] == [
            ("ERROR", "Expired", 410)]


async def test_reset_and_restore_end_open_watches(make_pod: Any) -> None:
    async with FakeAPIServer() as server, aiohttp.ClientSession() as session:
        snapshot = server.snapshot()
        for change in (server.reset, lambda: server.restore(snapshot), server.close_watches):
            async with session.get(f"{server.url}{PODS}?watch=true") as response:
                await asyncio.sleep(0.05)
                change()
                assert await asyncio.wait_for(response.read(), 2) == b""


# ---- the request log


async def test_requests_record_what_clients_sent_and_the_status(make_pod: Any) -> None:
    async with FakeAPIServer() as server, aiohttp.ClientSession(base_url=server.url) as session:
        async with session.post(PODS + "?fieldManager=me", json=make_pod("web"),
                                headers={"User-Agent": "tester/1.0"}) as response:
            assert response.status == 201
        async with session.get(PODS + "/nope"):
            pass
        async with session.get("/fakeapi/v1/clock"):
            pass  # the control API is not recorded
        create, missing = server.requests
        assert (create.method, create.path, create.status) == ("POST", PODS, 201)
        assert create.query == {"fieldManager": "me"}
        assert create.headers["user-agent"] == "tester/1.0" == create.user_agent
        assert create.json() == make_pod("web")
        assert (create.verb, create.resource, create.namespace, create.name) == ("create", "pods", "default",
                                                                                 "")
        assert (missing.verb, missing.name, missing.status, missing.body) == ("get", "nope", 404, b"")
        server.clear_requests()
        assert server.requests == []


async def test_the_request_log_keeps_only_the_latest_entries() -> None:
    config = ServerConfig(request_log=2)
    async with FakeAPIServer(config=config) as server, aiohttp.ClientSession() as session:
        for path in ("/readyz", "/livez", "/healthz"):
            async with session.get(server.url + path):
                pass
        assert [r.path for r in server.requests] == ["/livez", "/healthz"]


# ---- thread safety and determinism


def test_direct_state_access_is_safe_from_many_threads(make_pod: Any) -> None:
    with FakeAPIServer() as server:
        def seed_many(prefix: str) -> None:
            for i in range(25):
                server.seed(make_pod(f"{prefix}-{i}"))
                server.list("pods")

        threads = [threading.Thread(target=seed_many, args=(f"t{n}",)) for n in range(4)]
        for thread in threads:
            thread.start()
        for _ in range(25):
            _get(server.url + PODS)
        for thread in threads:
            thread.join()
        assert len(server.list("pods")) == 100


def _deterministic_run() -> bytes:
    clock = Clock()
    clock.freeze(datetime(2025, 1, 1, tzinfo=UTC))
    with FakeAPIServer(seed=42, clock=clock) as server:
        for _ in range(3):
            body = orjson.dumps({"metadata": {"generateName": "web-"},
                                 "spec": {"containers": [{"name": "app", "image": "nginx"}]}})
            request = urllib.request.Request(server.url + PODS, data=body, method="POST",
                                             headers={"Content-Type": "application/json"})
            urllib.request.urlopen(request, timeout=5).close()
        clock.advance(30)
        server.seed({"apiVersion": "v1", "kind": "Namespace", "metadata": {"generateName": "team-"}})
        # the `kubernetes` endpoints name the server's own port, which is not the same from run to run
        return re.sub(rb'"(port|targetPort)":%d\b' % server.port, rb'"\1":0', orjson.dumps(server.dump()))


def test_a_seeded_run_with_a_frozen_clock_is_reproducible_byte_for_byte() -> None:
    first = _deterministic_run()
    assert first == _deterministic_run()
    assert b'"creationTimestamp":"2025-01-01T00:00:30Z"' in first
