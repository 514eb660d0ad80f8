"""The simulated kubelet, through the official client on a frozen clock: start, status shapes, events,
logs, readiness, deletion, and the rejection of a pod that does not fit (the PR #127744 scenario)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from kubernetes import client as k8s

from fakeapi.testing import FakeAPIServer
from tests import builders
from tests.simulation.conftest import START, events_of, frozen_clock

KUBELET_AGENT = "kubelet/v1.32.0 (linux/amd64) kubernetes/fakeapi"


def conditions(pod: Any) -> dict[str, tuple[str, str | None, str | None]]:
    return {c.type: (c.status, c.reason, c.message) for c in pod.status.conditions or []}


def read(core: Any, name: str) -> Any:
    return core.read_namespaced_pod(name, "default")


def test_a_pod_starts_pulls_and_runs_with_the_kubelets_status(cluster: FakeAPIServer, core: Any) -> None:
    core.create_namespaced_pod("default", builders.pod("web", image="nginx:1.27"))
    pod = read(core, "web")
    assert (pod.spec.node_name, pod.status.phase, pod.status.host_ip, pod.status.pod_ip) == (
        "node-1", "Pending", "172.18.0.2", "10.244.0.2")
    assert pod.status.container_statuses[0].state.waiting.reason == "ContainerCreating"
    assert conditions(pod) == {
        "PodReadyToStartContainers": ("True", None, None), "Initialized": ("True", None, None),
        "Ready": ("False", "ContainersNotReady", "containers with unready status: [web]"),
        "ContainersReady": ("False", "ContainersNotReady", "containers with unready status: [web]"),
        "PodScheduled": ("True", None, None)}
    cluster.clock.advance(1)  # the image pull
    pod = read(core, "web")
    web = pod.status.container_statuses[0]
    assert pod.status.phase == "Running" and set(conditions(pod).values()) == {("True", None, None)}
    assert [c.type for c in pod.status.conditions] == [
        "PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"]
    assert (web.ready, web.started, web.restart_count, web.image) == (True, True, 0, "docker.io/library/nginx:1.27")
    assert web.image_id.startswith("docker.io/library/nginx@sha256:") and len(web.container_id) == 77
    assert (pod.status.start_time, web.state.running.started_at) == (START, START + timedelta(seconds=1))
    assert pod.status.qos_class == "BestEffort" and pod.status.pod_ips[0].ip == "10.244.0.2"
    assert events_of(core, "web") == [
        ("Normal", "Scheduled", "Successfully assigned default/web to node-1"),
        ("Normal", "Pulling", 'Pulling image "nginx:1.27"'),
        ("Normal", "Pulled", 'Successfully pulled image "nginx:1.27" in 1s (1s including waiting). Image size: '
                             f"{_size(core)} bytes."),
        ("Normal", "Created", "Created container: web"),
        ("Normal", "Started", "Started container web")]
    assert core.read_namespaced_pod_log("web", "default") == 'fakeapi: started container "web" (image "nginx:1.27")\n'
    writes = [entry for entry in cluster.requests if entry.subresource == "status" and entry.resource == "pods"]
    assert {(entry.method, entry.user_agent, entry.query.get("fieldManager")) for entry in writes} == {
        ("PATCH", KUBELET_AGENT, None)}
    assert all(entry.json()["metadata"] == {"uid": pod.metadata.uid} for entry in writes)
    assert [(entry.manager, entry.subresource) for entry in pod.metadata.managed_fields][-1] == ("kubelet", "status")


def _size(core: Any) -> str:
    pulled = [event for event in core.list_namespaced_event("default").items if event.reason == "Pulled"][0]
    return pulled.message.rsplit(" ", 2)[-2]


def test_a_second_pod_of_the_image_finds_it_present(cluster: FakeAPIServer, core: Any) -> None:
    core.create_namespaced_pod("default", builders.pod("first", image="nginx:1.27"))
    cluster.clock.advance(1)
    core.create_namespaced_pod("default", builders.pod("second", image="nginx:1.27"))
    assert read(core, "second").status.phase == "Running"
    assert ("Normal", "Pulled", 'Container image "nginx:1.27" already present on machine') in events_of(core, "second")
    assert read(core, "second").status.pod_ip == "10.244.0.3"


def test_an_event_the_server_rejects_is_dropped_not_written_again(cluster: FakeAPIServer, core: Any) -> None:
    fault = cluster.inject(verb="create", resource="events", status=500, times=1, user_agent="kubelet/*")
    core.create_namespaced_pod("default", builders.pod("web", image="nginx:1.27"))
    cluster.clock.advance(120)  # past the back-off a retried step would wait
    assert fault.fired == 1
    assert [reason for _t, reason, _m in events_of(core, "web")] == ["Scheduled", "Pulled", "Created", "Started"]
    creates = [(entry.json()["reason"], entry.status) for entry in cluster.requests
               if entry.resource == "events" and entry.method == "POST" and entry.user_agent == KUBELET_AGENT
               and entry.json()["involvedObject"]["name"] == "web"]
    assert creates == [("Pulling", 500), ("Pulled", 201), ("Created", 201), ("Started", 201)]


def test_init_containers_run_in_order_before_the_containers(cluster: FakeAPIServer, core: Any) -> None:
    init = [{"name": "migrate", "image": "nginx:1.27"}, {"name": "warm", "image": "nginx:1.27"}]
    core.create_namespaced_pod("default", builders.pod("app", image="nginx:1.27", initContainers=init))
    cluster.clock.advance(1)  # pulled; migrate runs
    pod = read(core, "app")
    assert pod.status.phase == "Pending"
    assert conditions(pod)["Initialized"] == ("False", "ContainersNotInitialized",
                                              "containers with incomplete status: [migrate warm]")
    assert [s.state.running is not None for s in pod.status.init_container_statuses] == [True, False]
    assert pod.status.container_statuses[0].state.waiting.reason == "PodInitializing"
    cluster.clock.advance(1)  # migrate exits 0; warm runs
    pod = read(core, "app")
    migrate = pod.status.init_container_statuses[0]
    ended = migrate.state.terminated
    assert (ended.exit_code, ended.reason, migrate.ready) == (0, "Completed", True)
    cluster.clock.advance(1)
    pod = read(core, "app")
    assert pod.status.phase == "Running" and conditions(pod)["Initialized"] == ("True", None, None)
    assert [reason for _t, reason, _m in events_of(core, "app")].count("Started") == 3


def test_readiness_waits_for_the_probe_delay_and_the_readiness_gates(cluster: FakeAPIServer, core: Any) -> None:
    probe = {"httpGet": {"path": "/", "port": 80}, "initialDelaySeconds": 5}
    manifest = builders.pod("gated", image="nginx:1.27", readinessGates=[{"conditionType": "example.com/lb"}])
    manifest["spec"]["containers"][0]["readinessProbe"] = probe
    core.create_namespaced_pod("default", manifest)
    cluster.clock.advance(1)
    pod = read(core, "gated")
    assert pod.status.phase == "Running" and conditions(pod)["ContainersReady"][0] == "False"
    cluster.clock.advance(5)
    pod = read(core, "gated")
    assert conditions(pod)["ContainersReady"] == ("True", None, None)
    missing = 'corresponding condition of pod readiness gate "example.com/lb" does not exist.'
    assert conditions(pod)["Ready"] == ("False", "ReadinessGatesNotReady", missing)
    core.patch_namespaced_pod_status("gated", "default", {"status": {"conditions": [
        {"type": "example.com/lb", "status": "True"}]}})
    pod = read(core, "gated")
    assert conditions(pod)["Ready"] == ("True", None, None)
    assert [c.type for c in pod.status.conditions][0] == "example.com/lb"


def test_a_deleted_pod_is_stopped_then_deleted_by_its_kubelet(cluster: FakeAPIServer, core: Any) -> None:
    core.create_namespaced_pod("default", builders.pod("web", image="nginx:1.27"))
    cluster.clock.advance(1)
    core.delete_namespaced_pod("web", "default")
    pod = read(core, "web")
    assert pod.metadata.deletion_timestamp is not None
    assert conditions(pod)["Ready"] == ("False", "ContainersNotReady", "containers with unready status: [web]")
    assert ("Normal", "Killing", "Stopping container web") in events_of(core, "web")
    cluster.clock.advance(1)
    assert core.list_namespaced_pod("default").items == []
    deletes = [entry for entry in cluster.requests if entry.method == "DELETE" and entry.user_agent == KUBELET_AGENT]
    assert deletes[0].json() == {"kind": "DeleteOptions", "apiVersion": "v1", "gracePeriodSeconds": 0,
                                 "preconditions": {"uid": pod.metadata.uid}}
    assert {entry.user.username for entry in cluster.requests if entry.user_agent == KUBELET_AGENT} == {
        f"system:node:{pod.spec.node_name}"}
    final = [entry.json()["status"] for entry in cluster.requests if entry.subresource == "status"][-1]
    assert final["phase"] == "Succeeded"


def test_a_pod_bound_by_hand_to_a_full_node_is_rejected_without_qos_class_which_the_server_keeps() -> None:
    with FakeAPIServer(seed=5, nodes=1, node_capacity={"cpu": "1"}, clock=frozen_clock()) as server:
        core = k8s.CoreV1Api(server.kubernetes_client())
        core.create_namespaced_pod("default", builders.pod("filler", image="nginx:1.27", requests={"cpu": "1"}))
        server.clock.advance(1)
        late = builders.pod("late", image="nginx:1.27", nodeName="node-1", requests={"cpu": "500m"},
                            limits={"cpu": "1"})
        core.create_namespaced_pod("default", late)
        pod = core.read_namespaced_pod("late", "default")
        message = "Node didn't have enough resource: cpu, requested: 500, used: 1000, capacity: 1000"
        assert (pod.status.phase, pod.status.reason, pod.status.message) == (
            "Failed", "OutOfcpu", f"Pod was rejected: {message}")
        assert pod.status.qos_class == "Burstable"  # kept by the server although the kubelet dropped it
        assert pod.status.conditions is None and pod.status.container_statuses is None
        assert events_of(core, "late") == [("Warning", "OutOfcpu", message)]
        write = next(entry for entry in server.requests if entry.subresource == "status" and entry.name == "late")
        sent = write.json()["status"]
        assert (write.method, write.user_agent, sent["phase"], sent["qosClass"]) == (
            "PATCH", KUBELET_AGENT, "Failed", None)  # the pre-1.32 kubelet's patch clears the class


def test_node_affinity_mismatch_is_rejected_at_admission(cluster: FakeAPIServer, core: Any) -> None:
    core.create_namespaced_pod("default", builders.pod("picky", nodeName="node-1", nodeSelector={"disk": "ssd"}))
    pod = read(core, "picky")
    assert (pod.status.phase, pod.status.reason, pod.status.message) == (
        "Failed", "NodeAffinity",
        "Pod was rejected: Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector")


def test_a_pod_bound_to_a_node_created_later_runs_once_its_kubelet_starts(cluster: FakeAPIServer, core: Any) -> None:
    core.create_namespaced_pod("default", builders.pod("early", image="nginx:1.27", nodeName="later"))
    assert read(core, "early").status.phase == "Pending" and read(core, "early").status.host_ip is None
    core.create_node({"metadata": {"name": "later"}})
    cluster.clock.advance(1)
    pod = read(core, "early")
    assert (pod.status.phase, pod.status.host_ip, pod.status.pod_ip) == ("Running", "172.18.0.3", "10.244.1.2")
