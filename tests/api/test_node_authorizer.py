"""The Node authorizer (`--authorization-mode Node,RBAC`): a kubelet reads what the pods bound to its node
use, writes its own Node and Lease and its pods' status, and nothing of other nodes'."""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.app import create_app
from fakeapi.config import Authentication, ServerConfig
from fakeapi.machinery.users import UserInfo
from tests.builders import pod

TOKENS = {"admin": UserInfo("admin", groups=("system:masters",)),
          "node-1": UserInfo("system:node:node-1", groups=("system:nodes",))}
ADMIN, NODE = {"Authorization": "Bearer admin"}, {"Authorization": "Bearer node-1"}
LEASES = "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases"


@pytest.fixture
async def cluster(aiohttp_client: Any) -> Any:
    client = await aiohttp_client(create_app(ServerConfig(authentication=Authentication(tokens=TOKENS),
                                                          authorization_modes=("Node", "RBAC"))))
    for name in ("used", "unused"):
        secret = {"metadata": {"name": name}, "data": {}}
        assert (await client.post("/api/v1/namespaces/default/secrets", json=secret, headers=ADMIN)).status == 201
    for name in ("node-1", "node-2"):
        assert (await client.post("/api/v1/nodes", json={"metadata": {"name": name}}, headers=ADMIN)).status == 201
    body = pod("web", container="main", nodeName="node-1",
               volumes=[{"name": "s", "secret": {"secretName": "used"}}])
    assert (await client.post("/api/v1/namespaces/default/pods", json=body, headers=ADMIN)).status == 201
    return client


async def message(response: Any) -> str:
    assert response.status == 403, await response.text()
    text: str = (await response.json())["message"]
    return text


async def test_a_node_reads_the_secrets_its_pods_use_only(cluster: Any) -> None:
    assert (await cluster.get("/api/v1/namespaces/default/secrets/used", headers=NODE)).status == 200
    assert await message(await cluster.get("/api/v1/namespaces/default/secrets/unused", headers=NODE)) == (
        'secrets "unused" is forbidden: User "system:node:node-1" cannot get resource "secrets" in API group "" in '
        "the namespace \"default\": no relationship found between node 'node-1' and this object")
    assert (await message(await cluster.get("/api/v1/namespaces/default/secrets", headers=NODE))).endswith(
        ": can only get individual resources of this type")


async def test_a_node_writes_its_own_node_and_lease(cluster: Any) -> None:
    patch = {"headers": {**NODE, "Content-Type": "application/merge-patch+json"}}
    assert (await cluster.patch("/api/v1/nodes/node-1", json={"metadata": {"labels": {"a": "b"}}},
                                **patch)).status == 200
    assert "cannot patch resource \"nodes\"" in await message(
        await cluster.patch("/api/v1/nodes/node-2", json={"metadata": {"labels": {"a": "b"}}}, **patch))
    lease = {"metadata": {"name": "node-1"}, "spec": {"holderIdentity": "node-1"}}
    assert (await cluster.post(LEASES, json=lease, headers=NODE)).status == 201
    assert (await message(await cluster.get(f"{LEASES}/node-2", headers=NODE))).endswith(
        ": can only access node lease with the same name as the requesting node")


async def test_a_node_reads_pods_and_writes_the_status_of_its_own(cluster: Any) -> None:
    assert (await cluster.get("/api/v1/pods", headers=NODE)).status == 200
    current = await (await cluster.get("/api/v1/namespaces/default/pods/web", headers=NODE)).json()
    response = await cluster.put("/api/v1/namespaces/default/pods/web/status", json=current, headers=NODE)
    assert response.status == 200, await response.text()
    await message(await cluster.delete("/api/v1/namespaces/default/secrets/used", headers=NODE))
