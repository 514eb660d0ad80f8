"""kubectl against `fakeapi serve` as it starts by default: a simulated cluster of one node, on the live
clock. Pods run, become Ready, log, and go when deleted, as on a cluster."""

from __future__ import annotations

from tests.kubectl.conftest import Kubectl


def test_run_wait_logs_describe_and_delete_a_pod(cluster_kubectl: Kubectl) -> None:
    kubectl = cluster_kubectl
    assert kubectl.ok("run", "web", "--image=nginx") == "pod/web created\n"
    assert kubectl.ok("wait", "--for=condition=Ready", "pod/web", "--timeout=20s") == "pod/web condition met\n"
    row = kubectl.ok("get", "pod", "web", "--no-headers").split()
    assert row[:4] == ["web", "1/1", "Running", "0"]
    assert kubectl.ok("logs", "web") == 'fakeapi: started container "web" (image "nginx")\n'
    described = " ".join(kubectl.ok("describe", "pod", "web").split())
    assert "Node: node-1/172.18.0.2" in described and "IP: 10.244.0.2" in described, described
    events = described.split("Events: ")[1]
    for line in ("Normal Scheduled", "default-scheduler Successfully assigned default/web to node-1",
                 'kubelet Pulling image "nginx"', "kubelet Created container: web", "kubelet Started container web"):
        assert line in events, described
    assert kubectl.ok("delete", "pod", "web", "--timeout=20s") == 'pod "web" deleted\n'
    assert kubectl("get", "pod", "web").rc == 1


def test_get_nodes_shows_a_ready_node(cluster_kubectl: Kubectl) -> None:
    rows = [line.split() for line in cluster_kubectl.ok("get", "nodes").splitlines()]
    assert rows[0] == ["NAME", "STATUS", "ROLES", "AGE", "VERSION"]
    assert rows[1][:3] == ["node-1", "Ready", "<none>"] and rows[1][4] == "v1.32.0"
