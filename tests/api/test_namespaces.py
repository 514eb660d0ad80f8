"""Namespaces: the initial four, create/get/list/delete, and what they mean for pods."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.builders import pod

NAMESPACES = "/api/v1/namespaces"


async def wait_gone(client: Any, path: str) -> None:
    for _ in range(100):
        if (await client.get(path)).status == 404:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"{path} still exists")


async def test_initial_namespaces_exist_and_are_active(client: Any) -> None:
    listed = await (await client.get(NAMESPACES)).json()
    assert listed["kind"] == "NamespaceList"
    assert [n["metadata"]["name"] for n in listed["items"]] == [
        "default", "kube-node-lease", "kube-public", "kube-system"]
    default = await (await client.get(NAMESPACES + "/default")).json()
    assert default["status"] == {"phase": "Active"}
    assert default["spec"] == {"finalizers": ["kubernetes"]}
    assert default["metadata"]["labels"] == {"kubernetes.io/metadata.name": "default"}


async def test_create_namespace(client: Any) -> None:
    response = await client.post(NAMESPACES, json={"apiVersion": "v1", "kind": "Namespace",
                                                   "metadata": {"name": "team-a"}})
    assert response.status == 201
    created = await response.json()
    assert created["status"]["phase"] == "Active"
    assert "namespace" not in created["metadata"]


async def test_invalid_namespace_name_is_422(client: Any) -> None:
    response = await client.post(NAMESPACES, json={"metadata": {"name": "Team_A"}})
    assert response.status == 422
    status = await response.json()
    assert status["details"]["kind"] == "Namespace"
    assert status["details"]["causes"][0]["field"] == "metadata.name"


async def test_delete_namespace_terminates_deletes_pods_then_removes_it(client: Any) -> None:
    await client.post(NAMESPACES, json={"metadata": {"name": "team-a"}})
    await client.post(NAMESPACES + "/team-a/pods", json=pod("a", nodeName="node-1"))
    response = await client.delete(NAMESPACES + "/team-a")
    assert response.status == 200
    terminating = await response.json()
    assert terminating["status"]["phase"] == "Terminating"
    assert terminating["metadata"]["deletionTimestamp"]
    await wait_gone(client, NAMESPACES + "/team-a")
    pods = await (await client.get(NAMESPACES + "/team-a/pods")).json()
    assert pods["items"] == []


async def test_pod_in_terminating_namespace_is_403(client: Any) -> None:
    await client.post(NAMESPACES, json={"metadata": {"name": "held", "finalizers": ["example.com/hold"]}})
    await client.delete(NAMESPACES + "/held")
    response = await client.post(NAMESPACES + "/held/pods", json=pod("a"))
    assert response.status == 403
    assert await response.json() == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": 'pods "a" is forbidden: unable to create new content in namespace held '
                   "because it is being terminated",
        "reason": "Forbidden", "code": 403,
        "details": {"name": "a", "kind": "pods", "causes": [{
            "reason": "NamespaceTerminating", "message": "namespace held is being terminated",
            "field": "metadata.namespace"}]}}


async def test_get_missing_namespace_is_404(client: Any) -> None:
    response = await client.get(NAMESPACES + "/nosuch")
    assert response.status == 404
    assert (await response.json())["message"] == 'namespaces "nosuch" not found'
