"""The statefulset controller, one upstream behaviour per test, on a frozen clock."""

from __future__ import annotations

from typing import Any

import pytest
from kubernetes import client as k8s

from fakeapi.testing import FakeAPIServer
from tests import workloads
from tests.controllers.conftest import events_of


@pytest.fixture
def apps(api: Any) -> Any:
    return k8s.AppsV1Api(api)


def pods(core: Any) -> list[tuple[str, str, bool]]:
    """(name, phase, being deleted) of the pods, by name."""
    return sorted((p.metadata.name, p.status.phase, p.metadata.deletion_timestamp is not None)
                  for p in core.list_namespaced_pod("default").items)


def slow_start() -> dict[str, Any]:
    """A template whose pods are ready 5 s after they start: ordering shows."""
    template = workloads.template()
    template["spec"]["containers"][0]["readinessProbe"] = {"httpGet": {"port": 80}, "initialDelaySeconds": 5}
    return template


def names(core: Any) -> list[str]:
    return [name for name, _phase, _deleting in pods(core)]


def test_pods_are_named_by_ordinal_with_their_identity(cluster: FakeAPIServer, apps: Any, core: Any) -> None:
    apps.create_namespaced_stateful_set("default", workloads.stateful_set(replicas=2))
    cluster.clock.advance(2)
    pod = core.read_namespaced_pod("web-1", "default")
    revision = apps.read_namespaced_stateful_set("web", "default").status.update_revision
    assert (pod.spec.hostname, pod.spec.subdomain) == ("web-1", "web")
    assert pod.metadata.labels == {"app": "web", "statefulset.kubernetes.io/pod-name": "web-1",
                                   "apps.kubernetes.io/pod-index": "1", "controller-revision-hash": revision}
    assert [(ref.kind, ref.controller) for ref in pod.metadata.owner_references] == [("StatefulSet", True)]


def test_ordered_ready_makes_each_pod_after_the_previous_is_ready(cluster: FakeAPIServer, apps: Any,
                                                                   core: Any) -> None:
    apps.create_namespaced_stateful_set("default", workloads.stateful_set(replicas=3, template=slow_start()))
    assert names(core) == ["web-0"]
    cluster.clock.advance(4)
    assert names(core) == ["web-0"]  # running, not ready yet
    cluster.clock.advance(3)
    assert names(core) == ["web-0", "web-1"]
    cluster.clock.advance(6)
    assert names(core) == ["web-0", "web-1", "web-2"]
    assert [e[2] for e in events_of(core, "web")] == [
        "create Pod web-0 in StatefulSet web successful", "create Pod web-1 in StatefulSet web successful",
        "create Pod web-2 in StatefulSet web successful"]


def test_parallel_makes_every_pod_at_once(cluster: FakeAPIServer, apps: Any, core: Any) -> None:
    apps.create_namespaced_stateful_set("default", workloads.stateful_set(
        replicas=3, podManagementPolicy="Parallel", template=slow_start()))
    assert names(core) == ["web-0", "web-1", "web-2"]


def test_scaling_down_deletes_the_highest_ordinal_first_one_at_a_time(cluster: FakeAPIServer, apps: Any,
                                                                      core: Any) -> None:
    apps.create_namespaced_stateful_set("default", workloads.stateful_set(replicas=3))
    cluster.clock.advance(3)
    apps.patch_namespaced_stateful_set_scale("web", "default", {"spec": {"replicas": 1}})
    assert pods(core) == [("web-0", "Running", False), ("web-1", "Running", False), ("web-2", "Running", True)]
    cluster.clock.advance(1)  # web-2's container stopped: it is gone, web-1 goes next
    assert pods(core) == [("web-0", "Running", False), ("web-1", "Running", True)]
    cluster.clock.advance(1)
    assert pods(core) == [("web-0", "Running", False)]
    assert events_of(core, "web")[-2:] == [
        ("Normal", "SuccessfulDelete", "delete Pod web-2 in StatefulSet web successful"),
        ("Normal", "SuccessfulDelete", "delete Pod web-1 in StatefulSet web successful")]


def test_a_rolling_update_goes_from_the_highest_ordinal_down_to_the_partition(cluster: FakeAPIServer, apps: Any,
                                                                              core: Any) -> None:
    strategy = {"type": "RollingUpdate", "rollingUpdate": {"partition": 1}}
    apps.create_namespaced_stateful_set("default", workloads.stateful_set(replicas=3, updateStrategy=strategy))
    cluster.clock.advance(3)
    old_revision = apps.read_namespaced_stateful_set("web", "default").status.current_revision
    apps.patch_namespaced_stateful_set("web", "default", {"spec": {"template": {"spec": {
        "containers": [{"name": "web", "image": "nginx:1.28"}]}}}})
    assert pods(core)[2] == ("web-2", "Running", True)
    for _ in range(8):
        cluster.clock.advance(1)
    images = {p.metadata.name: p.spec.containers[0].image for p in core.list_namespaced_pod("default").items}
    assert images == {"web-0": "nginx:1.27", "web-1": "nginx:1.28", "web-2": "nginx:1.28"}
    status = apps.read_namespaced_stateful_set("web", "default").status
    assert (status.current_revision, status.current_replicas, status.updated_replicas) == (old_revision, 1, 2)
    assert status.update_revision != old_revision


def test_a_finished_update_makes_the_update_revision_current(cluster: FakeAPIServer, apps: Any) -> None:
    apps.create_namespaced_stateful_set("default", workloads.stateful_set(replicas=2))
    cluster.clock.advance(3)
    apps.patch_namespaced_stateful_set("web", "default", {"spec": {"template": {"spec": {
        "containers": [{"name": "web", "image": "nginx:1.28"}]}}}})
    for _ in range(8):
        cluster.clock.advance(1)
    status = apps.read_namespaced_stateful_set("web", "default").status
    assert status.current_revision == status.update_revision
    assert (status.replicas, status.ready_replicas, status.current_replicas, status.updated_replicas,
            status.available_replicas) == (2, 2, 2, 2, 2)
    revisions = sorted(apps.list_namespaced_controller_revision("default").items, key=lambda r: r.revision)
    assert [r.revision for r in revisions] == [1, 2]
    assert revisions[1].metadata.name == status.update_revision
    assert revisions[1].metadata.labels["controller.kubernetes.io/hash"] == status.update_revision.split("-")[-1]


def test_claim_templates_become_volumes_of_each_pod(cluster: FakeAPIServer, apps: Any, core: Any) -> None:
    claim = {"metadata": {"name": "data"}, "spec": {"accessModes": ["ReadWriteOnce"],
                                                    "resources": {"requests": {"storage": "1Gi"}}}}
    apps.create_namespaced_stateful_set("default", workloads.stateful_set(replicas=1, volumeClaimTemplates=[claim]))
    volumes = core.read_namespaced_pod("web-0", "default").spec.volumes
    assert [(v.name, v.persistent_volume_claim.claim_name) for v in volumes if v.persistent_volume_claim] == [
        ("data", "data-web-0")]


def test_a_deleted_pod_is_made_again_with_the_same_name(cluster: FakeAPIServer, apps: Any, core: Any) -> None:
    apps.create_namespaced_stateful_set("default", workloads.stateful_set(replicas=1))
    cluster.clock.advance(2)
    uid = core.read_namespaced_pod("web-0", "default").metadata.uid
    core.delete_namespaced_pod("web-0", "default")
    cluster.clock.advance(2)
    pod = core.read_namespaced_pod("web-0", "default")
    assert pod.metadata.uid != uid and pod.status.phase == "Running"
