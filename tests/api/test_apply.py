"""Server-side apply over HTTP: create on apply, ownership, conflicts, force, no-op re-apply, dry run."""

from __future__ import annotations

import json
from typing import Any

import pytest

from fakeapi.http.keys import api_key

PODS = "/api/v1/namespaces/default/pods"
APPLY = {"Content-Type": "application/apply-patch+yaml"}
MERGE = {"Content-Type": "application/merge-patch+json"}


def config(name: str = "ap", image: str = "nginx:1.25", **metadata: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, **metadata},
            "spec": {"containers": [{"name": name, "image": image}]}}


async def apply(client: Any, body: Any, manager: str | None = "kubectl", query: str = "",
                name: str = "ap", path: str = PODS) -> Any:
    params = f"?fieldManager={manager}" if manager else "?"
    text = body if isinstance(body, str) else json.dumps(body)
    return await client.patch(f"{path}/{name}{params}{query}", data=text, headers=APPLY)


async def applied(client: Any, body: Any, manager: str = "kubectl", query: str = "") -> dict[str, Any]:
    response = await apply(client, body, manager, query)
    assert response.status in (200, 201), await response.text()
    result: dict[str, Any] = await response.json()
    return result


def entries(obj: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(e["manager"], e["operation"]): e for e in obj["metadata"].get("managedFields", [])}


async def test_apply_creates_a_missing_object_with_an_apply_entry(client: Any) -> None:
    response = await apply(client, config(labels={"app": "ap"}))
    assert response.status == 201
    pod = await response.json()
    assert pod["spec"]["containers"][0]["imagePullPolicy"] == "IfNotPresent"  # defaulted as on create
    [entry] = pod["metadata"]["managedFields"]
    assert {k: v for k, v in entry.items() if k != "time"} == {
        "manager": "kubectl", "operation": "Apply", "apiVersion": "v1", "fieldsType": "FieldsV1",
        "fieldsV1": {"f:metadata": {"f:labels": {"f:app": {}}},
                     "f:spec": {"f:containers": {'k:{"name":"ap"}': {".": {}, "f:image": {}, "f:name": {}}}}}}


async def test_yaml_bodies_are_accepted(client: Any) -> None:
    yaml_body = ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: ap\nspec:\n  containers:\n"
                 "  - name: ap\n    image: nginx:1.25\n")
    assert (await apply(client, yaml_body)).status == 201


async def test_applying_the_same_configuration_twice_changes_nothing(client: Any) -> None:
    first = await applied(client, config())
    second = await applied(client, config())
    assert second["metadata"]["resourceVersion"] == first["metadata"]["resourceVersion"]
    assert second["metadata"]["managedFields"] == first["metadata"]["managedFields"]


async def test_reapplying_leaves_the_object_unchanged_whatever_the_entry_order(client: Any) -> None:
    clock = client.app[api_key].clock
    await applied(client, config())
    clock.advance(5)
    await applied(client, config(), manager="other")  # a later entry, sorted after kubectl's
    before = await (await client.get(PODS + "/ap")).json()
    clock.advance(5)  # a new time would now sort kubectl's entry last
    again = await applied(client, config())
    assert again["metadata"]["resourceVersion"] == before["metadata"]["resourceVersion"]
    assert again["metadata"]["managedFields"] == before["metadata"]["managedFields"]


async def test_a_changed_value_owned_by_another_manager_conflicts(client: Any) -> None:
    await applied(client, config())
    response = await apply(client, config(image="nginx:1.26"), manager="other")
    assert response.status == 409
    assert await response.json() == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": 'Apply failed with 1 conflict: conflict with "kubectl": .spec.containers[name="ap"].image',
        "reason": "Conflict",
        "details": {"causes": [{"reason": "FieldManagerConflict", "message": 'conflict with "kubectl"',
                                "field": '.spec.containers[name="ap"].image'}]},
        "code": 409}


async def test_conflict_with_an_update_manager_names_its_api_version(client: Any) -> None:
    created = await client.post(PODS + "?fieldManager=kubectl-client-side-apply", json=config())
    assert created.status == 201
    response = await apply(client, config(image="nginx:1.26"))
    assert response.status == 409
    assert (await response.json())["message"] == (
        'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: '
        '.spec.containers[name="ap"].image')


async def test_several_conflicts_are_listed_per_manager(client: Any) -> None:
    await applied(client, config(labels={"a": "1", "b": "1"}))
    response = await apply(client, config(image="nginx:1.26", labels={"a": "2", "b": "2"}), manager="other")
    assert (await response.json())["message"] == (
        'Apply failed with 3 conflicts: conflicts with "kubectl":\n- .metadata.labels.a\n'
        '- .metadata.labels.b\n- .spec.containers[name="ap"].image')


async def test_the_same_value_is_shared_without_conflict(client: Any) -> None:
    await applied(client, config())
    pod = await applied(client, config(), manager="other")
    owners = entries(pod)
    assert set(owners) == {("kubectl", "Apply"), ("other", "Apply")}


async def test_force_takes_ownership(client: Any) -> None:
    await applied(client, config())
    pod = await applied(client, config(image="nginx:1.26"), manager="other", query="&force=true")
    assert pod["spec"]["containers"][0]["image"] == "nginx:1.26"
    owners = entries(pod)
    assert owners[("kubectl", "Apply")]["fieldsV1"] == {
        "f:spec": {"f:containers": {'k:{"name":"ap"}': {".": {}, "f:name": {}}}}}
    assert "f:image" in owners[("other", "Apply")]["fieldsV1"]["f:spec"]["f:containers"]['k:{"name":"ap"}']


async def test_an_update_takes_fields_from_the_applier(client: Any) -> None:
    await applied(client, config(labels={"app": "ap"}))
    response = await client.patch(PODS + "/ap?fieldManager=kubectl-label",
                                  json={"metadata": {"labels": {"app": "relabelled"}}}, headers=MERGE)
    pod = await response.json()
    owners = entries(pod)
    assert "f:metadata" not in owners[("kubectl", "Apply")]["fieldsV1"]
    assert owners[("kubectl-label", "Update")]["fieldsV1"] == {"f:metadata": {"f:labels": {"f:app": {}}}}
    conflict = await apply(client, config(labels={"app": "ap"}))
    assert (await conflict.json())["message"] == (
        'Apply failed with 1 conflict: conflict with "kubectl-label" using v1: .metadata.labels.app')


async def test_fields_no_longer_applied_are_removed(client: Any) -> None:
    await applied(client, config(labels={"app": "ap", "tier": "web"}, annotations={"note": "x"}))
    pod = await applied(client, config(labels={"app": "ap"}))
    assert pod["metadata"]["labels"] == {"app": "ap"}
    assert "annotations" not in pod["metadata"]


async def test_fields_another_manager_owns_are_kept_when_dropped(client: Any) -> None:
    await applied(client, config(labels={"app": "ap", "tier": "web"}))
    await applied(client, config(labels={"tier": "web"}), manager="other")
    pod = await applied(client, config(labels={"app": "ap"}))
    assert pod["metadata"]["labels"] == {"app": "ap", "tier": "web"}


async def test_dry_run_creates_and_changes_nothing(client: Any) -> None:
    response = await apply(client, config(), query="&dryRun=All")
    assert response.status == 201
    assert (await client.get(PODS + "/ap")).status == 404
    created = await applied(client, config())
    changed = await applied(client, config(labels={"x": "y"}), query="&dryRun=All")
    assert changed["metadata"]["labels"] == {"x": "y"}
    stored = await (await client.get(PODS + "/ap")).json()
    assert stored["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]
    assert "labels" not in stored["metadata"]


async def test_kubectl_apply_keeps_the_client_side_annotation_in_step(client: Any) -> None:
    annotation = "kubectl.kubernetes.io/last-applied-configuration"
    await client.post(PODS, json=config(annotations={annotation: "{}"}))
    pod = await applied(client, config(image="nginx:1.26"), query="&force=true")
    assert pod["metadata"]["annotations"][annotation] == (
        '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"ap"},'
        '"spec":{"containers":[{"image":"nginx:1.26","name":"ap"}]}}\n')


async def test_status_apply_is_recorded_for_the_subresource(client: Any) -> None:
    await applied(client, config())
    body = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "ap"}, "status": {"phase": "Running"}}
    response = await apply(client, body, "kubelet", name="ap/status")
    pod = await response.json()
    assert pod["status"]["phase"] == "Running"
    entry = next(e for e in pod["metadata"]["managedFields"] if e["manager"] == "kubelet")
    assert (entry["operation"], entry["subresource"]) == ("Apply", "status")
    assert entry["fieldsV1"] == {"f:status": {"f:phase": {}}}


async def test_apply_to_the_status_of_a_missing_pod_is_not_found(client: Any) -> None:
    body = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "ap"}, "status": {"phase": "Running"}}
    response = await apply(client, body, "kubelet", name="ap/status")
    assert response.status == 404


async def test_apply_without_a_field_manager_is_invalid(client: Any) -> None:
    response = await apply(client, config(), manager=None)
    assert response.status == 422
    assert await response.json() == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: '
                   "is required for apply patch",
        "reason": "Invalid",
        "details": {"name": "", "group": "meta.k8s.io", "kind": "PatchOptions",
                    "causes": [{"reason": "FieldValueRequired", "field": "fieldManager",
                                "message": "Required value: is required for apply patch"}]},
        "code": 422}


@pytest.mark.parametrize(("body", "status", "message"), [
    ({**config(), "apiVersion": "v2"}, 400,
     "Incorrect version specified in apply patch. Specified patch version: v2, expected: v1"),
    ({**config(), "metadata": {"name": "ap", "managedFields": []}}, 400,
     "metadata.managedFields must be nil"),
    (config(name="other"), 400, "the name of the object (other) does not match the name on the URL (ap)"),
    ({**config(), "spec": {"containers": [{"name": "ap", "image": "x", "foo": 1}]}}, 500,
     'failed to create typed patch object (default/ap; /v1, Kind=Pod): .spec.containers[name="ap"].foo: '
     "field not declared in schema"),
])
async def test_bad_configurations_are_rejected(client: Any, body: dict[str, Any], status: int,
                                               message: str) -> None:
    response = await apply(client, body)
    assert response.status == status
    assert (await response.json())["message"] == message
