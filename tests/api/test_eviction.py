"""pods/eviction over HTTP: with no PodDisruptionBudgets, an eviction deletes the pod (its deleteOptions
apply) and answers a Status of Success, code 201, as upstream's EvictionREST does; kubectl drain's
protobuf body is read too."""

from __future__ import annotations

from typing import Any

from tests.unit.test_protobuf import envelope, integer, message, string

PODS = "/api/v1/namespaces/default/pods"
SUCCESS = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}


def eviction(name: str = "web", **delete_options: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"apiVersion": "policy/v1", "kind": "Eviction",
                            "metadata": {"name": name, "namespace": "default"}}
    if delete_options:
        body["deleteOptions"] = delete_options
    return body


async def test_an_eviction_deletes_the_pod_and_answers_success(client: Any, make_pod: Any) -> None:
    assert (await client.post(PODS, json=make_pod("web"))).status == 201
    response = await client.post(f"{PODS}/web/eviction", json=eviction(gracePeriodSeconds=0))
    assert response.status == 201
    assert await response.json() == SUCCESS
    assert (await client.get(f"{PODS}/web")).status == 404


async def test_an_eviction_with_a_grace_period_starts_a_graceful_delete(client: Any, make_pod: Any) -> None:
    assert (await client.post(PODS, json=make_pod("web", nodeName="node-1"))).status == 201
    response = await client.post(f"{PODS}/web/eviction", json=eviction())
    assert (response.status, await response.json()) == (201, SUCCESS)
    pod = await (await client.get(f"{PODS}/web")).json()
    assert pod["metadata"]["deletionGracePeriodSeconds"] == 30


async def test_a_dry_run_eviction_leaves_the_pod(client: Any, make_pod: Any) -> None:
    assert (await client.post(PODS, json=make_pod("web"))).status == 201
    response = await client.post(f"{PODS}/web/eviction", json=eviction(gracePeriodSeconds=0),
                                 params={"dryRun": "All"})
    assert response.status == 201
    assert (await client.get(f"{PODS}/web")).status == 200


async def test_kubectl_drains_protobuf_eviction_is_read(client: Any, make_pod: Any) -> None:
    assert (await client.post(PODS, json=make_pod("web"))).status == 201
    meta = string(1, "web") + string(3, "default")
    raw = message(1, meta) + message(2, integer(1, 0))  # deleteOptions.gracePeriodSeconds: 0
    response = await client.post(f"{PODS}/web/eviction", data=envelope(raw, "Eviction", "policy/v1"),
                                 headers={"Content-Type": "application/vnd.kubernetes.protobuf"})
    assert (response.status, await response.json()) == (201, SUCCESS)
    assert (await client.get(f"{PODS}/web")).status == 404


async def test_evicting_a_missing_pod_is_not_found(client: Any) -> None:
    response = await client.post(f"{PODS}/nope/eviction", json=eviction("nope"))
    assert response.status == 404
    assert (await response.json())["message"] == 'pods "nope" not found'


async def test_an_eviction_for_another_pod_is_a_bad_request(client: Any, make_pod: Any) -> None:
    assert (await client.post(PODS, json=make_pod("web"))).status == 201
    response = await client.post(f"{PODS}/web/eviction", json=eviction("other"))
    assert response.status == 400
    assert (await response.json())["message"] == "name in URL does not match name in Eviction object"
    assert (await client.get(f"{PODS}/web")).status == 200


async def test_discovery_lists_pods_eviction_with_its_group_version_for_kubectl_drain(client: Any) -> None:
    resources = (await (await client.get("/api/v1")).json())["resources"]
    assert next(entry for entry in resources if entry["name"] == "pods/eviction") == {
        "name": "pods/eviction", "singularName": "", "namespaced": True, "group": "policy", "version": "v1",
        "kind": "Eviction", "verbs": ["create"],
    }
