"""The default admission chain of kube-apiserver v1.32 for what fakeapi serves: NamespaceLifecycle,
ServiceAccount (tests/api/test_serviceaccount_admission.py), TaintNodesByCondition, Priority and
DefaultTolerationSeconds, in upstream's order, each switchable off by its upstream name."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from fakeapi.app import create_app
from fakeapi.config import ServerConfig
from tests.builders import kubelet_status, node, pod

PODS = "/api/v1/namespaces/default/pods"
NODES = "/api/v1/nodes"
NOT_READY = {"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}
DEFAULT_TOLERATIONS = [
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute",
     "tolerationSeconds": 300},
]


async def create(client: TestClient, body: dict[str, Any], path: str = PODS) -> tuple[int, dict[str, Any]]:
    response = await client.post(path, json=body)
    return response.status, await response.json()


async def test_a_created_pod_gets_the_default_tolerations_priority_and_preemption_policy(client: Any) -> None:
    status, created = await create(client, pod())
    assert status == 201
    assert created["spec"]["tolerations"] == DEFAULT_TOLERATIONS
    assert created["spec"]["priority"] == 0
    assert created["spec"]["preemptionPolicy"] == "PreemptLowerPriority"


async def test_a_pod_tolerating_the_taints_itself_keeps_its_own_tolerations(client: Any) -> None:
    own = [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute",
            "tolerationSeconds": 60},
           {"operator": "Exists"}]  # tolerates every taint, unreachable included
    status, created = await create(client, pod(tolerations=own))
    assert status == 201
    assert created["spec"]["tolerations"] == own


async def test_a_removed_default_toleration_comes_back_on_update(client: Any) -> None:
    await create(client, pod())
    stored = await (await client.get(PODS + "/web")).json()
    stored["spec"]["tolerations"] = stored["spec"]["tolerations"][:1]  # removing one is refused...
    response = await client.put(PODS + "/web", json=stored)
    # ...because the plugin adds it back before validation: the update is a no-op
    assert response.status == 200
    assert (await response.json())["spec"]["tolerations"] == DEFAULT_TOLERATIONS


@pytest.mark.parametrize(("class_name", "priority"), [
    ("system-node-critical", 2000001000),
    ("system-cluster-critical", 2000000000),
])
async def test_system_priority_classes_resolve_to_their_values(client: Any, class_name: str,
                                                               priority: int) -> None:
    status, created = await create(client, pod(priorityClassName=class_name))
    assert status == 201
    assert created["spec"]["priority"] == priority


async def test_an_unknown_priority_class_is_forbidden(client: Any) -> None:
    status, body = await create(client, pod(priorityClassName="gold"))
    assert status == 403
    assert body["reason"] == "Forbidden"
    assert body["message"] == 'pods "web" is forbidden: no PriorityClass with name gold was found'
    assert (await client.get(PODS + "/web")).status == 404


async def test_a_priority_that_disagrees_with_the_class_is_forbidden(client: Any) -> None:
    status, body = await create(client, pod(priority=7))
    assert status == 403
    assert body["message"] == (
        'pods "web" is forbidden: the integer value of priority (7) must not be provided in pod spec; '
        "priority admission controller computed 0 from the given PriorityClass name")


async def test_priority_keeps_its_value_on_update(client: Any) -> None:
    await create(client, pod(priorityClassName="system-node-critical"))
    stored = await (await client.get(PODS + "/web")).json()
    del stored["spec"]["priority"], stored["spec"]["preemptionPolicy"]
    stored["metadata"]["labels"] = {"app": "other"}
    response = await client.put(PODS + "/web", json=stored)
    assert response.status == 200
    updated = await response.json()
    assert (updated["spec"]["priority"], updated["spec"]["preemptionPolicy"]) == (
        2000001000, "PreemptLowerPriority")


async def test_a_namespace_labelled_terminating_still_takes_pods(client: Any) -> None:
    """Decisions are taken on the namespace's status, not on text found anywhere in it."""
    await create(client, {"metadata": {"name": "team-a", "labels": {"phase": "Terminating"},
                                       "annotations": {"note": '"phase":"Terminating"'}}},
                 "/api/v1/namespaces")
    status, _created = await create(client, pod(), "/api/v1/namespaces/team-a/pods")
    assert status == 201


async def test_a_terminating_namespace_refuses_new_pods(client: Any) -> None:
    await create(client, {"metadata": {"name": "team-a", "finalizers": ["example.com/hold"]}},
                 "/api/v1/namespaces")
    assert (await client.delete("/api/v1/namespaces/team-a")).status == 200
    status, body = await create(client, pod(), "/api/v1/namespaces/team-a/pods")
    assert (status, body["reason"]) == (403, "Forbidden")
    assert body["message"] == ('pods "web" is forbidden: unable to create new content in namespace team-a '
                               "because it is being terminated")


async def test_a_pod_in_a_missing_namespace_is_not_found(client: Any) -> None:
    status, body = await create(client, pod(), "/api/v1/namespaces/nowhere/pods")
    assert (status, body["message"]) == (404, 'namespaces "nowhere" not found')


@pytest.mark.parametrize("name", ["default", "kube-system", "kube-public"])
async def test_the_namespaces_a_cluster_needs_may_not_be_deleted(client: Any, name: str) -> None:
    response = await client.delete(f"/api/v1/namespaces/{name}")
    body = await response.json()
    assert (response.status, body["reason"]) == (403, "Forbidden")
    assert body["message"] == f'namespaces "{name}" is forbidden: this namespace may not be deleted'
    await asyncio.sleep(0.01)
    assert (await (await client.get(f"/api/v1/namespaces/{name}")).json())["status"]["phase"] == "Active"


async def test_a_new_node_is_tainted_not_ready_until_something_removes_the_taint(client: Any) -> None:
    own = {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}
    status, created = await create(client, node(status=kubelet_status(), taints=[own]), NODES)
    assert status == 201
    assert created["spec"]["taints"] == [own, NOT_READY]
    assert all(entry["fieldsV1"]["f:spec"] == {"f:taints": {}} for entry in created["metadata"]["managedFields"])
    # the plugin only acts on create: the node lifecycle controller's removal sticks
    response = await client.patch(NODES + "/node-1", json={"spec": {"taints": [own]}},
                                  headers={"Content-Type": "application/merge-patch+json"})
    assert (await response.json())["spec"]["taints"] == [own]
    status_write = await client.put(NODES + "/node-1/status", json=node(status=kubelet_status()))
    assert (await status_write.json())["spec"]["taints"] == [own]


@pytest.mark.parametrize("taints", [
    [NOT_READY],
    [{"key": "node.kubernetes.io/not-ready", "value": "x", "effect": "NoSchedule"}],  # key and effect match
])
async def test_a_node_that_has_the_not_ready_taint_keeps_its_own(client: Any, taints: list[Any]) -> None:
    status, created = await create(client, node(taints=taints), NODES)
    assert (status, created["spec"]["taints"]) == (201, taints)


async def test_a_not_ready_taint_with_another_effect_does_not_count(client: Any) -> None:
    no_execute = {"key": "node.kubernetes.io/not-ready", "effect": "NoExecute"}
    status, created = await create(client, node(taints=[no_execute]), NODES)
    assert (status, created["spec"]["taints"]) == (201, [no_execute, NOT_READY])


async def test_disabled_plugins_do_not_run(aiohttp_client: Any) -> None:
    config = ServerConfig(disabled_admission_plugins=frozenset(
        ("DefaultTolerationSeconds", "Priority", "TaintNodesByCondition")))
    client = await aiohttp_client(create_app(config))
    status, created = await create(client, pod(priorityClassName="gold"))
    assert status == 201
    assert "tolerations" not in created["spec"] and "priority" not in created["spec"]
    status, registered = await create(client, node(), NODES)
    assert (status, registered["spec"]) == (201, {})  # no taint; the spec value struct is always written


def test_an_unknown_plugin_name_is_refused() -> None:
    with pytest.raises(ValueError, match='disable-admission-plugins plugin "NoSuchPlugin" is unknown'):
        create_app(ServerConfig(disabled_admission_plugins=frozenset(("NoSuchPlugin",))))
