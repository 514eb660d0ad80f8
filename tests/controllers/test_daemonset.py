"""The daemonset controller, one upstream behaviour per test, on a frozen clock and three nodes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from kubernetes import client as k8s

from fakeapi.testing import FakeAPIServer
from tests import workloads
from tests.controllers.conftest import events_of, frozen_clock


@pytest.fixture
def cluster() -> Iterator[FakeAPIServer]:
    with FakeAPIServer(seed=7, nodes=3, clock=frozen_clock()) as server:
        yield server


@pytest.fixture
def apps(api: Any) -> Any:
    return k8s.AppsV1Api(api)


def placed(core: Any) -> dict[str, str]:
    """node -> daemon pod, of the pods not being deleted."""
    return {pod.spec.node_name: pod.metadata.name for pod in core.list_namespaced_pod("default").items
            if pod.metadata.deletion_timestamp is None}


def test_a_daemon_set_runs_one_pod_on_every_node(cluster: FakeAPIServer, apps: Any, core: Any) -> None:
    apps.create_namespaced_daemon_set("default", workloads.daemon_set())
    assert sorted(placed(core)) == ["node-1", "node-2", "node-3"]
    cluster.clock.advance(2)
    status = apps.read_namespaced_daemon_set("web", "default").status
    assert (status.desired_number_scheduled, status.current_number_scheduled, status.number_ready,
            status.number_available, status.updated_number_scheduled, status.number_misscheduled,
            status.number_unavailable) == (3, 3, 3, 3, 3, 0, None)


def test_daemon_pods_get_upstreams_tolerations_and_node_affinity(cluster: FakeAPIServer, apps: Any,
                                                                 core: Any) -> None:
    apps.create_namespaced_daemon_set("default", workloads.daemon_set())
    pod = next(p for p in core.list_namespaced_pod("default").items if p.spec.node_name == "node-2")
    assert [(t.key, t.operator, t.effect) for t in pod.spec.tolerations] == [
        ("node.kubernetes.io/not-ready", "Exists", "NoExecute"),
        ("node.kubernetes.io/unreachable", "Exists", "NoExecute"),
        ("node.kubernetes.io/disk-pressure", "Exists", "NoSchedule"),
        ("node.kubernetes.io/memory-pressure", "Exists", "NoSchedule"),
        ("node.kubernetes.io/pid-pressure", "Exists", "NoSchedule"),
        ("node.kubernetes.io/unschedulable", "Exists", "NoSchedule")]
    [term] = pod.spec.affinity.node_affinity.required_during_scheduling_ignored_during_execution.node_selector_terms
    assert [(f.key, f.operator, f.values) for f in term.match_fields] == [("metadata.name", "In", ["node-2"])]
    revision = apps.list_namespaced_controller_revision("default").items[0]
    assert pod.metadata.labels == {"app": "web", "pod-template-generation": "1",
                                   "controller-revision-hash": revision.metadata.labels["controller-revision-hash"]}
    assert pod.metadata.name.startswith("web-") and len(pod.metadata.name) == 9


def test_a_node_selector_limits_the_nodes(cluster: FakeAPIServer, apps: Any, core: Any) -> None:
    core.patch_node("node-2", {"metadata": {"labels": {"disk": "ssd"}}})
    manifest = workloads.daemon_set(template=workloads.template(nodeSelector={"disk": "ssd"}))
    apps.create_namespaced_daemon_set("default", manifest)
    assert list(placed(core)) == ["node-2"]
    core.patch_node("node-3", {"metadata": {"labels": {"disk": "ssd"}}})
    assert sorted(placed(core)) == ["node-2", "node-3"]
    core.patch_node("node-2", {"metadata": {"labels": {"disk": None}}})
    assert list(placed(core)) == ["node-3"]


def test_a_new_node_gets_a_pod_and_a_tainted_one_none(cluster: FakeAPIServer, apps: Any, core: Any) -> None:
    core.patch_node("node-3", {"spec": {"taints": [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]}})
    apps.create_namespaced_daemon_set("default", workloads.daemon_set())
    assert sorted(placed(core)) == ["node-1", "node-2"]
    core.create_node({"metadata": {"name": "node-4"}})
    cluster.clock.advance(2)  # registered, Ready, its not-ready taint gone
    assert sorted(placed(core)) == ["node-1", "node-2", "node-4"]


def test_daemon_pods_run_on_cordoned_nodes(cluster: FakeAPIServer, apps: Any, core: Any) -> None:
    core.patch_node("node-1", {"spec": {"unschedulable": True}})
    apps.create_namespaced_daemon_set("default", workloads.daemon_set())
    cluster.clock.advance(2)
    assert sorted(placed(core)) == ["node-1", "node-2", "node-3"]


def test_a_rolling_update_replaces_one_pod_at_a_time(cluster: FakeAPIServer, apps: Any, core: Any) -> None:
    apps.create_namespaced_daemon_set("default", workloads.daemon_set())
    cluster.clock.advance(2)
    apps.patch_namespaced_daemon_set("web", "default", {"spec": {"template": {"spec": {
        "containers": [{"name": "web", "image": "nginx:1.28"}]}}}})
    deleting = [p for p in core.list_namespaced_pod("default").items if p.metadata.deletion_timestamp]
    assert len(deleting) == 1  # maxUnavailable 1
    for _ in range(10):
        cluster.clock.advance(1)
    pods = core.list_namespaced_pod("default").items
    assert len(pods) == 3 and {p.spec.containers[0].image for p in pods} == {"nginx:1.28"}
    assert [r.revision for r in sorted(apps.list_namespaced_controller_revision("default").items,
                                       key=lambda r: r.revision)] == [1, 2]
    assert apps.read_namespaced_daemon_set("web", "default").status.updated_number_scheduled == 3


def test_on_delete_waits_for_the_user(cluster: FakeAPIServer, apps: Any, core: Any) -> None:
    apps.create_namespaced_daemon_set("default", workloads.daemon_set(updateStrategy={"type": "OnDelete"}))
    cluster.clock.advance(2)
    apps.patch_namespaced_daemon_set("web", "default", {"spec": {"template": {"spec": {
        "containers": [{"name": "web", "image": "nginx:1.28"}]}}}})
    cluster.clock.advance(5)
    assert {p.spec.containers[0].image for p in core.list_namespaced_pod("default").items} == {"nginx:1.27"}
    assert apps.read_namespaced_daemon_set("web", "default").status.updated_number_scheduled is None


def test_a_failed_daemon_pod_is_killed_and_made_again(cluster: FakeAPIServer, apps: Any, core: Any) -> None:
    template = workloads.template(restartPolicy="Always")
    apps.create_namespaced_daemon_set("default", workloads.daemon_set(template=template))
    cluster.clock.advance(2)
    victim = placed(core)["node-1"]
    core.patch_namespaced_pod_status(victim, "default", {"status": {"phase": "Failed"}})
    assert ("Warning", "FailedDaemonPod",
            f"Found failed daemon pod default/{victim} on node node-1, will try to kill it") in events_of(core, "web")
    cluster.clock.advance(3)
    assert placed(core)["node-1"] != victim


def test_a_surging_rolling_update_starts_the_new_pod_before_deleting_the_old(cluster: FakeAPIServer, apps: Any,
                                                                             core: Any) -> None:
    template = workloads.template()
    template["spec"]["containers"][0]["readinessProbe"] = {"httpGet": {"port": 80}, "initialDelaySeconds": 5}
    apps.create_namespaced_daemon_set("default", workloads.daemon_set(template=template, updateStrategy={
        "type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}}))
    cluster.clock.advance(7)
    apps.patch_namespaced_daemon_set("web", "default", {"spec": {"template": {"spec": {
        "containers": [{"name": "web", "image": "nginx:1.28"}]}}}})

    def on_nodes() -> list[tuple[str, str, bool]]:
        return sorted((p.spec.node_name, p.spec.containers[0].image, p.metadata.deletion_timestamp is not None)
                      for p in core.list_namespaced_pod("default").items)

    assert on_nodes() == [("node-1", "nginx:1.27", False), ("node-1", "nginx:1.28", False),
                          ("node-2", "nginx:1.27", False), ("node-3", "nginx:1.27", False)]
    cluster.clock.advance(4)  # not ready yet: the old pod stays, no other node surges
    assert len(on_nodes()) == 4 and not any(deleting for _node, _image, deleting in on_nodes())
    assert apps.read_namespaced_daemon_set("web", "default").status.number_available == 3
    cluster.clock.advance(2)  # ready: the old pod on node-1 goes, node-2 surges
    assert ("node-1", "nginx:1.27", True) in on_nodes() and ("node-2", "nginx:1.28", False) in on_nodes()
    for _ in range(20):  # no node is ever without a ready pod
        cluster.clock.advance(1)
        assert {p.spec.node_name for p in core.list_namespaced_pod("default").items
                if any(c.type == "Ready" and c.status == "True" for c in p.status.conditions or [])} == {
            "node-1", "node-2", "node-3"}
    assert on_nodes() == [("node-1", "nginx:1.28", False), ("node-2", "nginx:1.28", False),
                          ("node-3", "nginx:1.28", False)]


def test_max_surge_and_max_unavailable_may_not_both_be_set(apps: Any) -> None:
    manifest = workloads.daemon_set(updateStrategy={"type": "RollingUpdate",
                                                    "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 1}})
    with pytest.raises(k8s.ApiException) as refused:
        apps.create_namespaced_daemon_set("default", manifest)
    assert refused.value.status == 422 and json.loads(refused.value.body)["message"] == (
        'DaemonSet.apps "web" is invalid: spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: '
        'intstr.IntOrString{Type:0, IntVal:1, StrVal:""}: may not be set when maxUnavailable is non-zero')
