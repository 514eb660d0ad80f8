"""Leases over HTTP: the first kind in a named group (coordination.k8s.io/v1), its routes, errors, lists,
watches, apply and managedFields, and the lease strategy (create on PUT, conditional updates only)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from fakeapi.app import create_app
from fakeapi.config import ServerConfig
from fakeapi.http.keys import api_key
from tests.builders import lease

GROUP = "coordination.k8s.io"
LEASES = f"/apis/{GROUP}/v1/namespaces/default/leases"
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"


async def create(client: Any, body: dict[str, Any], path: str = LEASES) -> dict[str, Any]:
    response = await client.post(path, json=body)
    assert response.status == 201, await response.text()
    created: dict[str, Any] = await response.json()
    return created


async def status_of(response: Any, code: int) -> dict[str, Any]:
    assert response.status == code, await response.text()
    status: dict[str, Any] = await response.json()
    return status


def failure(code: int, reason: str, message: str, details: dict[str, Any]) -> dict[str, Any]:
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message,
            "reason": reason, "details": details, "code": code}


# ---- create, read, list, delete


async def test_a_lease_is_served_under_its_group_with_its_api_version(client: Any) -> None:
    created = await create(client, lease(holderIdentity="a", leaseDurationSeconds=15))
    assert (created["apiVersion"], created["kind"]) == (f"{GROUP}/v1", "Lease")
    assert created["metadata"]["namespace"] == "default" and "generation" not in created["metadata"]
    [entry] = created["metadata"]["managedFields"]
    assert (entry["apiVersion"], entry["operation"]) == (f"{GROUP}/v1", "Update")
    assert await (await client.get(LEASES + "/leader")).json() == created
    for path in (LEASES, f"/apis/{GROUP}/v1/leases"):
        listed = await (await client.get(path)).json()
        assert (listed["kind"], listed["apiVersion"]) == ("LeaseList", f"{GROUP}/v1")
        assert listed["items"] == [created]


async def test_times_are_micro_times(client: Any) -> None:
    created = await create(client, lease(acquireTime="2030-06-01T12:00:00Z", renewTime="2030-06-01T14:00:00.5+02:00"))
    assert created["spec"] == {"acquireTime": "2030-06-01T12:00:00.000000Z",
                               "renewTime": "2030-06-01T12:00:00.500000Z"}


@pytest.mark.parametrize("path", ["/api/v1/namespaces/default/leases", f"/apis/{GROUP}/v2/namespaces/default/leases",
                                  f"/apis/{GROUP}/v1beta1/leases", f"/apis/{GROUP}/v2/namespaces/default/leases/x",
                                  "/apis/apps/v1/namespaces/default/leases"])
async def test_a_lease_is_served_by_its_group_version_only(client: Any, path: str) -> None:
    response = await client.get(path)
    assert (await status_of(response, 404))["message"] == "the server could not find the requested resource"


async def test_not_found_already_exists_and_delete_name_the_group(client: Any) -> None:
    missing = await client.get(LEASES + "/leader")
    assert await status_of(missing, 404) == failure(
        404, "NotFound", f'leases.{GROUP} "leader" not found', {"name": "leader", "group": GROUP, "kind": "leases"})
    created = await create(client, lease())
    again = await client.post(LEASES, json=lease())
    assert await status_of(again, 409) == failure(
        409, "AlreadyExists", f'leases.{GROUP} "leader" already exists',
        {"name": "leader", "group": GROUP, "kind": "leases"})
    deleted = await client.delete(LEASES + "/leader")
    assert deleted.status == 200
    assert await deleted.json() == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
        "details": {"name": "leader", "group": GROUP, "kind": "leases", "uid": created["metadata"]["uid"]}}
    gone = await client.delete(LEASES + "/leader")
    assert (await status_of(gone, 404))["message"] == f'leases.{GROUP} "leader" not found'


async def test_a_stale_delete_precondition_names_the_kind_with_its_group(client: Any) -> None:
    await create(client, lease())
    response = await client.delete(LEASES + "/leader", json={"preconditions": {"resourceVersion": "1"}})
    status = await status_of(response, 409)
    assert status["message"].startswith(f'Operation cannot be fulfilled on Lease.{GROUP} "leader": the '
                                        "ResourceVersion in the precondition (1) does not match")
    assert status["details"] == {"name": "leader", "group": GROUP, "kind": "Lease"}


async def test_a_lease_needs_an_existing_namespace(client: Any) -> None:
    response = await client.post(f"/apis/{GROUP}/v1/namespaces/nosuch/leases", json=lease())
    assert (await status_of(response, 404))["message"] == 'namespaces "nosuch" not found'


# ---- the lease strategy


async def test_a_put_to_a_missing_lease_creates_it(client: Any) -> None:
    response = await client.put(LEASES + "/leader", json=lease(holderIdentity="a", resource_version="42"))
    created = await status_of(response, 201)
    assert created["spec"] == {"holderIdentity": "a"}
    assert created["metadata"]["uid"] and created["metadata"]["resourceVersion"] != "42"
    mismatch = await client.put(LEASES + "/other", json=lease("leader"))
    assert (await status_of(mismatch, 400))["message"] == (
        "the name of the object (leader) does not match the name on the URL (other)")


async def test_an_update_must_name_the_version_it_replaces(client: Any) -> None:
    await create(client, lease(holderIdentity="a"))
    response = await client.put(LEASES + "/leader", json=lease(holderIdentity="b"))
    assert await status_of(response, 422) == failure(
        422, "Invalid", f'Lease.{GROUP} "leader" is invalid: metadata.resourceVersion: Invalid value: 0: must be '
                        "specified for an update",
        {"name": "leader", "group": GROUP, "kind": "Lease", "causes": [
            {"reason": "FieldValueInvalid", "message": "Invalid value: 0: must be specified for an update",
             "field": "metadata.resourceVersion"}]})


async def test_a_stale_version_is_a_conflict_that_names_the_group(client: Any) -> None:
    created = await create(client, lease(holderIdentity="a"))
    version = created["metadata"]["resourceVersion"]
    first = await client.put(LEASES + "/leader", json=lease(holderIdentity="b", resource_version=version))
    assert first.status == 200
    second = await client.put(LEASES + "/leader", json=lease(holderIdentity="c", resource_version=version))
    assert await status_of(second, 409) == failure(
        409, "Conflict", f'Operation cannot be fulfilled on leases.{GROUP} "leader": the object has been modified; '
                         "please apply your changes to the latest version and try again",
        {"name": "leader", "group": GROUP, "kind": "leases"})
    assert (await (await client.get(LEASES + "/leader")).json())["spec"] == {"holderIdentity": "b"}


async def test_patches_need_no_version(client: Any) -> None:
    await create(client, lease(holderIdentity="a"))
    response = await client.patch(LEASES + "/leader", json={"spec": {"holderIdentity": "b"}},
                                  headers={"Content-Type": "application/merge-patch+json"})
    assert (await status_of(response, 200))["spec"] == {"holderIdentity": "b"}


async def test_coordinated_leader_election_fields_are_dropped_while_their_gate_is_off(client: Any) -> None:
    created = await create(client, lease(holderIdentity="a", strategy="OldestEmulationVersion", preferredHolder="b"))
    assert created["spec"] == {"holderIdentity": "a"}
    body = lease(holderIdentity="a", strategy="x/y", resource_version=created["metadata"]["resourceVersion"])
    updated = await client.put(LEASES + "/leader", json=body)
    assert (await status_of(updated, 200))["spec"] == {"holderIdentity": "a"}


@pytest.mark.parametrize(
    ("spec", "field", "message"),
    [
        ({"leaseDurationSeconds": 0}, "spec.leaseDurationSeconds", "Invalid value: 0: must be greater than 0"),
        ({"leaseTransitions": -1}, "spec.leaseTransitions", "Invalid value: -1: must be greater than or equal to 0"),
    ],
)
async def test_lease_spec_numbers_are_validated(client: Any, spec: dict[str, Any], field: str, message: str) -> None:
    response = await client.post(LEASES, json=lease(**spec))
    status = await status_of(response, 422)
    assert status["message"] == f'Lease.{GROUP} "leader" is invalid: {field}: {message}'
    assert status["details"]["causes"] == [{"reason": "FieldValueInvalid", "message": message, "field": field}]


async def test_a_wrongly_typed_field_is_a_400_naming_the_go_field(client: Any) -> None:
    response = await client.post(LEASES, json=lease(leaseDurationSeconds="15"))
    assert (await status_of(response, 400))["message"] == (
        'Lease in version "v1" cannot be handled as a Lease: json: cannot unmarshal string into Go struct field '
        "LeaseSpec.spec.leaseDurationSeconds of type int32")


async def test_the_api_version_in_the_body_must_be_the_groups(client: Any) -> None:
    response = await client.post(LEASES, json={**lease(), "apiVersion": "v1"})
    assert (await status_of(response, 400))["message"] == (
        f"the API version in the data (v1) does not match the expected API version ({GROUP}/v1)")


async def test_strict_field_validation_and_dry_run(client: Any) -> None:
    body = lease()
    body["spec"]["bogus"] = 1
    strict = await client.post(LEASES + "?fieldValidation=Strict", json=body)
    assert (await status_of(strict, 400))["message"] == (
        'Lease in version "v1" cannot be handled as a Lease: strict decoding error: unknown field "spec.bogus"')
    dry = await client.post(LEASES + "?dryRun=All", json=lease())
    assert dry.status == 201
    assert (await client.get(LEASES + "/leader")).status == 404


# ---- apply, selectors, Table, watch


async def test_server_side_apply_creates_and_owns_with_the_groups_api_version(client: Any) -> None:
    applied = {"apiVersion": f"{GROUP}/v1", "kind": "Lease", "metadata": {"name": "leader"},
               "spec": {"holderIdentity": "a", "leaseDurationSeconds": 15}}
    headers = {"Content-Type": "application/apply-patch+yaml"}
    response = await client.patch(LEASES + "/leader?fieldManager=elector", data=json.dumps(applied),
                                  headers=headers)
    created = await status_of(response, 201)
    [entry] = created["metadata"]["managedFields"]
    assert {k: v for k, v in entry.items() if k != "time"} == {
        "manager": "elector", "operation": "Apply", "apiVersion": f"{GROUP}/v1", "fieldsType": "FieldsV1",
        "fieldsV1": {"f:spec": {"f:holderIdentity": {}, "f:leaseDurationSeconds": {}}}}
    wrong = await client.patch(LEASES + "/leader?fieldManager=elector",
                               data=json.dumps({**applied, "apiVersion": "v1"}), headers=headers)
    assert (await status_of(wrong, 400))["message"] == (
        f"Incorrect version specified in apply patch. Specified patch version: v1, expected: {GROUP}/v1")


async def test_leases_select_on_metadata_only(client: Any) -> None:
    await create(client, lease("a"))
    await create(client, lease("b"))
    listed = await (await client.get(f"/apis/{GROUP}/v1/leases", params={"fieldSelector": "metadata.name=b"})).json()
    assert [item["metadata"]["name"] for item in listed["items"]] == ["b"]
    response = await client.get(LEASES, params={"fieldSelector": "spec.holderIdentity=a"})
    assert (await status_of(response, 400))["message"] == (
        '"spec.holderIdentity" is not a known field selector: only "metadata.name", "metadata.namespace"')


async def test_table_prints_name_holder_and_age(client: Any) -> None:
    await create(client, lease(holderIdentity="node-1"))
    await create(client, lease("free"))
    table = await (await client.get(LEASES, headers={"Accept": TABLE})).json()
    assert [(c["name"], c["type"], c["format"], c["priority"]) for c in table["columnDefinitions"]] == [
        ("Name", "string", "name", 0), ("Holder", "string", "", 0), ("Age", "string", "", 0)]
    assert table["columnDefinitions"][1]["description"].startswith(
        "holderIdentity contains the identity of the holder of a current lease.")
    assert [row["cells"][:2] for row in table["rows"]] == [["free", ""], ["leader", "node-1"]]
    assert table["rows"][0]["object"]["apiVersion"] == "meta.k8s.io/v1"


async def test_watch_events_and_bookmarks_carry_the_groups_api_version(aiohttp_client: Any) -> None:
    client = await aiohttp_client(create_app(ServerConfig(bookmark_interval=0.05)))
    start = client.app[api_key].store.resource_version
    response = await client.get(LEASES, params={"watch": "true", "resourceVersion": str(start),
                                                "allowWatchBookmarks": "true"})
    created = await create(client, lease())
    added = json.loads(await asyncio.wait_for(response.content.readline(), 2))
    assert (added["type"], added["object"]) == ("ADDED", created)
    bookmark = json.loads(await asyncio.wait_for(response.content.readline(), 2))
    assert bookmark == {"type": "BOOKMARK", "object": {
        "kind": "Lease", "apiVersion": f"{GROUP}/v1",
        "metadata": {"resourceVersion": created["metadata"]["resourceVersion"]}}}
    response.close()
