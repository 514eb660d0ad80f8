"""Nodes through the official `kubernetes` client and the `fakeapi` fixture, as a kubelet and an operator
would use them: register with a status, cordon, heartbeat through nodes/status, select, delete."""

from __future__ import annotations

from typing import Any

import pytest
from kubernetes import client as k8s
from kubernetes.client.rest import ApiException

from fakeapi.testing import FakeAPIServer


def registered(name: str) -> k8s.V1Node:
    return k8s.V1Node(
        metadata=k8s.V1ObjectMeta(name=name, labels={"kubernetes.io/hostname": name}),
        status=k8s.V1NodeStatus(
            capacity={"cpu": "4", "memory": "8Gi", "pods": "110"},
            conditions=[k8s.V1NodeCondition(type="Ready", status="True", reason="KubeletReady")],
            addresses=[k8s.V1NodeAddress(type="InternalIP", address="10.0.0.4")],
            daemon_endpoints=k8s.V1NodeDaemonEndpoints(kubelet_endpoint=k8s.V1DaemonEndpoint(port=10250)),
            node_info=k8s.V1NodeSystemInfo(
                machine_id="m", system_uuid="s", boot_id="b", kernel_version="6.8.0", os_image="Debian 12",
                container_runtime_version="containerd://1.7.24", kubelet_version="v1.32.0",
                kube_proxy_version="v1.32.0", operating_system="linux", architecture="amd64")))


@pytest.fixture
def core(fakeapi: FakeAPIServer) -> Any:
    return k8s.CoreV1Api(fakeapi.kubernetes_client())


def test_register_cordon_heartbeat_and_delete(core: Any) -> None:
    created = core.create_node(registered("node-1"))
    assert created.status.allocatable == {"cpu": "4", "memory": "8Gi", "pods": "110"}
    assert created.status.daemon_endpoints.kubelet_endpoint.port == 10250

    cordoned = core.patch_node("node-1", {"spec": {"unschedulable": True}})
    assert cordoned.spec.unschedulable is True
    assert cordoned.status.conditions[0].status == "True"  # the status is not the main resource's to change

    heartbeat = core.read_node_status("node-1")
    heartbeat.status.conditions[0].status = "False"
    heartbeat.spec.unschedulable = False  # ignored: nodes/status keeps the stored spec
    written = core.replace_node_status("node-1", heartbeat)
    assert (written.status.conditions[0].status, written.spec.unschedulable) == ("False", True)

    deleted = core.delete_node("node-1")  # a Status (the client hands it back as a dict)
    assert (deleted["status"], deleted["details"]["name"], deleted["details"]["kind"]) == (
        "Success", "node-1", "nodes")
    with pytest.raises(ApiException) as missing:
        core.read_node("node-1")
    assert missing.value.status == 404


def test_list_selects_cordoned_nodes_and_labels(core: Any) -> None:
    core.create_node(registered("a"))
    core.create_node(registered("b"))
    core.patch_node("b", {"spec": {"unschedulable": True}})
    assert [n.metadata.name for n in core.list_node(field_selector="spec.unschedulable=true").items] == ["b"]
    assert [n.metadata.name for n in core.list_node(label_selector="kubernetes.io/hostname=a").items] == ["a"]


def test_an_invalid_taint_is_a_422_with_upstreams_field_path(core: Any) -> None:
    node = registered("node-1")
    node.spec = k8s.V1NodeSpec(taints=[k8s.V1Taint(key="dedicated", effect="Always")])
    with pytest.raises(ApiException) as rejected:
        core.create_node(node)
    assert rejected.value.status == 422
    assert '"field":"metadata.taints[0].effect"' in rejected.value.body
