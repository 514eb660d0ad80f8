"""What the controllers keep in every namespace: the `default` ServiceAccount (serviceaccounts-controller)
and the `kube-root-ca.crt` ConfigMap (root-ca-cert-publisher), there as soon as the namespace is."""

from __future__ import annotations

import asyncio
import ssl
from typing import Any

import pytest

from tests.builders import pod

NAMESPACES = "/api/v1/namespaces"
DESCRIPTION = (
    "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as "
    "the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of "
    "Kubernetes clusters."
)
MERGE = {"Content-Type": "application/merge-patch+json"}


async def get(client: Any, path: str) -> dict[str, Any]:
    response = await client.get(path)
    assert response.status == 200, await response.text()
    body: dict[str, Any] = await response.json()
    return body


@pytest.mark.parametrize("namespace", ["default", "kube-system", "kube-public", "kube-node-lease"])
async def test_the_initial_namespaces_have_them(client: Any, namespace: str) -> None:
    await get(client, f"{NAMESPACES}/{namespace}/serviceaccounts/default")
    await get(client, f"{NAMESPACES}/{namespace}/configmaps/kube-root-ca.crt")


async def test_a_new_namespace_has_them_as_soon_as_it_is_created(client: Any) -> None:
    created = await (await client.post(NAMESPACES, json={"metadata": {"name": "team-a"}})).json()
    account = await get(client, f"{NAMESPACES}/team-a/serviceaccounts/default")
    assert set(account) == {"kind", "apiVersion", "metadata"}  # nothing but its name, as upstream makes it
    meta = account["metadata"]
    assert (meta["name"], meta["namespace"]) == ("default", "team-a")
    assert "managedFields" not in meta  # it sets no field a manager could own
    config_map = await get(client, f"{NAMESPACES}/team-a/configmaps/kube-root-ca.crt")
    assert [(entry["manager"], entry["operation"]) for entry in config_map["metadata"]["managedFields"]] == [
        ("kube-controller-manager", "Update")]
    assert config_map["metadata"]["annotations"] == {"kubernetes.io/description": DESCRIPTION}
    assert list(config_map["data"]) == ["ca.crt"]
    ssl.create_default_context(cadata=config_map["data"]["ca.crt"])  # a CA certificate clients can load
    # made in reaction to the namespace: after it in resourceVersion order, so watchers see the namespace first
    versions = [int(obj["metadata"]["resourceVersion"]) for obj in (created, account, config_map)]
    assert versions == sorted(versions)


async def test_a_pod_can_be_created_in_a_namespace_right_after_the_namespace(client: Any) -> None:
    await client.post(NAMESPACES, json={"metadata": {"name": "team-b"}})
    response = await client.post(f"{NAMESPACES}/team-b/pods", json=pod())
    assert response.status == 201
    assert (await response.json())["spec"]["serviceAccountName"] == "default"


async def test_a_deleted_default_service_account_is_made_again(client: Any) -> None:
    path = f"{NAMESPACES}/default/serviceaccounts/default"
    before = await get(client, path)
    assert (await client.delete(path)).status == 200
    after = await get(client, path)
    assert after["metadata"]["uid"] != before["metadata"]["uid"]


async def test_the_root_ca_config_map_is_made_again_and_put_back(client: Any) -> None:
    path = f"{NAMESPACES}/default/configmaps/kube-root-ca.crt"
    before = await get(client, path)
    assert (await client.delete(path)).status == 200
    remade = await get(client, path)
    assert remade["metadata"]["uid"] != before["metadata"]["uid"]
    assert remade["data"] == before["data"]
    changed = await client.patch(path, json={"data": {"ca.crt": "mine"}, "metadata": {"annotations": None}},
                                 headers=MERGE)
    assert changed.status == 200
    assert (await changed.json())["data"] == {"ca.crt": "mine"}  # the write itself succeeds...
    restored = await get(client, path)  # ...and the publisher puts the bundle and its description back
    assert restored["data"] == before["data"]
    assert restored["metadata"]["annotations"] == {"kubernetes.io/description": DESCRIPTION}


async def test_nothing_is_made_again_in_a_namespace_being_deleted(client: Any) -> None:
    await client.post(NAMESPACES, json={"metadata": {"name": "held", "finalizers": ["example.com/hold"]}})
    await client.delete(f"{NAMESPACES}/held")
    for _ in range(100):  # the namespace controller empties it on the event loop
        accounts = await get(client, f"{NAMESPACES}/held/serviceaccounts")
        config_maps = await get(client, f"{NAMESPACES}/held/configmaps")
        if not accounts["items"] and not config_maps["items"]:
            break
        await asyncio.sleep(0.01)
    assert accounts["items"] == [] and config_maps["items"] == []
    assert (await get(client, f"{NAMESPACES}/held"))["status"]["phase"] == "Terminating"


async def test_a_reset_server_has_them_again(client: Any) -> None:
    reset = await client.post("/fakeapi/v1/reset", headers={"X-Fakeapi-Control": "1"})
    assert reset.status == 200  # the store starts again from nothing
    for namespace in ("default", "kube-system", "kube-public", "kube-node-lease"):
        await get(client, f"{NAMESPACES}/{namespace}/serviceaccounts/default")
        await get(client, f"{NAMESPACES}/{namespace}/configmaps/kube-root-ca.crt")
