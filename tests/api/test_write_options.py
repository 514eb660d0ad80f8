"""dryRun=All and fieldValidation on every write."""

from __future__ import annotations

from typing import Any

from tests.builders import pod

PODS = "/api/v1/namespaces/default/pods"


async def rv(client: Any) -> str:
    result: str = (await (await client.get(PODS)).json())["metadata"]["resourceVersion"]
    return result


async def test_dry_run_create_stores_nothing_and_uses_no_resource_version(client: Any) -> None:
    before = await rv(client)
    response = await client.post(PODS, json=pod(), params={"dryRun": "All"})
    assert response.status == 201
    answered = await response.json()
    assert answered["status"]["qosClass"] == "BestEffort"
    assert "resourceVersion" not in answered["metadata"]
    assert (await client.get(PODS + "/web")).status == 404
    assert await rv(client) == before


async def test_dry_run_create_still_validates(client: Any) -> None:
    body = pod()
    body["spec"]["containers"][0]["image"] = ""
    response = await client.post(PODS, json=body, params={"dryRun": "All"})
    assert response.status == 422


async def test_dry_run_update_and_patch_store_nothing(client: Any) -> None:
    current = await (await client.post(PODS, json=pod())).json()
    current["metadata"]["labels"]["x"] = "y"
    response = await client.put(PODS + "/web", json=current, params={"dryRun": "All"})
    assert response.status == 200 and (await response.json())["metadata"]["labels"]["x"] == "y"
    response = await client.patch(PODS + "/web/status", json={"status": {"phase": "Running"}},
                                  params={"dryRun": "All"}, headers={"Content-Type": "application/merge-patch+json"})
    assert (await response.json())["status"]["phase"] == "Running"
    stored = await (await client.get(PODS + "/web")).json()
    assert "x" not in stored["metadata"]["labels"] and stored["status"]["phase"] == "Pending"


async def test_bad_dry_run_value_is_400(client: Any) -> None:
    response = await client.post(PODS, json=pod(), params={"dryRun": "Some"})
    assert response.status == 400


async def test_strict_field_validation_rejects_unknown_fields(client: Any) -> None:
    body = pod()
    body["spec"]["containers"][0]["foo"] = 1
    response = await client.post(PODS, json=body, params={"fieldValidation": "Strict"})
    assert response.status == 400
    assert await response.json() == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": 'Pod in version "v1" cannot be handled as a Pod: strict decoding error: '
                   'unknown field "spec.containers[0].foo"',
        "reason": "BadRequest", "code": 400}
    assert (await client.get(PODS + "/web")).status == 404


async def test_warn_is_the_default_and_unknown_fields_are_not_stored(client: Any) -> None:
    body = pod()
    body["spec"]["containers"][0]["foo"] = 1
    response = await client.post(PODS, json=body)
    assert response.status == 201
    assert response.headers["Warning"] == '299 - "unknown field \\"spec.containers[0].foo\\""'
    assert "foo" not in (await response.json())["spec"]["containers"][0]


async def test_ignore_drops_unknown_fields_silently(client: Any) -> None:
    body = pod()
    body["spec"]["foo"] = 1
    response = await client.post(PODS, json=body, params={"fieldValidation": "Ignore"})
    assert response.status == 201
    assert "Warning" not in response.headers
    assert "foo" not in (await response.json())["spec"]


async def test_bad_field_validation_value_is_400(client: Any) -> None:
    response = await client.post(PODS, json=pod(), params={"fieldValidation": "Loud"})
    assert response.status == 400
