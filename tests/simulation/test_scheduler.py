"""The simulated kube-scheduler: bindings, the exact FitError message and its events, retries when the
cluster changes, preemption."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from kubernetes import client as k8s

from fakeapi.simulation.filters import Rejection, fit_error
from fakeapi.simulation.resources import pod_requests
from fakeapi.testing import FakeAPIServer
from tests import builders
from tests.simulation.conftest import events_of, frozen_clock

SCHEDULER_AGENT = "kube-scheduler/v1.32.0 (linux/amd64) kubernetes/fakeapi/scheduler"


@pytest.fixture
def scheduler() -> Iterator[FakeAPIServer]:
    """A scheduler and node controllers, no node yet, pods never started; the clock frozen."""
    with FakeAPIServer(seed=3, simulate="scheduler", nodes=0, clock=frozen_clock()) as server:
        yield server


@pytest.fixture
def core(scheduler: FakeAPIServer) -> Any:
    return k8s.CoreV1Api(scheduler.kubernetes_client())


def add_node(core: Any, name: str, cpu: str = "4", pods: str = "110", labels: dict[str, str] | None = None,
             **spec: Any) -> None:
    core.create_node({"metadata": {"name": name, "labels": labels or {}}, "spec": spec,
                      "status": {"capacity": {"cpu": cpu, "memory": "8Gi", "pods": pods}}})


def add_pod(core: Any, name: str, cpu: str | None = None, **spec: Any) -> Any:
    manifest = builders.pod(name, requests={"cpu": cpu} if cpu else None, **spec)
    return core.create_namespaced_pod("default", manifest)


def scheduled(pod: Any) -> tuple[str, str, str]:
    condition = next(c for c in pod.status.conditions if c.type == "PodScheduled")
    return condition.status, condition.reason or "", condition.message or ""


def test_a_pod_is_bound_to_a_node_with_a_scheduled_event(scheduler: FakeAPIServer, core: Any) -> None:
    add_node(core, "node-a")
    add_pod(core, "web")
    pod = core.read_namespaced_pod("web", "default")
    assert pod.spec.node_name == "node-a" and scheduled(pod) == ("True", "", "")
    assert pod.status.phase == "Pending"  # scheduler mode: nothing starts it
    assert events_of(core, "web") == [("Normal", "Scheduled", "Successfully assigned default/web to node-a")]
    event = core.list_namespaced_event("default", field_selector="involvedObject.name=web").items[0]
    assert (event.reporting_component, event.reporting_instance, event.action) == (
        "default-scheduler", "default-scheduler-fakeapi", "Binding")
    assert event.event_time is not None and event.first_timestamp is None and event.source.component is None
    binding = next(entry for entry in scheduler.requests if entry.subresource == "binding")
    assert (binding.method, binding.user_agent, binding.status) == ("POST", SCHEDULER_AGENT, 201)
    assert (binding.user.username, binding.user.groups) == ("system:kube-scheduler", ("system:authenticated",))
    assert binding.json()["target"] == {"kind": "Node", "name": "node-a"}


def test_a_pod_naming_its_node_is_not_scheduled(scheduler: FakeAPIServer, core: Any) -> None:
    add_node(core, "node-a")
    add_pod(core, "pinned", nodeName="elsewhere")
    assert core.read_namespaced_pod("pinned", "default").spec.node_name == "elsewhere"
    assert events_of(core, "pinned") == []
    assert not [entry for entry in scheduler.requests if entry.subresource == "binding"]


def test_an_unschedulable_pod_gets_upstreams_message_in_its_condition_and_event(core: Any) -> None:
    add_node(core, "small", cpu="1")
    add_node(core, "cordoned", unschedulable=True)
    add_node(core, "gpu", taints=[{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}])
    add_pod(core, "big", cpu="2")
    message = ("0/3 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint {dedicated: gpu}, "
               "1 node(s) were unschedulable. preemption: 0/3 nodes are available: 1 No preemption victims found "
               "for incoming pod, 2 Preemption is not helpful for scheduling..")
    pod = core.read_namespaced_pod("big", "default")
    assert pod.spec.node_name is None and scheduled(pod) == ("False", "Unschedulable", message)
    assert events_of(core, "big") == [("Warning", "FailedScheduling", message)]


def test_a_repeated_failure_is_counted_in_the_events_series(scheduler: FakeAPIServer, core: Any) -> None:
    add_node(core, "small", cpu="1")
    add_pod(core, "big", cpu="2")
    core.patch_node("small", {"metadata": {"labels": {"disk": "ssd"}}})  # a change: the pod is tried again
    scheduler.clock.advance(1)
    events = core.list_namespaced_event("default", field_selector="involvedObject.name=big").items
    assert [(event.reason, event.series.count) for event in events] == [("FailedScheduling", 2)]
    writes = [entry for entry in scheduler.requests if entry.subresource == "status" and entry.name == "big"]
    assert len(writes) == 1  # the condition did not change: no second patch


@pytest.mark.parametrize("status, error", [
    (500, "Internal error occurred: injected"),
    (409, 'Operation cannot be fulfilled on pods "web": the object has been modified; please apply your changes '
          'to the latest version and try again'),
    (504, "Timeout: request did not complete within requested timeout - context deadline exceeded"),
])
def test_a_refused_binding_is_a_scheduler_error_and_the_pod_is_tried_again_after_its_back_off(
        scheduler: FakeAPIServer, core: Any, status: int, error: str) -> None:
    add_node(core, "node-a")
    message = "injected" if status == 500 else None
    rule = scheduler.inject(resource="pods", subresource="binding", status=status, times=2, message=message,
                            user_agent="kube-scheduler/*")
    add_pod(core, "web")
    failure = f'running Bind plugin "DefaultBinder": {error}'
    pod = core.read_namespaced_pod("web", "default")
    assert pod.spec.node_name is None and scheduled(pod) == ("False", "SchedulerError", failure)
    assert events_of(core, "web") == [("Warning", "FailedScheduling", failure)]
    scheduler.clock.advance(0.9)  # the back-off: 1 s after the first attempt...
    assert rule.fired == 1
    scheduler.clock.advance(0.1)
    assert rule.fired == 2
    scheduler.clock.advance(1.9)  # ... 2 s after the second
    assert core.read_namespaced_pod("web", "default").spec.node_name is None
    scheduler.clock.advance(0.1)
    pod = core.read_namespaced_pod("web", "default")
    assert pod.spec.node_name == "node-a" and scheduled(pod) == ("True", "", "")
    assert events_of(core, "web")[-1] == ("Normal", "Scheduled", "Successfully assigned default/web to node-a")
    bindings = [entry.status for entry in scheduler.requests if entry.subresource == "binding"]
    assert bindings == [status, status, 201]


def test_a_pod_deleted_after_a_refused_binding_is_not_tried_again(scheduler: FakeAPIServer, core: Any) -> None:
    add_node(core, "node-a")
    scheduler.inject(resource="pods", subresource="binding", status=500, user_agent="kube-scheduler/*")
    add_pod(core, "web")
    core.delete_namespaced_pod("web", "default")
    scheduler.clock.advance(60)
    assert [entry.status for entry in scheduler.requests if entry.subresource == "binding"] == [500]


def test_selectors_affinity_and_tolerations_pick_the_node(core: Any) -> None:
    add_node(core, "hdd", labels={"disk": "hdd"})
    add_node(core, "ssd", labels={"disk": "ssd", "zone": "b"},
             taints=[{"key": "dedicated", "value": "db", "effect": "NoExecute"}])
    add_pod(core, "selector", nodeSelector={"disk": "ssd"},
            tolerations=[{"key": "dedicated", "operator": "Exists"}])
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a", "b"]}]}]}}}
    add_pod(core, "affinity", affinity=affinity, tolerations=[{"key": "dedicated", "value": "db"}])
    add_pod(core, "untolerating", nodeSelector={"disk": "ssd"})
    assert core.read_namespaced_pod("selector", "default").spec.node_name == "ssd"
    assert core.read_namespaced_pod("affinity", "default").spec.node_name == "ssd"
    assert scheduled(core.read_namespaced_pod("untolerating", "default"))[2] == (
        "0/2 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) had untolerated "
        "taint {dedicated: db}. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling..")


def test_requests_count_against_allocatable_and_a_freed_node_takes_the_waiting_pod(
        scheduler: FakeAPIServer, core: Any) -> None:
    add_node(core, "node-a", cpu="2", pods="3")
    add_pod(core, "one", cpu="1")
    add_pod(core, "two", cpu="1")
    add_pod(core, "three", cpu="500m")
    assert scheduled(core.read_namespaced_pod("three", "default"))[2].startswith(
        "0/1 nodes are available: 1 Insufficient cpu.")
    add_pod(core, "none")  # no requests: only the pod count
    add_pod(core, "fourth")
    assert core.read_namespaced_pod("none", "default").spec.node_name == "node-a"
    assert scheduled(core.read_namespaced_pod("fourth", "default"))[2].startswith(
        "0/1 nodes are available: 1 Too many pods.")
    core.delete_namespaced_pod("one", "default", grace_period_seconds=0)
    scheduler.clock.advance(1)  # the back-off after a failed attempt
    assert core.read_namespaced_pod("three", "default").spec.node_name == "node-a"
    assert core.read_namespaced_pod("fourth", "default").spec.node_name is None


def test_a_node_added_later_takes_a_waiting_pod(scheduler: FakeAPIServer, core: Any) -> None:
    add_pod(core, "early")
    assert scheduled(core.read_namespaced_pod("early", "default")) == (
        "False", "Unschedulable", "no nodes available to schedule pods")
    add_node(core, "late")
    scheduler.clock.advance(1)
    pod = core.read_namespaced_pod("early", "default")
    assert pod.spec.node_name == "late" and scheduled(pod) == ("True", "", "")
    assert [reason for _type, reason, _message in events_of(core, "early")] == ["FailedScheduling", "Scheduled"]


def test_the_least_allocated_node_is_chosen(core: Any) -> None:
    add_node(core, "node-a")
    add_node(core, "node-b")
    for index in range(4):
        add_pod(core, f"spread-{index}", cpu="1")
    nodes = [core.read_namespaced_pod(f"spread-{index}", "default").spec.node_name for index in range(4)]
    assert sorted(nodes) == ["node-a", "node-a", "node-b", "node-b"]


def test_a_higher_priority_pod_preempts_a_lower_one() -> None:
    with FakeAPIServer(seed=3, nodes=1, node_capacity={"cpu": "2"}, clock=frozen_clock()) as server:
        core = k8s.CoreV1Api(server.kubernetes_client())
        add_pod(core, "low", cpu="2")
        server.clock.advance(5)
        critical = builders.pod("critical", requests={"cpu": "2"}, namespace="kube-system",
                                priorityClassName="system-cluster-critical")
        core.create_namespaced_pod("kube-system", critical)
        pod = core.read_namespaced_pod("critical", "kube-system")
        assert pod.status.nominated_node_name == "node-1"
        assert scheduled(pod)[2] == "0/1 nodes are available: 1 Insufficient cpu."
        victim = core.read_namespaced_pod("low", "default")
        assert victim.metadata.deletion_timestamp is not None
        assert [(c.type, c.reason) for c in victim.status.conditions if c.type == "DisruptionTarget"] == [
            ("DisruptionTarget", "PreemptionByScheduler")]
        assert ("Normal", "Preempted", f"Preempted by pod {pod.metadata.uid} on node node-1") in events_of(core, "low")
        server.clock.advance(5)  # the victim's kubelet stops it; the pod takes its place
        assert core.read_namespaced_pod("critical", "kube-system").spec.node_name == "node-1"


def test_fit_error_sorts_the_histogram_as_strings() -> None:
    rejections = {f"n{index}": Rejection(("Insufficient cpu",), True) for index in range(10)}
    rejections["x"] = Rejection(("node(s) were unschedulable",), False)
    rejections["y"] = Rejection(("node(s) were unschedulable",), False)
    assert fit_error(12, rejections) == (
        "0/12 nodes are available: 10 Insufficient cpu, 2 node(s) were unschedulable.")


def test_pod_requests_follow_the_init_container_and_overhead_rules() -> None:
    spec = {"containers": [{"resources": {"requests": {"cpu": "100m", "memory": "1Gi"}}},
                           {"resources": {"requests": {"cpu": "200m"}}}],
            "initContainers": [{"resources": {"requests": {"cpu": "1"}}},
                               {"restartPolicy": "Always", "resources": {"requests": {"cpu": "50m"}}},
                               {"resources": {"requests": {"cpu": "500m", "memory": "2Gi"}}}],
            "overhead": {"cpu": "10m"}}
    # sum 300m + sidecar 50m = 350m; init peak max(1000m, 500m + 50m); memory max(1Gi, 2Gi)
    assert pod_requests(spec) == {"cpu": 1010, "memory": 2 * 1024**3}


def test_an_event_the_server_rejects_is_dropped_and_the_pod_bound_meanwhile(
        scheduler: FakeAPIServer, core: Any) -> None:
    add_node(core, "node-a")
    rule = scheduler.inject(resource="events", verb="create", status=503, times=1, user_agent="kube-scheduler/*")
    add_pod(core, "web")
    assert core.read_namespaced_pod("web", "default").spec.node_name == "node-a"  # the binding went on
    assert events_of(core, "web") == [] and rule.fired == 1
    scheduler.clock.advance(120)  # past the back-off a retried step would wait: it is not written again
    assert events_of(core, "web") == []
    add_pod(core, "api")  # the scheduler's next event is written
    assert events_of(core, "api") == [("Normal", "Scheduled", "Successfully assigned default/api to node-a")]
