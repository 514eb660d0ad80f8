"""The garbage collector, one upstream behaviour per test: background, foreground and orphan propagation,
dangling references, scope rules, and who it writes as."""

from __future__ import annotations

from typing import Any

import pytest
from kubernetes import client as k8s
from kubernetes.client.rest import ApiException

from fakeapi.testing import FakeAPIServer
from tests.controllers.conftest import events_of, frozen_clock, owner

GC_USER = "system:serviceaccount:kube-system:generic-garbage-collector"


def config_map(core: Any, name: str, owners: list[dict[str, Any]] | None = None, namespace: str = "default",
               finalizers: list[str] | None = None) -> Any:
    metadata: dict[str, Any] = {"name": name}
    if owners:
        metadata["ownerReferences"] = owners
    if finalizers:
        metadata["finalizers"] = finalizers
    return core.create_namespaced_config_map(namespace, {"metadata": metadata, "data": {"k": "v"}})


def running_pod(core: Any, name: str, owners: list[dict[str, Any]]) -> Any:
    return core.create_namespaced_pod("default", {
        "metadata": {"name": name, "ownerReferences": owners},
        "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}]}})


def exists(core: Any, kind: str, name: str, namespace: str = "default") -> bool:
    try:
        getattr(core, f"read_namespaced_{kind}")(name, namespace)
    except ApiException as error:
        assert error.status == 404
        return False
    return True


def delete(core: Any, name: str, policy: str | None = None) -> None:
    body = k8s.V1DeleteOptions(propagation_policy=policy) if policy else None
    core.delete_namespaced_config_map(name, "default", body=body)


def test_dependents_of_an_owner_deleted_in_the_background_are_deleted(core: Any) -> None:
    parent = config_map(core, "parent")
    config_map(core, "child", [owner(parent, "ConfigMap")])
    grandchild_owner = core.read_namespaced_config_map("child", "default")
    config_map(core, "grandchild", [owner(grandchild_owner, "ConfigMap")])
    delete(core, "parent", "Background")
    assert not exists(core, "config_map", "parent")
    assert not exists(core, "config_map", "child")
    assert not exists(core, "config_map", "grandchild")


def test_a_dependent_with_another_live_owner_lives_and_loses_the_dangling_reference(core: Any) -> None:
    first, second = config_map(core, "first"), config_map(core, "second")
    config_map(core, "shared", [owner(first, "ConfigMap"), owner(second, "ConfigMap")])
    delete(core, "first")
    shared = core.read_namespaced_config_map("shared", "default")
    assert [ref.name for ref in shared.metadata.owner_references] == ["second"]


def test_a_foreground_delete_keeps_the_owner_until_blocking_dependents_are_gone(cluster: FakeAPIServer,
                                                                                core: Any) -> None:
    parent = config_map(core, "parent")
    running_pod(core, "worker", [owner(parent, "ConfigMap", block=True)])
    cluster.clock.advance(2)  # pulled and running
    delete(core, "parent", "Foreground")
    held = core.read_namespaced_config_map("parent", "default")
    assert held.metadata.finalizers == ["foregroundDeletion"] and held.metadata.deletion_timestamp is not None
    worker = core.read_namespaced_pod("worker", "default")
    assert worker.metadata.deletion_timestamp is not None  # its containers are stopping
    cluster.clock.advance(2)  # they stopped: the kubelet deleted the pod, then the owner went
    assert not exists(core, "pod", "worker")
    assert not exists(core, "config_map", "parent")


def test_a_foreground_delete_does_not_wait_for_non_blocking_dependents(cluster: FakeAPIServer, core: Any) -> None:
    parent = config_map(core, "parent")
    running_pod(core, "worker", [owner(parent, "ConfigMap")])
    cluster.clock.advance(2)
    delete(core, "parent", "Foreground")
    assert not exists(core, "config_map", "parent")
    assert core.read_namespaced_pod("worker", "default").metadata.deletion_timestamp is not None


def test_a_foreground_delete_of_an_owner_without_dependents_completes_at_once(core: Any) -> None:
    config_map(core, "alone")
    delete(core, "alone", "Foreground")
    assert not exists(core, "config_map", "alone")


def test_foreground_propagates_through_a_dependent_that_has_dependents(cluster: FakeAPIServer, core: Any) -> None:
    parent = config_map(core, "parent")
    middle = config_map(core, "middle", [owner(parent, "ConfigMap", block=True)])
    running_pod(core, "worker", [owner(middle, "ConfigMap", block=True)])
    cluster.clock.advance(2)
    delete(core, "parent", "Foreground")
    middle = core.read_namespaced_config_map("middle", "default")
    assert middle.metadata.finalizers == ["foregroundDeletion"]  # deleted in the foreground in turn
    assert exists(core, "config_map", "parent")
    cluster.clock.advance(2)
    assert not any(exists(core, kind, name) for kind, name in
                   (("pod", "worker"), ("config_map", "middle"), ("config_map", "parent")))


def test_an_orphan_delete_removes_the_owner_reference_from_dependents(core: Any) -> None:
    parent, other = config_map(core, "parent"), config_map(core, "other")
    config_map(core, "child", [owner(parent, "ConfigMap"), owner(other, "ConfigMap")])
    delete(core, "parent", "Orphan")
    assert not exists(core, "config_map", "parent")
    child = core.read_namespaced_config_map("child", "default")
    assert [ref.name for ref in child.metadata.owner_references] == ["other"]


def test_an_object_whose_owner_never_existed_is_deleted(core: Any) -> None:
    config_map(core, "child", [{"apiVersion": "v1", "kind": "ConfigMap", "name": "ghost",
                                "uid": "6d1a3f2e-0000-4000-8000-000000000000"}])
    assert not exists(core, "config_map", "child")


def test_an_owner_reference_with_another_uid_is_dangling(core: Any) -> None:
    config_map(core, "parent")
    config_map(core, "child", [{"apiVersion": "v1", "kind": "ConfigMap", "name": "parent",
                                "uid": "6d1a3f2e-0000-4000-8000-000000000000"}])
    assert not exists(core, "config_map", "child")
    assert exists(core, "config_map", "parent")


def test_an_owner_reference_to_a_kind_not_served_is_left_alone(core: Any) -> None:
    config_map(core, "child", [{"apiVersion": "example.com/v1", "kind": "Widget", "name": "w",
                                "uid": "6d1a3f2e-0000-4000-8000-000000000000"}])
    assert exists(core, "config_map", "child")


def test_a_cluster_scoped_object_naming_a_namespaced_owner_is_left_alone(core: Any) -> None:
    parent = config_map(core, "parent")
    core.create_namespace({"metadata": {"name": "team", "ownerReferences": [owner(parent, "ConfigMap")]}})
    delete(core, "parent")
    assert core.read_namespace("team").status.phase == "Active"


def test_a_namespaced_object_lives_while_its_cluster_scoped_owner_does(core: Any) -> None:
    team = core.create_namespace({"metadata": {"name": "team"}})
    config_map(core, "child", [owner(team, "Namespace")])
    assert exists(core, "config_map", "child")
    core.delete_namespace("team")
    assert not exists(core, "config_map", "child")


def test_an_owner_in_another_namespace_is_gone_for_its_dependent_with_an_event(core: Any) -> None:
    core.create_namespace({"metadata": {"name": "elsewhere"}})
    parent = config_map(core, "parent", namespace="elsewhere")
    config_map(core, "child", [owner(parent, "ConfigMap")])
    assert not exists(core, "config_map", "child")
    assert events_of(core, "child") == [(
        "Warning", "OwnerRefInvalidNamespace",
        f"ownerRef [v1/ConfigMap, namespace: default, name: parent, uid: {parent.metadata.uid}] does not exist "
        'in namespace "default"')]
    assert exists(core, "config_map", "parent", "elsewhere")


def test_a_dependent_is_deleted_with_the_propagation_its_own_finalizer_asks(core: Any) -> None:
    parent = config_map(core, "parent")
    middle = config_map(core, "middle", [owner(parent, "ConfigMap")], finalizers=["orphan"])
    config_map(core, "leaf", [owner(middle, "ConfigMap")])
    delete(core, "parent")
    assert not exists(core, "config_map", "middle")
    leaf = core.read_namespaced_config_map("leaf", "default")
    assert leaf.metadata.owner_references is None  # orphaned, not deleted


def test_releasing_a_dependent_lets_a_foreground_delete_finish(cluster: FakeAPIServer, core: Any) -> None:
    parent = config_map(core, "parent")
    config_map(core, "child", [owner(parent, "ConfigMap", block=True)], finalizers=["example.com/hold"])
    delete(core, "parent", "Foreground")
    assert exists(core, "config_map", "parent")  # the child is held by its own finalizer
    core.patch_namespaced_config_map("child", "default", {"metadata": {"finalizers": None}})
    assert not exists(core, "config_map", "child")
    assert not exists(core, "config_map", "parent")


def test_the_collector_writes_as_generic_garbage_collector(cluster: FakeAPIServer, core: Any) -> None:
    parent = config_map(core, "parent")
    child = config_map(core, "child", [owner(parent, "ConfigMap")])
    cluster.clear_requests()
    delete(core, "parent")
    deletes = [r for r in cluster.requests if r.verb == "delete" and r.name == "child"]
    assert [(r.user.username, r.status) for r in deletes] == [(GC_USER, 200)]
    assert deletes[0].json()["propagationPolicy"] == "Background"
    assert deletes[0].json()["preconditions"] == {"uid": child.metadata.uid,
                                                  "resourceVersion": child.metadata.resource_version}
    assert deletes[0].user_agent.startswith("kube-controller-manager/v1.32.0")


def test_the_collector_removes_the_foreground_finalizer_with_a_merge_patch(cluster: FakeAPIServer,
                                                                           core: Any) -> None:
    config_map(core, "alone")
    cluster.clear_requests()
    delete(core, "alone", "Foreground")
    patches = [r for r in cluster.requests if r.verb == "patch" and r.name == "alone"]
    assert [(r.user.username, r.headers["Content-Type"]) for r in patches] == [
        (GC_USER, "application/merge-patch+json")]
    assert patches[0].json()["metadata"]["finalizers"] is None


def test_nothing_collects_garbage_when_the_collector_is_disabled() -> None:
    with FakeAPIServer(nodes=0, controllers="*,-garbagecollector", clock=frozen_clock()) as server:
        core = k8s.CoreV1Api(server.kubernetes_client())
        parent = config_map(core, "parent")
        config_map(core, "child", [owner(parent, "ConfigMap")])
        delete(core, "parent")
        assert exists(core, "config_map", "child")


@pytest.mark.parametrize("policy", ["Foreground", "Orphan"])
def test_a_disabled_collector_leaves_the_propagation_finalizer(policy: str) -> None:
    with FakeAPIServer(nodes=0, controllers="-garbage-collector-controller,*", clock=frozen_clock()) as server:
        core = k8s.CoreV1Api(server.kubernetes_client())
        config_map(core, "parent")
        delete(core, "parent", policy)
        assert core.read_namespaced_config_map("parent", "default").metadata.deletion_timestamp is not None
