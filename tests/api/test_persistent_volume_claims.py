"""PersistentVolumeClaims over HTTP, as upstream v1.32's registry answers: defaults, validation on create and
update, the status subresource, Table columns."""

from __future__ import annotations

from typing import Any

CLAIMS = "/api/v1/namespaces/default/persistentvolumeclaims"
MERGE = {"Content-Type": "application/merge-patch+json"}
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"


def claim(name: str = "data", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name},
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}, **spec}}


def causes(body: dict[str, Any]) -> list[tuple[str, str]]:
    return [(cause["field"], cause["message"]) for cause in body["details"]["causes"]]


async def test_a_claim_is_created_pending_with_volume_mode_filesystem(client: Any) -> None:
    response = await client.post(CLAIMS, json=claim(resources={"requests": {"storage": "1.5Gi"}}))
    assert response.status == 201, await response.text()
    created = await response.json()
    assert created["spec"] == {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1536Mi"}},
                               "volumeMode": "Filesystem"}
    assert created["status"] == {"phase": "Pending"}
    assert "generation" not in created["metadata"]


async def test_access_modes_and_a_storage_request_are_required(client: Any) -> None:
    response = await client.post(CLAIMS, json={"metadata": {"name": "data"}, "spec": {}})
    assert response.status == 422
    body = await response.json()
    assert body["message"] == ('PersistentVolumeClaim "data" is invalid: [spec.accessModes: Required value: at least '
                               '1 access mode is required, spec.resources[storage]: Required value]')
    assert (await client.get(f"{CLAIMS}/data")).status == 404


async def test_unknown_modes_and_a_zero_request_get_upstreams_messages(client: Any) -> None:
    response = await client.post(CLAIMS, json=claim(accessModes=["ReadWriteOncePod", "ReadWriteMany", "Sometimes"],
                                                    resources={"requests": {"storage": "0"}}, volumeMode="Raw"))
    assert causes(await response.json()) == [
        ("spec.accessModes", 'Unsupported value: "Sometimes": supported values: "ReadOnlyMany", "ReadWriteMany", '
                             '"ReadWriteOnce", "ReadWriteOncePod"'),
        ("spec.accessModes", "Forbidden: may not use ReadWriteOncePod with other access modes"),
        ("spec.resources[storage]", 'Invalid value: "0": must be greater than zero'),
        ("spec.volumeMode", 'Unsupported value: "Raw": supported values: "Block", "Filesystem"')]


async def test_the_spec_of_a_claim_is_immutable(client: Any) -> None:
    assert (await client.post(CLAIMS, json=claim())).status == 201
    response = await client.patch(f"{CLAIMS}/data", json={"spec": {"accessModes": ["ReadWriteMany"]}},
                                  headers=MERGE)
    assert response.status == 422
    [(field, message)] = causes(await response.json())
    assert field == "spec" and message.startswith(
        "Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for "
        "bound claims\n")
    response = await client.patch(f"{CLAIMS}/data", json={"spec": {"volumeMode": "Block"}}, headers=MERGE)
    assert ("volumeMode", 'Invalid value: "Block": field is immutable') in causes(await response.json())
    labelled = await client.patch(f"{CLAIMS}/data", json={"metadata": {"labels": {"tier": "db"}}}, headers=MERGE)
    assert labelled.status == 200


async def test_a_bound_claim_may_grow_but_not_below_its_capacity(client: Any) -> None:
    assert (await client.post(CLAIMS, json=claim(resources={"requests": {"storage": "2Gi"}}))).status == 201
    bound = {"phase": "Bound", "accessModes": ["ReadWriteOnce"], "capacity": {"storage": "2Gi"}}
    response = await client.patch(f"{CLAIMS}/data/status", json={"status": bound}, headers=MERGE)
    assert response.status == 200, await response.text()
    grown = await client.patch(f"{CLAIMS}/data", json={"spec": {"resources": {"requests": {"storage": "5Gi"}}}},
                               headers=MERGE)
    assert grown.status == 200, await grown.text()
    shrunk = await client.patch(f"{CLAIMS}/data", json={"spec": {"resources": {"requests": {"storage": "1Gi"}}}},
                                headers=MERGE)
    assert causes(await shrunk.json()) == [
        ("spec.resources.requests.storage", "Forbidden: field can not be less than status.capacity")]


async def test_the_status_subresource_keeps_the_spec_and_the_main_resource_the_status(client: Any) -> None:
    assert (await client.post(CLAIMS, json=claim())).status == 201
    response = await client.patch(f"{CLAIMS}/data/status", json={"status": {"phase": "Lost"},
                                                                 "spec": {"accessModes": ["ReadWriteMany"]}},
                                  headers=MERGE)
    assert (await response.json())["spec"]["accessModes"] == ["ReadWriteOnce"]
    response = await client.patch(f"{CLAIMS}/data", json={"status": {"phase": "Bound"}}, headers=MERGE)
    assert (await response.json())["status"] == {"phase": "Lost"}


async def test_the_table_has_upstreams_columns(client: Any) -> None:
    assert (await client.post(CLAIMS, json=claim(storageClassName="standard"))).status == 201
    response = await client.get(CLAIMS, headers={"Accept": TABLE})
    table = await response.json()
    assert [(c["name"], c["priority"]) for c in table["columnDefinitions"]] == [
        ("Name", 0), ("Status", 0), ("Volume", 0), ("Capacity", 0), ("Access Modes", 0), ("StorageClass", 0),
        ("VolumeAttributesClass", 0), ("Age", 0), ("VolumeMode", 1)]
    assert table["rows"][0]["cells"][:7] == ["data", "Pending", "", "", "", "standard", "<unset>"]
    assert table["rows"][0]["cells"][8] == "Filesystem"
