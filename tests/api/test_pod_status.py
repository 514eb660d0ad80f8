"""pods/status: spec ignored, labels kept, and the qosClass rule of kubernetes PR #127744."""

from __future__ import annotations

from typing import Any

from tests.builders import GUARANTEED, pod, status_body

PODS = "/api/v1/namespaces/default/pods"


async def guaranteed_pod(client: Any) -> dict[str, Any]:
    response = await client.post(PODS, json=pod(limits=GUARANTEED))
    assert response.status == 201
    result: dict[str, Any] = await response.json()
    return result


async def put_status(client: Any, body: dict[str, Any]) -> Any:
    return await client.put(PODS + "/web/status", json=body)


async def test_get_status_returns_the_whole_pod(client: Any) -> None:
    stored = await guaranteed_pod(client)
    assert await (await client.get(PODS + "/web/status")).json() == stored


async def test_empty_qos_class_keeps_the_stored_class(client: Any) -> None:
    await guaranteed_pod(client)
    response = await put_status(client, status_body("web", phase="Running"))
    assert response.status == 200
    assert (await response.json())["status"] == {"phase": "Running", "qosClass": "Guaranteed"}


async def test_same_qos_class_is_accepted(client: Any) -> None:
    await guaranteed_pod(client)
    response = await put_status(client, status_body("web", phase="Running", qosClass="Guaranteed"))
    assert response.status == 200


async def test_changing_qos_class_is_422_field_is_immutable(client: Any) -> None:
    before = await guaranteed_pod(client)
    response = await put_status(client, status_body("web", phase="Running", qosClass="BestEffort"))
    assert response.status == 422
    assert await response.json() == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": 'Pod "web" is invalid: status.qosClass: Invalid value: "BestEffort": field is immutable',
        "reason": "Invalid",
        "details": {"name": "web", "kind": "Pod", "causes": [
            {"reason": "FieldValueInvalid", "message": 'Invalid value: "BestEffort": field is immutable',
             "field": "status.qosClass"}]},
        "code": 422}
    assert await (await client.get(PODS + "/web")).json() == before


async def test_patching_qos_class_is_422_too(client: Any) -> None:
    await guaranteed_pod(client)
    response = await client.patch(PODS + "/web/status", json={"status": {"qosClass": "Burstable"}},
                                  headers={"Content-Type": "application/merge-patch+json"})
    assert response.status == 422
    assert (await response.json())["message"] == (
        'Pod "web" is invalid: status.qosClass: Invalid value: "Burstable": field is immutable')


async def test_status_write_ignores_spec_owner_references_and_deletion_timestamp(client: Any) -> None:
    stored = await guaranteed_pod(client)
    body = dict(stored)
    body["spec"] = {**stored["spec"], "nodeName": "node-9"}
    body["metadata"] = {**stored["metadata"], "deletionTimestamp": "2030-01-01T00:00:00Z",
                        "ownerReferences": [{"apiVersion": "v1", "kind": "Node", "name": "n", "uid": "u"}]}
    body["status"] = {"phase": "Running"}
    updated = await (await put_status(client, body)).json()
    assert updated["spec"] == stored["spec"]
    assert "deletionTimestamp" not in updated["metadata"]
    assert "ownerReferences" not in updated["metadata"]
    assert updated["status"]["phase"] == "Running"


async def test_status_write_keeps_label_and_annotation_edits(client: Any) -> None:
    stored = await guaranteed_pod(client)
    body = dict(stored)
    body["metadata"] = {**stored["metadata"], "labels": {"app": "web", "seen": "yes"}, "annotations": {"a": "b"}}
    updated = await (await put_status(client, body)).json()
    assert updated["metadata"]["labels"] == {"app": "web", "seen": "yes"}
    assert updated["metadata"]["annotations"] == {"a": "b"}


async def test_status_write_never_bumps_generation(client: Any) -> None:
    await guaranteed_pod(client)
    updated = await (await put_status(client, status_body("web", phase="Running"))).json()
    assert updated["metadata"]["generation"] == 1


async def test_observed_generation_is_carried_forward(client: Any) -> None:
    await guaranteed_pod(client)
    await put_status(client, status_body("web", phase="Running", observedGeneration=1,
                                         conditions=[{"type": "Ready", "status": "True", "observedGeneration": 1}]))
    updated = await (await put_status(client, status_body(
        "web", phase="Running", conditions=[{"type": "Ready", "status": "False"}]))).json()
    assert updated["status"]["observedGeneration"] == 1
    assert updated["status"]["conditions"][0]["observedGeneration"] == 1


async def test_terminated_container_cannot_restart_when_policy_is_never(client: Any) -> None:
    await client.post(PODS, json=pod(restartPolicy="Never"))
    terminated = {"name": "web", "ready": False, "restartCount": 0, "image": "nginx:1.27", "imageID": "",
                  "state": {"terminated": {"exitCode": 0}}}
    running = dict(terminated, state={"running": {}})
    response = await put_status(client, status_body("web", phase="Running", containerStatuses=[terminated]))
    assert response.status == 200, await response.text()
    response = await put_status(client, status_body("web", phase="Running", containerStatuses=[running]))
    assert response.status == 422
    assert (await response.json())["details"]["causes"] == [{
        "reason": "FieldValueForbidden", "field": "status.containerStatuses[0].state",
        "message": "Forbidden: may not be transitioned to non-terminated state"}]


async def test_stale_status_write_is_409(client: Any) -> None:
    await guaranteed_pod(client)
    body = status_body("web", phase="Running")
    body["metadata"]["resourceVersion"] = "1"
    response = await put_status(client, body)
    assert response.status == 409


async def test_a_resent_value_of_the_wrong_json_type_is_400_even_when_python_finds_it_equal(client: Any) -> None:
    # `true` == 1 in Python; upstream's strict decoder rejects a bool where an int32 goes
    await client.post(PODS, json=pod())
    running = {"name": "web", "ready": True, "restartCount": 1, "image": "nginx:1.27", "imageID": "",
               "state": {"running": {}}}
    response = await put_status(client, status_body("web", phase="Running", containerStatuses=[running]))
    assert response.status == 200, await response.text()
    stored = await response.json()
    body = await response.json()
    body["status"]["containerStatuses"][0]["restartCount"] = True
    response = await put_status(client, body)
    assert response.status == 400
    assert (await response.json())["message"] == (
        'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal bool into Go struct field '
        "ContainerStatus.status.containerStatuses.restartCount of type int32")
    assert await (await client.get(PODS + "/web")).json() == stored  # the store is untouched


async def test_a_merge_patch_to_a_value_of_the_wrong_json_type_is_400(client: Any) -> None:
    await client.post(PODS, json=pod())
    response = await client.patch(PODS + "/web/status", json={"status": {"observedGeneration": 1}},
                                  headers={"Content-Type": "application/merge-patch+json"})
    assert response.status == 200, await response.text()
    stored = await response.json()
    response = await client.patch(PODS + "/web/status", json={"status": {"observedGeneration": True}},
                                  headers={"Content-Type": "application/merge-patch+json"})
    assert response.status == 400
    assert (await response.json())["message"] == (
        'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal bool into Go struct field '
        "PodStatus.status.observedGeneration of type int64")
    assert await (await client.get(PODS + "/web")).json() == stored
