"""The deployment controller, one upstream behaviour per test, on a frozen clock."""

from __future__ import annotations

from typing import Any

import pytest
from kubernetes import client as k8s

from fakeapi.testing import FakeAPIServer
from tests import workloads
from tests.controllers.conftest import events_of

REVISION = "deployment.kubernetes.io/revision"


@pytest.fixture
def apps(api: Any) -> Any:
    return k8s.AppsV1Api(api)


def replica_sets(apps: Any) -> list[Any]:
    return sorted(apps.list_namespaced_replica_set("default").items, key=lambda rs: rs.metadata.creation_timestamp)


def running(core: Any) -> list[Any]:
    return [pod for pod in core.list_namespaced_pod("default").items if pod.metadata.deletion_timestamp is None]


def conditions(apps: Any, name: str = "web") -> dict[str, tuple[str, str, str]]:
    status = apps.read_namespaced_deployment(name, "default").status
    return {c.type: (c.status, c.reason, c.message) for c in status.conditions or []}


def set_image(apps: Any, image: str, name: str = "web") -> None:
    apps.patch_namespaced_deployment(name, "default", {"spec": {"template": {"spec": {
        "containers": [{"name": "web", "image": image}]}}}})


def test_a_deployment_creates_a_replica_set_named_with_the_pod_template_hash(cluster: FakeAPIServer, apps: Any,
                                                                            core: Any) -> None:
    deployment = apps.create_namespaced_deployment("default", workloads.deployment(replicas=3))
    [rs] = replica_sets(apps)
    template_hash = rs.metadata.labels["pod-template-hash"]
    assert rs.metadata.name == f"web-{template_hash}"
    assert rs.spec.selector.match_labels == {"app": "web", "pod-template-hash": template_hash}
    assert rs.spec.template.metadata.labels == {"app": "web", "pod-template-hash": template_hash}
    assert rs.spec.replicas == 3
    assert rs.metadata.annotations == {REVISION: "1", "deployment.kubernetes.io/desired-replicas": "3",
                                       "deployment.kubernetes.io/max-replicas": "4"}
    [ref] = rs.metadata.owner_references
    assert (ref.kind, ref.uid, ref.controller, ref.block_owner_deletion) == (
        "Deployment", deployment.metadata.uid, True, True)
    assert apps.read_namespaced_deployment("web", "default").metadata.annotations == {REVISION: "1"}
    assert events_of(core, "web") == [
        ("Normal", "ScalingReplicaSet", f"Scaled up replica set {rs.metadata.name} from 0 to 3")]
    assert all(pod.metadata.name.startswith(f"{rs.metadata.name}-") for pod in running(core))


def test_a_finished_rollout_has_upstreams_conditions_and_status(cluster: FakeAPIServer, apps: Any) -> None:
    apps.create_namespaced_deployment("default", workloads.deployment(replicas=2))
    rs_name = replica_sets(apps)[0].metadata.name
    assert conditions(apps)["Available"] == (
        "False", "MinimumReplicasUnavailable", "Deployment does not have minimum availability.")
    cluster.clock.advance(2)
    assert conditions(apps) == {
        "Available": ("True", "MinimumReplicasAvailable", "Deployment has minimum availability."),
        "Progressing": ("True", "NewReplicaSetAvailable", f'ReplicaSet "{rs_name}" has successfully progressed.')}
    deployment = apps.read_namespaced_deployment("web", "default")
    status = deployment.status
    assert (status.replicas, status.updated_replicas, status.ready_replicas, status.available_replicas,
            status.unavailable_replicas, status.observed_generation) == (2, 2, 2, 2, None,
                                                                         deployment.metadata.generation)
    assert [c.type for c in status.conditions] == ["Available", "Progressing"]


def test_a_rolling_update_stays_within_max_surge_and_max_unavailable(cluster: FakeAPIServer, apps: Any,
                                                                     core: Any) -> None:
    strategy = {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 1}}
    apps.create_namespaced_deployment("default", workloads.deployment(replicas=4, strategy=strategy))
    cluster.clock.advance(2)
    set_image(apps, "nginx:1.28")
    for _ in range(12):
        pods = running(core)
        ready = [p for p in pods if any(c.type == "Ready" and c.status == "True" for c in p.status.conditions or [])]
        assert len(pods) <= 4 + 1
        assert len(ready) >= 4 - 1
        cluster.clock.advance(1)
    images = {pod.spec.containers[0].image for pod in running(core)}
    assert images == {"nginx:1.28"} and len(running(core)) == 4
    old, new = replica_sets(apps)
    assert (old.spec.replicas, new.spec.replicas) == (0, 4)


def test_a_recreate_deployment_removes_every_old_pod_before_the_new_set_grows(cluster: FakeAPIServer, apps: Any,
                                                                            core: Any) -> None:
    apps.create_namespaced_deployment("default", workloads.deployment(replicas=2, strategy={"type": "Recreate"}))
    cluster.clock.advance(2)
    set_image(apps, "nginx:1.28")
    [old] = replica_sets(apps)  # the new set waits for the old pods to go
    assert old.spec.replicas == 0
    assert all(pod.spec.containers[0].image == "nginx:1.27" for pod in running(core) + [])
    cluster.clock.advance(2)
    old, new = replica_sets(apps)
    assert (old.spec.replicas, new.spec.replicas) == (0, 2)
    assert {pod.spec.containers[0].image for pod in running(core)} == {"nginx:1.28"}


def test_each_new_template_is_a_new_revision(cluster: FakeAPIServer, apps: Any) -> None:
    apps.create_namespaced_deployment("default", workloads.deployment(replicas=1))
    cluster.clock.advance(2)
    set_image(apps, "nginx:1.28")
    cluster.clock.advance(3)
    assert apps.read_namespaced_deployment("web", "default").metadata.annotations[REVISION] == "2"
    assert [rs.metadata.annotations[REVISION] for rs in replica_sets(apps)] == ["1", "2"]


def test_going_back_to_an_old_template_reuses_its_set_with_a_new_revision_and_history(
        cluster: FakeAPIServer, apps: Any) -> None:
    apps.create_namespaced_deployment("default", workloads.deployment(replicas=1))
    cluster.clock.advance(2)
    set_image(apps, "nginx:1.28")
    cluster.clock.advance(3)
    set_image(apps, "nginx:1.27")  # what `kubectl rollout undo` does
    cluster.clock.advance(3)
    first, second = replica_sets(apps)
    assert first.metadata.annotations[REVISION] == "3"
    assert first.metadata.annotations["deployment.kubernetes.io/revision-history"] == "1"
    assert (first.spec.replicas, second.spec.replicas) == (1, 0)
    assert apps.read_namespaced_deployment("web", "default").metadata.annotations[REVISION] == "3"


def test_old_sets_beyond_the_revision_history_limit_are_deleted(cluster: FakeAPIServer, apps: Any) -> None:
    apps.create_namespaced_deployment("default", workloads.deployment(replicas=1, revisionHistoryLimit=1))
    for image in ("nginx:1.28", "nginx:1.29"):
        cluster.clock.advance(3)
        set_image(apps, image)
    cluster.clock.advance(3)
    assert [rs.spec.template.spec.containers[0].image for rs in replica_sets(apps)] == ["nginx:1.28", "nginx:1.29"]


def test_a_paused_deployment_does_not_roll_out_until_resumed(cluster: FakeAPIServer, apps: Any) -> None:
    apps.create_namespaced_deployment("default", workloads.deployment(replicas=1))
    cluster.clock.advance(2)
    apps.patch_namespaced_deployment("web", "default", {"spec": {"paused": True}})
    assert conditions(apps)["Progressing"] == ("Unknown", "DeploymentPaused", "Deployment is paused")
    set_image(apps, "nginx:1.28")
    cluster.clock.advance(3)
    assert len(replica_sets(apps)) == 1
    apps.patch_namespaced_deployment("web", "default", {"spec": {"paused": False}})
    assert len(replica_sets(apps)) == 2
    cluster.clock.advance(3)
    assert conditions(apps)["Progressing"][1] == "NewReplicaSetAvailable"


def test_resuming_records_the_resumed_condition_before_the_rollout(cluster: FakeAPIServer, apps: Any) -> None:
    apps.create_namespaced_deployment("default", workloads.deployment(replicas=1, paused=True))
    assert replica_sets(apps) == []  # a Deployment created paused makes no set
    assert conditions(apps)["Progressing"] == ("Unknown", "DeploymentPaused", "Deployment is paused")
    cluster.clear_requests()
    apps.patch_namespaced_deployment("web", "default", {"spec": {"paused": False}})
    written = [condition for r in cluster.requests if r.resource == "deployments" and r.subresource == "status"
               for condition in r.json()["status"].get("conditions", []) if condition["type"] == "Progressing"]
    assert [(c["status"], c["reason"]) for c in written][:2] == [
        ("Unknown", "DeploymentResumed"), ("True", "NewReplicaSetCreated")]
    assert len(replica_sets(apps)) == 1


def test_a_rollout_without_progress_exceeds_its_deadline(cluster: FakeAPIServer, apps: Any) -> None:
    template = workloads.template()
    template["metadata"]["annotations"] = {"fakeapi.dev/never-ready": "true"}
    apps.create_namespaced_deployment("default", workloads.deployment(replicas=1, progressDeadlineSeconds=60,
                                                                      template=template))
    rs_name = replica_sets(apps)[0].metadata.name
    cluster.clock.advance(30)
    assert conditions(apps)["Progressing"][0] == "True"
    cluster.clock.advance(40)
    assert conditions(apps)["Progressing"] == (
        "False", "ProgressDeadlineExceeded", f'ReplicaSet "{rs_name}" has timed out progressing.')


def test_scaling_a_deployment_scales_its_set(cluster: FakeAPIServer, apps: Any, core: Any) -> None:
    apps.create_namespaced_deployment("default", workloads.deployment(replicas=2))
    cluster.clock.advance(2)
    apps.patch_namespaced_deployment_scale("web", "default", {"spec": {"replicas": 5}})
    [rs] = replica_sets(apps)
    assert rs.spec.replicas == 5
    assert events_of(core, "web")[-1] == (
        "Normal", "ScalingReplicaSet", f"Scaled up replica set {rs.metadata.name} from 2 to 5")
    assert rs.metadata.annotations["deployment.kubernetes.io/desired-replicas"] == "5"


def test_scaling_during_a_rollout_is_proportional(cluster: FakeAPIServer, apps: Any) -> None:
    template = workloads.template()
    apps.create_namespaced_deployment("default", workloads.deployment(replicas=10, template=template))
    cluster.clock.advance(2)
    never_ready = workloads.template()
    never_ready["metadata"]["annotations"] = {"fakeapi.dev/never-ready": "true"}
    apps.patch_namespaced_deployment("web", "default", {"spec": {"template": never_ready}})
    old, new = replica_sets(apps)
    assert (old.spec.replicas, new.spec.replicas) == (8, 5)  # 25% surge, 25% unavailable of 10
    apps.patch_namespaced_deployment_scale("web", "default", {"spec": {"replicas": 20}})
    old, new = replica_sets(apps)
    assert (old.spec.replicas, new.spec.replicas) == (15, 10)  # 25 allowed, shared by the sets' sizes


def test_a_foreground_delete_removes_pods_and_sets_before_the_deployment(cluster: FakeAPIServer, apps: Any,
                                                                         core: Any) -> None:
    apps.create_namespaced_deployment("default", workloads.deployment(replicas=2))
    cluster.clock.advance(2)
    apps.delete_namespaced_deployment("web", "default", body=k8s.V1DeleteOptions(propagation_policy="Foreground"))
    deployment = apps.read_namespaced_deployment("web", "default")
    assert deployment.metadata.finalizers == ["foregroundDeletion"]
    cluster.clock.advance(2)
    assert running(core) == [] and core.list_namespaced_pod("default").items == []
    assert replica_sets(apps) == []
    assert apps.list_namespaced_deployment("default").items == []


def test_the_controller_writes_as_deployment_controller(cluster: FakeAPIServer, apps: Any) -> None:
    apps.create_namespaced_deployment("default", workloads.deployment(replicas=1))
    writes = [r for r in cluster.requests if r.resource in ("deployments", "replicasets")
              and r.user.username.endswith(":deployment-controller")]
    assert {(r.verb, r.resource, r.subresource) for r in writes} == {
        ("create", "replicasets", ""), ("update", "deployments", "status")}
    assert {r.headers["User-Agent"].split("/")[0] for r in writes} == {"kube-controller-manager"}
