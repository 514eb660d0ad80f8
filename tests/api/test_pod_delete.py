"""DELETE on pods: grace periods, finalizers, preconditions, deletecollection."""

from __future__ import annotations

from typing import Any

from tests.builders import pod

PODS = "/api/v1/namespaces/default/pods"


async def created(client: Any, body: dict[str, Any] | None = None) -> dict[str, Any]:
    response = await client.post(PODS, json=body or pod())
    assert response.status == 201, await response.text()
    result: dict[str, Any] = await response.json()
    return result


async def test_unscheduled_pod_goes_at_once_and_the_pod_is_returned(client: Any) -> None:
    await created(client)
    response = await client.delete(PODS + "/web", json={"propagationPolicy": "Background"})
    assert response.status == 200
    deleted = await response.json()
    assert deleted["kind"] == "Pod" and deleted["metadata"]["name"] == "web"
    assert deleted["metadata"]["deletionGracePeriodSeconds"] == 0
    assert (await client.get(PODS + "/web")).status == 404


async def test_scheduled_pod_gets_deletion_timestamp_and_stays(client: Any) -> None:
    await created(client, pod(nodeName="node-1"))
    response = await client.delete(PODS + "/web")
    deleted = await response.json()
    assert response.status == 200
    assert deleted["metadata"]["deletionGracePeriodSeconds"] == 30
    assert deleted["metadata"]["generation"] == 2
    assert "deletionTimestamp" in deleted["metadata"]
    stored = await (await client.get(PODS + "/web")).json()
    assert stored["metadata"]["deletionTimestamp"] == deleted["metadata"]["deletionTimestamp"]
    again = await client.delete(PODS + "/web")
    assert (await again.json())["metadata"]["resourceVersion"] == stored["metadata"]["resourceVersion"]
    forced = await client.delete(PODS + "/web", params={"gracePeriodSeconds": "0"})
    assert forced.status == 200
    assert (await client.get(PODS + "/web")).status == 404


async def test_finished_pod_goes_at_once(client: Any) -> None:
    await created(client, pod(nodeName="node-1"))
    await client.patch(PODS + "/web/status", json={"status": {"phase": "Succeeded"}},
                       headers={"Content-Type": "application/merge-patch+json"})
    await client.delete(PODS + "/web")
    assert (await client.get(PODS + "/web")).status == 404


async def test_finalizers_keep_the_pod_until_removed(client: Any) -> None:
    body = pod()
    body["metadata"]["finalizers"] = ["example.com/hold"]
    await created(client, body)
    deleted = await (await client.delete(PODS + "/web")).json()
    assert deleted["metadata"]["deletionTimestamp"]
    stored = await (await client.get(PODS + "/web")).json()
    stored["metadata"]["finalizers"] = []
    response = await client.put(PODS + "/web", json=stored)
    assert response.status == 200
    assert (await client.get(PODS + "/web")).status == 404


async def test_no_new_finalizers_while_deleting(client: Any) -> None:
    body = pod()
    body["metadata"]["finalizers"] = ["example.com/hold"]
    await created(client, body)
    await client.delete(PODS + "/web")
    stored = await (await client.get(PODS + "/web")).json()
    stored["metadata"]["finalizers"].append("example.com/more")
    response = await client.put(PODS + "/web", json=stored)
    assert response.status == 422
    assert "no new finalizers can be added if the object is being deleted" in (await response.json())["message"]


async def test_resource_version_precondition_mismatch_is_409(client: Any) -> None:
    current = await created(client)
    response = await client.delete(PODS + "/web", json={"preconditions": {"resourceVersion": "1"}})
    assert response.status == 409
    assert (await response.json())["message"] == (
        'Operation cannot be fulfilled on Pod "web": the ResourceVersion in the precondition (1) does not '
        f'match the ResourceVersion in record ({current["metadata"]["resourceVersion"]}). '
        "The object might have been modified")
    assert (await client.get(PODS + "/web")).status == 200


async def test_uid_precondition_mismatch_is_409(client: Any) -> None:
    await created(client)
    response = await client.delete(PODS + "/web", json={"preconditions": {"uid": "nope"}})
    assert response.status == 409
    assert "The object might have been deleted and then recreated" in (await response.json())["message"]


async def test_delete_missing_pod_is_404(client: Any) -> None:
    response = await client.delete(PODS + "/nope")
    assert response.status == 404
    assert (await response.json())["message"] == 'pods "nope" not found'


async def test_dry_run_delete_in_body_keeps_the_pod(client: Any) -> None:
    await created(client)
    response = await client.delete(PODS + "/web", json={"dryRun": ["All"]})
    assert response.status == 200
    assert (await client.get(PODS + "/web")).status == 200


async def test_invalid_propagation_policy_is_422(client: Any) -> None:
    await created(client)
    response = await client.delete(PODS + "/web", json={"propagationPolicy": "Sideways"})
    assert response.status == 422
    assert (await response.json())["details"]["kind"] == "DeleteOptions"


async def test_deletecollection_deletes_every_pod_in_the_namespace(client: Any) -> None:
    await created(client, pod("a"))
    await created(client, pod("b"))
    await client.post("/api/v1/namespaces/kube-system/pods", json=pod("c"))
    response = await client.delete(PODS)
    assert response.status == 200
    assert (await (await client.get(PODS)).json())["items"] == []
    assert len((await (await client.get("/api/v1/namespaces/kube-system/pods")).json())["items"]) == 1
