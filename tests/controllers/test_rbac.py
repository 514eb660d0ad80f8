"""The simulated cluster under `--authorization-mode Node,RBAC`: the scheduler, the kubelets and the
controllers send their requests as their own users, authorized under the bootstrap policy like anyone's."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from kubernetes import client as k8s

from fakeapi.config import ServerConfig
from fakeapi.testing import FakeAPIServer
from tests import workloads
from tests.controllers.conftest import frozen_clock


@pytest.fixture
def rbac_cluster() -> Iterator[FakeAPIServer]:
    # a request log long enough to keep every request of the test
    with FakeAPIServer(seed=7, nodes=1, clock=frozen_clock(), token="admin-token", authorization_mode="Node,RBAC",
                       config=ServerConfig(request_log=100_000, request_log_bytes=256 * 1024 * 1024)) as server:
        yield server


def test_a_deployment_runs_to_running_pods_under_rbac(rbac_cluster: FakeAPIServer) -> None:
    api: Any = rbac_cluster.kubernetes_client()
    apps: Any = k8s.AppsV1Api(api)
    apps.create_namespaced_deployment("default", workloads.deployment(replicas=2))
    rbac_cluster.clock.advance(5)
    core: Any = k8s.CoreV1Api(api)
    pods = core.list_namespaced_pod("default").items
    assert [pod.status.phase for pod in pods] == ["Running", "Running"]
    refused = [(r.method, r.path, r.user.username) for r in rbac_cluster.requests if r.status == 403]
    assert refused == []


def test_a_controller_whose_role_is_gone_is_refused(rbac_cluster: FakeAPIServer) -> None:
    api: Any = rbac_cluster.kubernetes_client()
    k8s.RbacAuthorizationV1Api(api).delete_cluster_role("system:controller:deployment-controller")
    apps: Any = k8s.AppsV1Api(api)
    apps.create_namespaced_deployment("default", workloads.deployment(replicas=2))
    rbac_cluster.clock.advance(5)
    refused = {r.user.username for r in rbac_cluster.requests if r.status == 403}
    assert refused == {"system:serviceaccount:kube-system:deployment-controller"}
    assert apps.list_namespaced_replica_set("default").items == []


def test_every_workload_controller_works_under_its_bootstrap_role(rbac_cluster: FakeAPIServer) -> None:
    api: Any = rbac_cluster.kubernetes_client()
    apps: Any = k8s.AppsV1Api(api)
    batch: Any = k8s.BatchV1Api(api)
    core: Any = k8s.CoreV1Api(api)
    apps.create_namespaced_stateful_set("default", workloads.stateful_set("db", replicas=2))
    apps.create_namespaced_daemon_set("default", workloads.daemon_set("agent"))
    core.create_namespaced_replication_controller("default", workloads.replication_controller("rc", replicas=1))
    batch.create_namespaced_job("default", workloads.job("once", ttlSecondsAfterFinished=0))
    batch.create_namespaced_cron_job("default", workloads.cron_job("hourly"))
    core.create_namespaced_service("default", {"metadata": {"name": "web"}, "spec": {
        "selector": {"app": "web"}, "ports": [{"port": 80}]}})
    apps.create_namespaced_deployment("default", workloads.deployment(replicas=2))
    rbac_cluster.clock.advance(3700)  # the cron job's first run, the job's end and its TTL
    apps.delete_namespaced_deployment("web", "default")  # the garbage collector deletes its set and pods
    rbac_cluster.clock.advance(60)
    refused = [(r.method, r.path, r.user.username) for r in rbac_cluster.requests if r.status == 403]
    assert refused == []
    assert {pod.metadata.name for pod in core.list_namespaced_pod("default").items} >= {"db-0", "db-1"}
