"""The controllers of a server started again on its SQLite file go through what it holds, as
kube-controller-manager's do when they start: work left undone is done."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kubernetes import client as k8s

from fakeapi.config import ServerConfig
from fakeapi.testing import FakeAPIServer
from fakeapi.testing.server import simulation_config
from tests import workloads
from tests.controllers.conftest import frozen_clock, owner


def server(path: Path, controllers: str) -> FakeAPIServer:
    config = ServerConfig(seed=7, storage_file=path, simulation=simulation_config(1, None, controllers=controllers))
    return FakeAPIServer(config=config, clock=frozen_clock())


def test_a_deployment_stored_while_no_controller_ran_is_rolled_out_after_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "fakeapi.db"
    with server(path, "") as first:
        k8s.AppsV1Api(first.kubernetes_client()).create_namespaced_deployment(
            "default", workloads.deployment(replicas=2))
        assert k8s.AppsV1Api(first.kubernetes_client()).list_namespaced_replica_set("default").items == []
    with server(path, "*") as second:
        api: Any = second.kubernetes_client()
        second.clock.advance(2)
        deployment = k8s.AppsV1Api(api).read_namespaced_deployment("web", "default")
        assert (deployment.status.available_replicas, deployment.metadata.annotations) == (
            2, {"deployment.kubernetes.io/revision": "1"})
        assert len(k8s.CoreV1Api(api).list_namespaced_pod("default").items) == 2


def test_a_foreground_deletion_left_pending_finishes_after_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "fakeapi.db"
    with server(path, "*,-garbage-collector-controller") as first:
        core = k8s.CoreV1Api(first.kubernetes_client())
        parent = core.create_namespaced_config_map("default", {"metadata": {"name": "parent"}})
        core.create_namespaced_config_map("default", {"metadata": {"name": "child",
                                                                   "ownerReferences": [owner(parent, "ConfigMap")]}})
        core.delete_namespaced_config_map("parent", "default",
                                          body=k8s.V1DeleteOptions(propagation_policy="Foreground"))
        assert core.read_namespaced_config_map("parent", "default").metadata.finalizers == ["foregroundDeletion"]
    with server(path, "*") as second:
        names = [cm.metadata.name for cm in
                 k8s.CoreV1Api(second.kubernetes_client()).list_namespaced_config_map("default").items]
        assert names == ["kube-root-ca.crt"]
