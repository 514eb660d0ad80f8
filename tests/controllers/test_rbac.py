"""The simulated cluster under `--authorization-mode Node,RBAC`: the scheduler, the kubelets and the
controllers send their requests as their own users, authorized under the bootstrap policy like anyone's."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from kubernetes import client as k8s

from fakeapi.testing import FakeAPIServer
from tests import workloads
from tests.controllers.conftest import frozen_clock


@pytest.fixture
def rbac_cluster() -> Iterator[FakeAPIServer]:
    with FakeAPIServer(seed=7, nodes=1, clock=frozen_clock(), token="admin-token",
                       authorization_mode="Node,RBAC") as server:
        yield server


def test_a_deployment_runs_to_running_pods_under_rbac(rbac_cluster: FakeAPIServer) -> None:
    api = rbac_cluster.kubernetes_client()
    k8s.AppsV1Api(api).create_namespaced_deployment("default", workloads.deployment(replicas=2))
    rbac_cluster.clock.advance(5)
    pods = k8s.CoreV1Api(api).list_namespaced_pod("default").items
    assert [pod.status.phase for pod in pods] == ["Running", "Running"]
    refused = [(r.method, r.path, r.user.username) for r in rbac_cluster.requests if r.status == 403]
    assert refused == []


def test_a_controller_whose_role_is_gone_is_refused(rbac_cluster: FakeAPIServer) -> None:
    api = rbac_cluster.kubernetes_client()
    k8s.RbacAuthorizationV1Api(api).delete_cluster_role("system:controller:deployment-controller")
    k8s.AppsV1Api(api).create_namespaced_deployment("default", workloads.deployment(replicas=2))
    rbac_cluster.clock.advance(5)
    refused = {r.user.username for r in rbac_cluster.requests if r.status == 403}
    assert refused == {"system:serviceaccount:kube-system:deployment-controller"}
    assert k8s.AppsV1Api(api).list_namespaced_replica_set("default").items == []
