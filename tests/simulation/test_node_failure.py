"""Node failure as the node controllers handle it: Unknown after the grace period, pods not ready, the
NoExecute taint, eviction after the pods' toleration seconds; and the state control (reset, snapshots)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from kubernetes import client as k8s

from fakeapi.testing import FakeAPIServer
from tests import builders
from tests.simulation.conftest import events_of, frozen_clock


@pytest.fixture
def two_nodes() -> Iterator[FakeAPIServer]:
    with FakeAPIServer(seed=11, nodes=2, clock=frozen_clock()) as server:
        yield server


def ready(pod: Any) -> str:
    return next(c.status for c in pod.status.conditions if c.type == "Ready")


def start(server: FakeAPIServer, core: Any, name: str, node: str) -> None:
    core.create_namespaced_pod("default", builders.pod(name, image="nginx:1.27", nodeName=node))
    server.clock.advance(1)
    assert ready(core.read_namespaced_pod(name, "default")) == "True"


def test_a_failed_node_has_its_pods_evicted_after_their_toleration(two_nodes: FakeAPIServer) -> None:
    core = k8s.CoreV1Api(two_nodes.kubernetes_client())
    start(two_nodes, core, "web", "node-1")
    two_nodes.node("node-1").fail()
    two_nodes.clock.advance(50)
    assert ready(core.read_namespaced_pod("web", "default")) == "True"  # within the grace period
    two_nodes.clock.advance(5)  # the next monitor pass: Unknown, pods not ready, tainted
    node = core.read_node("node-1")
    assert [(t.key, t.effect) for t in node.spec.taints] == [("node.kubernetes.io/unreachable", "NoSchedule"),
                                                            ("node.kubernetes.io/unreachable", "NoExecute")]
    pod = core.read_namespaced_pod("web", "default")
    assert ready(pod) == "False"
    assert ("Warning", "NodeNotReady", "Node is not ready") in events_of(core, "web")
    two_nodes.clock.advance(298)  # DefaultTolerationSeconds: 300 s for unreachable, from the taint (t=55)
    assert core.read_namespaced_pod("web", "default").metadata.deletion_timestamp is None
    two_nodes.clock.advance(1)
    pod = core.read_namespaced_pod("web", "default")  # Terminating: its kubelet is gone
    assert pod.metadata.deletion_timestamp is not None
    assert [(c.reason, c.message) for c in pod.status.conditions if c.type == "DisruptionTarget"] == [
        ("DeletionByTaintManager", "Taint manager: deleting due to NoExecute taint")]
    assert ("Normal", "TaintManagerEviction", "Marking for deletion Pod default/web") in events_of(core, "web")
    two_nodes.node("node-1").recover()  # the kubelet returns, stops the pod and deletes it
    two_nodes.clock.advance(1)
    assert core.list_namespaced_pod("default").items == []
    assert core.read_node("node-1").spec.taints is None


def test_a_node_a_client_marks_not_ready_gets_its_pods_evicted(two_nodes: FakeAPIServer) -> None:
    core = k8s.CoreV1Api(two_nodes.kubernetes_client())
    start(two_nodes, core, "web", "node-2")
    status = core.read_node_status("node-2")
    condition = next(c for c in status.status.conditions if c.type == "Ready")
    condition.status, condition.reason, condition.message = "False", "KubeletNotReady", "container runtime is down"
    core.replace_node_status("node-2", status)
    two_nodes.clock.advance(30)  # the kubelet keeps reporting what the client wrote
    node = core.read_node("node-2")
    assert [(c.status, c.message) for c in node.status.conditions if c.type == "Ready"] == [
        ("False", "container runtime is down")]
    assert ("node.kubernetes.io/not-ready", "NoExecute") in [(t.key, t.effect) for t in node.spec.taints]
    two_nodes.clock.advance(270)  # 300 s after the taint: evicted; the kubelet, alive, stops it in a second
    assert core.read_namespaced_pod("web", "default").metadata.deletion_timestamp is not None
    two_nodes.clock.advance(1)
    assert core.list_namespaced_pod("default").items == []
    assert ("Normal", "TaintManagerEviction", "Marking for deletion Pod default/web") in events_of(core, "web")


def test_a_pod_tolerating_the_taint_forever_stays(two_nodes: FakeAPIServer) -> None:
    core = k8s.CoreV1Api(two_nodes.kubernetes_client())
    tolerant = builders.pod("tolerant", image="nginx:1.27", nodeName="node-1",
                            tolerations=[{"operator": "Exists", "effect": "NoExecute"}])
    core.create_namespaced_pod("default", tolerant)
    two_nodes.node("node-1").fail()
    two_nodes.clock.advance(1000)
    assert core.read_namespaced_pod("tolerant", "default").metadata.deletion_timestamp is None


def test_the_only_node_failing_evicts_nothing() -> None:
    """Upstream's full disruption: with no node ready at all, NoExecute taints are withheld."""
    with FakeAPIServer(seed=11, nodes=1, clock=frozen_clock()) as server:
        core = k8s.CoreV1Api(server.kubernetes_client())
        start(server, core, "web", "node-1")
        server.node("node-1").fail()
        server.clock.advance(400)
        assert ready(core.read_namespaced_pod("web", "default")) == "False"
        assert core.read_namespaced_pod("web", "default").metadata.deletion_timestamp is None
        assert [(t.key, t.effect) for t in core.read_node("node-1").spec.taints] == [
            ("node.kubernetes.io/unreachable", "NoSchedule")]


def test_reset_and_restore_keep_the_simulation_running(cluster: FakeAPIServer, core: Any) -> None:
    start(cluster, core, "web", "node-1")
    snapshot = cluster.snapshot()
    core.delete_namespaced_pod("web", "default")
    cluster.clock.advance(1)
    assert core.list_namespaced_pod("default").items == []
    cluster.restore(snapshot)
    assert core.read_namespaced_pod("web", "default").status.phase == "Running"
    core.delete_namespaced_pod("web", "default")  # the kubelet carries on with the restored pod
    cluster.clock.advance(1)
    assert core.list_namespaced_pod("default").items == []
    cluster.reset()
    cluster.clock.freeze()
    core.create_namespaced_pod("default", builders.pod("again", image="nginx:1.27"))
    cluster.clock.advance(1)
    assert core.read_namespaced_pod("again", "default").status.phase == "Running"
