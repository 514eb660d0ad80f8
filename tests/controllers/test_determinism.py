"""On a frozen clock with a seed, the controllers are deterministic: the same scenario gives the same objects,
names, uids, resourceVersions and events, byte for byte."""

from __future__ import annotations

from typing import Any

import orjson
from kubernetes import client as k8s

from fakeapi.testing import FakeAPIServer
from tests import workloads
from tests.controllers.conftest import frozen_clock


def scenario() -> bytes:
    with FakeAPIServer(seed=11, nodes=2, clock=frozen_clock()) as server:
        api: Any = server.kubernetes_client()
        apps, batch, core = k8s.AppsV1Api(api), k8s.BatchV1Api(api), k8s.CoreV1Api(api)
        apps.create_namespaced_deployment("default", workloads.deployment(replicas=3))
        apps.create_namespaced_daemon_set("default", workloads.daemon_set(name="agent"))
        apps.create_namespaced_stateful_set("default", workloads.stateful_set(name="db", replicas=2))
        batch.create_namespaced_job("default", workloads.job(completions=2))
        core.create_namespaced_service("default", {"metadata": {"name": "web"},
                                                   "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}]}})
        for _ in range(5):
            server.clock.advance(1)
        apps.patch_namespaced_deployment("web", "default", {"spec": {"template": {"spec": {
            "containers": [{"name": "web", "image": "nginx:1.28"}]}}}})
        for _ in range(5):
            server.clock.advance(1)
        apps.delete_namespaced_deployment("web", "default", body=k8s.V1DeleteOptions(propagation_policy="Foreground"))
        server.clock.advance(3)
        # (the `kubernetes` Service and its endpoints name the port the server listens on, a free one)
        items = [item for item in server.dump()["items"] if not _about_the_api_server(item)]
        return orjson.dumps(items, option=orjson.OPT_SORT_KEYS)


def _about_the_api_server(item: dict[str, Any]) -> bool:
    meta = item["metadata"]
    return meta["name"] == "kubernetes" or (meta.get("labels") or {}).get("kubernetes.io/service-name") == "kubernetes"


def test_the_same_scenario_gives_the_same_objects_byte_for_byte() -> None:
    first, second = scenario(), scenario()
    assert first == second
    kinds = {item["kind"] for item in orjson.loads(first)}
    assert {"DaemonSet", "StatefulSet", "Pod", "ControllerRevision", "EndpointSlice", "Endpoints", "Event",
            "Job"} <= kinds
