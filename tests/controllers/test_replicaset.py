"""The replicaset and replication controllers, one upstream behaviour per test, on a frozen clock."""

from __future__ import annotations

from typing import Any

from kubernetes import client as k8s

from fakeapi.testing import FakeAPIServer
from tests import workloads
from tests.controllers.conftest import events_of


def apps(cluster: FakeAPIServer) -> Any:
    return k8s.AppsV1Api(cluster.kubernetes_client())


def pods_of(core: Any, selector: str = "app=web") -> list[Any]:
    return sorted(core.list_namespaced_pod("default", label_selector=selector).items, key=lambda p: p.metadata.name)


def names(pods: list[Any]) -> list[str]:
    return [pod.metadata.name for pod in pods]


def test_a_replica_set_creates_its_pods_named_after_it(cluster: FakeAPIServer, core: Any) -> None:
    rs = apps(cluster).create_namespaced_replica_set("default", workloads.replica_set(replicas=3))
    pods = pods_of(core)
    assert len(pods) == 3
    for pod in pods:
        assert pod.metadata.name.startswith("web-") and len(pod.metadata.name) == len("web-") + 5
        assert pod.metadata.generate_name == "web-"
        assert pod.metadata.labels == {"app": "web"}
        [ref] = pod.metadata.owner_references
        assert (ref.api_version, ref.kind, ref.name, ref.uid, ref.controller, ref.block_owner_deletion) == (
            "apps/v1", "ReplicaSet", "web", rs.metadata.uid, True, True)
    assert sorted(events_of(core, "web")) == sorted(
        ("Normal", "SuccessfulCreate", f"Created pod: {name}") for name in names(pods))


def test_the_status_counts_replicas_ready_and_available(cluster: FakeAPIServer, core: Any) -> None:
    apps(cluster).create_namespaced_replica_set("default", workloads.replica_set(replicas=2))
    status = apps(cluster).read_namespaced_replica_set("web", "default").status
    assert (status.replicas, status.ready_replicas, status.available_replicas) == (2, None, None)
    cluster.clock.advance(2)  # pulled, started, ready
    rs = apps(cluster).read_namespaced_replica_set("web", "default")
    status = rs.status
    assert (status.replicas, status.fully_labeled_replicas, status.ready_replicas, status.available_replicas,
            status.observed_generation) == (2, 2, 2, 2, rs.metadata.generation)


def test_min_ready_seconds_delays_availability(cluster: FakeAPIServer) -> None:
    apps(cluster).create_namespaced_replica_set("default", workloads.replica_set(replicas=1, minReadySeconds=10))
    cluster.clock.advance(2)
    status = apps(cluster).read_namespaced_replica_set("web", "default").status
    assert (status.ready_replicas, status.available_replicas) == (1, None)
    cluster.clock.advance(10)
    assert apps(cluster).read_namespaced_replica_set("web", "default").status.available_replicas == 1


def test_a_deleted_pod_is_replaced(cluster: FakeAPIServer, core: Any) -> None:
    apps(cluster).create_namespaced_replica_set("default", workloads.replica_set(replicas=2))
    cluster.clock.advance(2)
    victim = pods_of(core)[0].metadata.name
    core.delete_namespaced_pod(victim, "default")
    active = [pod for pod in pods_of(core) if pod.metadata.deletion_timestamp is None]
    assert len(active) == 2 and victim not in names(active)


def test_scaling_down_deletes_unready_pods_first(cluster: FakeAPIServer, core: Any) -> None:
    apps(cluster).create_namespaced_replica_set("default", workloads.replica_set(replicas=2))
    cluster.clock.advance(2)
    ready = names(pods_of(core))
    apps(cluster).patch_namespaced_replica_set("web", "default", {"spec": {"replicas": 4}})
    newest = [name for name in names(pods_of(core)) if name not in ready]
    apps(cluster).patch_namespaced_replica_set("web", "default", {"spec": {"replicas": 2}})
    deleted = [name for name in names(pods_of(core)) if
               core.read_namespaced_pod(name, "default").metadata.deletion_timestamp is not None]
    assert sorted(deleted) == sorted(newest)  # still pulling their image: not ready


def test_scaling_down_deletes_the_lower_deletion_cost_first(cluster: FakeAPIServer, core: Any) -> None:
    apps(cluster).create_namespaced_replica_set("default", workloads.replica_set(replicas=3))
    cluster.clock.advance(2)
    cheap = pods_of(core)[1].metadata.name
    core.patch_namespaced_pod(cheap, "default", {"metadata": {"annotations": {
        "controller.kubernetes.io/pod-deletion-cost": "-10"}}})
    apps(cluster).patch_namespaced_replica_set("web", "default", {"spec": {"replicas": 2}})
    assert core.read_namespaced_pod(cheap, "default").metadata.deletion_timestamp is not None
    assert events_of(core, "web")[-1] == ("Normal", "SuccessfulDelete", f"Deleted pod: {cheap}")


def test_an_orphan_pod_matching_the_selector_is_adopted(cluster: FakeAPIServer, core: Any) -> None:
    core.create_namespaced_pod("default", {"metadata": {"name": "stray", "labels": {"app": "web"}},
                                           "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]}})
    rs = apps(cluster).create_namespaced_replica_set("default", workloads.replica_set(replicas=2))
    pods = pods_of(core)
    assert len(pods) == 2 and "stray" in names(pods)
    stray = core.read_namespaced_pod("stray", "default")
    assert [(ref.kind, ref.uid, ref.controller) for ref in stray.metadata.owner_references] == [
        ("ReplicaSet", rs.metadata.uid, True)]


def test_a_pod_whose_labels_no_longer_match_is_released_and_replaced(cluster: FakeAPIServer, core: Any) -> None:
    apps(cluster).create_namespaced_replica_set("default", workloads.replica_set(replicas=1))
    [pod] = pods_of(core)
    core.patch_namespaced_pod(pod.metadata.name, "default", {"metadata": {"labels": {"app": "debug"}}})
    assert core.read_namespaced_pod(pod.metadata.name, "default").metadata.owner_references is None
    assert len(pods_of(core)) == 1 and pods_of(core)[0].metadata.name != pod.metadata.name


def test_a_pod_that_cannot_be_created_sets_replica_failure(cluster: FakeAPIServer, core: Any) -> None:
    manifest = workloads.replica_set(replicas=1, template=workloads.template(serviceAccountName="missing"))
    apps(cluster).create_namespaced_replica_set("default", manifest)
    [condition] = apps(cluster).read_namespaced_replica_set("web", "default").status.conditions
    assert (condition.type, condition.status, condition.reason) == ("ReplicaFailure", "True", "FailedCreate")
    assert condition.message.startswith('pods "web-') and condition.message.endswith(
        'is forbidden: error looking up service account default/missing: serviceaccount "missing" not found')
    (kind, reason, message), = events_of(core, "web")
    assert (kind, reason) == ("Warning", "FailedCreate") and message == f"Error creating: {condition.message}"


def test_deleting_a_replica_set_in_the_background_deletes_its_pods(cluster: FakeAPIServer, core: Any) -> None:
    apps(cluster).create_namespaced_replica_set("default", workloads.replica_set(replicas=2))
    apps(cluster).delete_namespaced_replica_set("web", "default")  # apps/v1 deletes dependents by default
    assert all(pod.metadata.deletion_timestamp is not None for pod in pods_of(core))
    cluster.clock.advance(1)
    assert pods_of(core) == []


def test_the_controller_writes_as_replicaset_controller(cluster: FakeAPIServer) -> None:
    apps(cluster).create_namespaced_replica_set("default", workloads.replica_set(replicas=1))
    writes = [r for r in cluster.requests if r.resource in ("pods", "replicasets") and r.verb != "get"
              and r.user.username != "system:anonymous" and r.user_agent.startswith("kube-controller-manager")]
    assert {(r.verb, r.resource, r.subresource) for r in writes} >= {("create", "pods", ""),
                                                                      ("update", "replicasets", "status")}
    assert {r.user.username for r in writes} == {"system:serviceaccount:kube-system:replicaset-controller"}


def test_a_replication_controller_runs_its_pods(cluster: FakeAPIServer, core: Any) -> None:
    core.create_namespaced_replication_controller("default", workloads.replication_controller(replicas=2))
    pods = pods_of(core)
    assert len(pods) == 2
    assert {(ref.api_version, ref.kind) for pod in pods for ref in pod.metadata.owner_references} == {
        ("v1", "ReplicationController")}
    cluster.clock.advance(2)
    status = core.read_namespaced_replication_controller("web", "default").status
    assert (status.replicas, status.ready_replicas, status.available_replicas) == (2, 2, 2)


def test_deleting_a_replication_controller_orphans_its_pods_by_default(cluster: FakeAPIServer, core: Any) -> None:
    core.create_namespaced_replication_controller("default", workloads.replication_controller(replicas=2))
    core.delete_namespaced_replication_controller("web", "default")  # no propagation policy: v1's Orphan
    pods = pods_of(core)
    assert len(pods) == 2 and all(pod.metadata.owner_references is None for pod in pods)
    assert all(pod.metadata.deletion_timestamp is None for pod in pods)


def test_a_failed_create_sets_replica_failure_until_a_sync_succeeds(cluster: FakeAPIServer, core: Any) -> None:
    fault = cluster.inject(verb="create", resource="pods", status=500, times=1,
                           user_agent="kube-controller-manager/*")
    apps(cluster).create_namespaced_replica_set("default", workloads.replica_set(replicas=2))
    written = [c for r in cluster.requests if r.resource == "replicasets" and r.subresource == "status"
               for c in r.json()["status"].get("conditions", [])]
    assert [(c["type"], c["reason"], c["message"]) for c in written] == [
        ("ReplicaFailure", "FailedCreate", "Internal error occurred: injected fault")]
    assert ("Warning", "FailedCreate", "Error creating: Internal error occurred: injected fault") in events_of(
        core, "web")
    rs = apps(cluster).read_namespaced_replica_set("web", "default")  # the next sync made them and cleared it
    assert rs.status.conditions is None and rs.status.replicas == 2 and fault.fired == 1
