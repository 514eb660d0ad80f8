"""CustomResourceDefinitions over HTTP: a CRD is named, established and served in the request that creates it;
its custom resources are validated (schema and CEL), defaulted and pruned with upstream's messages; status and
scale subresources, printer columns, selectable fields, versions; deleting the CRD deletes its instances."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tests.crds import CRDS, CRONTABS, GROUP, crd, crontab

TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"


async def ok(response: Any, code: int = 200) -> dict[str, Any]:
    assert response.status == code, await response.text()
    body: dict[str, Any] = await response.json()
    return body


async def install(client: Any, body: dict[str, Any] | None = None) -> dict[str, Any]:
    await ok(await client.post(CRDS, json=body or crd()), 201)
    return await ok(await client.get(f"{CRDS}/crontabs.{GROUP}"))


async def invalid(response: Any) -> list[str]:
    status = await ok(response, 422)
    assert status["reason"] == "Invalid"
    return [f"{cause['field']}: {cause['message']}" for cause in status["details"]["causes"]]


async def test_a_crd_is_established_and_served_by_the_time_its_creation_is_answered(client: Any) -> None:
    stored = await install(client)
    conditions = {c["type"]: (c["status"], c["reason"], c["message"]) for c in stored["status"]["conditions"]}
    assert conditions == {"NamesAccepted": ("True", "NoConflicts", "no conflicts found"),
                          "Established": ("True", "InitialNamesAccepted", "the initial names have been accepted")}
    assert stored["status"]["acceptedNames"] == {"plural": "crontabs", "singular": "crontab", "shortNames": ["ct"],
                                                 "kind": "CronTab", "listKind": "CronTabList", "categories": ["all"]}
    assert stored["status"]["storedVersions"] == ["v1"]
    assert stored["spec"]["conversion"] == {"strategy": "None"} and stored["metadata"]["generation"] == 1
    resources = await ok(await client.get(f"/apis/{GROUP}/v1"))
    assert {entry["name"] for entry in resources["resources"]} == {"crontabs", "crontabs/status", "crontabs/scale"}
    created = await ok(await client.post(CRONTABS, json=crontab("nightly")), 201)
    assert created["spec"] == {"cronSpec": "* * * * */5", "image": "cron:1", "replicas": 1, "minReplicas": 0}
    assert created["metadata"]["generation"] == 1


async def test_custom_resources_get_the_schema_errors_of_a_real_cluster(client: Any) -> None:
    await install(client)
    bad = crontab("bad", cronSpec="nope", replicas="three", size="XL", image="x" * 41)
    assert await invalid(await client.post(CRONTABS, json=bad)) == [
        'spec.cronSpec: Invalid value: "nope": spec.cronSpec in body should match '
        r"'^(\d+|\*)(/\d+)?(\s+(\d+|\*)(/\d+)?){4}$'",
        "spec.image: Too long: may not be more than 40 bytes",
        'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
        'spec.size: Unsupported value: "XL": supported values: "S", "M", "L"',
        ".spec.replicas: Invalid value: 0: .spec.replicas accessor error: three is of the type string, expected int64",
        "<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; "
        "correct the existing errors to complete validation",
    ]
    assert await invalid(await client.post(CRONTABS, json=crontab("big", replicas=11))) == [
        "spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10"]
    assert (await client.get(f"{CRONTABS}/bad")).status == 404


async def test_cel_rules_report_their_message_field_path_and_message_expression(client: Any) -> None:
    await install(client)
    response = await client.post(CRONTABS, json=crontab("low", replicas=1, minReplicas=3, memory="2Gi"))
    assert await invalid(response) == [
        'spec.replicas: Invalid value: "object": replicas must be at least minReplicas',
        'spec.memory: Invalid value: "string": memory 2Gi is 1Gi or more',
    ]
    await ok(await client.post(CRONTABS, json=crontab("fine", replicas=3, minReplicas=3, memory="512Mi")), 201)


async def test_unknown_fields_are_pruned_and_reported_as_field_validation_asks(client: Any) -> None:
    await install(client)
    body = crontab("extra", extra=1)
    response = await client.post(CRONTABS + "?fieldValidation=Strict", json=body)
    status = await ok(response, 400)
    assert status["message"] == ('CronTab in version "v1" cannot be handled as a CronTab: strict decoding error: '
                                 'unknown field "spec.extra"')
    response = await client.post(CRONTABS + "?fieldValidation=Warn", json=body)
    created = await ok(response, 201)
    assert response.headers.getall("Warning") == ['299 - "unknown field \\"spec.extra\\""']
    assert "extra" not in created["spec"]


async def test_status_and_main_resource_ignore_each_others_changes(client: Any) -> None:
    await install(client)
    created = await ok(await client.post(CRONTABS, json={**crontab("a"), "status": {"replicas": 5}}), 201)
    assert "status" not in created
    created["status"] = {"replicas": 2}
    created["spec"]["image"] = "cron:2"
    updated = await ok(await client.put(f"{CRONTABS}/a/status", json=created))
    assert updated["status"] == {"replicas": 2} and updated["spec"]["image"] == "cron:1"
    assert updated["metadata"]["generation"] == 1
    updated["status"] = {"replicas": 9}
    updated["spec"]["image"] = "cron:3"
    again = await ok(await client.put(f"{CRONTABS}/a", json=updated))
    assert again["status"] == {"replicas": 2} and again["spec"]["image"] == "cron:3"
    assert again["metadata"]["generation"] == 2
    no_version = copy.deepcopy(again)
    del no_version["metadata"]["resourceVersion"]
    assert await invalid(await client.put(f"{CRONTABS}/a", json=no_version)) == [
        "metadata.resourceVersion: Invalid value: 0: must be specified for an update"]


async def test_scale_reads_and_writes_the_replica_paths(client: Any) -> None:
    await install(client)
    await ok(await client.post(CRONTABS, json=crontab("s", replicas=2)), 201)
    await ok(await client.patch(f"{CRONTABS}/s/status", json={"status": {"replicas": 1, "selector": "app=s"}},
                                headers={"Content-Type": "application/merge-patch+json"}))
    scale = await ok(await client.get(f"{CRONTABS}/s/scale"))
    assert (scale["apiVersion"], scale["spec"], scale["status"]) == ("autoscaling/v1", {"replicas": 2},
                                                                      {"replicas": 1, "selector": "app=s"})
    scale["spec"]["replicas"] = 4
    await ok(await client.put(f"{CRONTABS}/s/scale", json=scale))
    assert (await ok(await client.get(f"{CRONTABS}/s")))["spec"]["replicas"] == 4


async def test_patches_as_upstream_allows_for_custom_resources(client: Any) -> None:
    await install(client)
    await ok(await client.post(CRONTABS, json=crontab("p")), 201)
    response = await client.patch(f"{CRONTABS}/p", json={"spec": {"replicas": 3}},
                                  headers={"Content-Type": "application/strategic-merge-patch+json"})
    status = await ok(response, 415)
    assert status["message"] == ("the body of the request was in an unknown format - accepted media types include: "
                                 "application/json-patch+json, application/merge-patch+json, "
                                 "application/apply-patch+yaml")
    patched = await ok(await client.patch(f"{CRONTABS}/p", json=[{"op": "replace", "path": "/spec/replicas",
                                                                     "value": 5}],
                                          headers={"Content-Type": "application/json-patch+json"}))
    assert patched["spec"]["replicas"] == 5
    applied = {"apiVersion": f"{GROUP}/v1", "kind": "CronTab", "metadata": {"name": "p"},
               "spec": {"ports": [{"name": "http", "port": 80}]}}
    result = await ok(await client.patch(f"{CRONTABS}/p?fieldManager=me", json=applied,
                                         headers={"Content-Type": "application/apply-patch+yaml"}))
    assert result["spec"]["ports"] == [{"name": "http", "port": 80}] and result["spec"]["replicas"] == 5


async def test_map_lists_refuse_duplicate_keys(client: Any) -> None:
    await install(client)
    body = crontab("dup", ports=[{"name": "a", "port": 1}, {"name": "a", "port": 2}])
    assert await invalid(await client.post(CRONTABS, json=body)) == [
        'spec.ports[1]: Duplicate value: map[string]interface {}{"name":"a"}']


async def test_tables_selectors_and_printer_columns(client: Any) -> None:
    await install(client)
    await ok(await client.post(CRONTABS, json=crontab("red", color="red", replicas=2)), 201)
    await ok(await client.post(CRONTABS, json=crontab("blue", color="blue")), 201)
    listed = await ok(await client.get(CRONTABS + "?fieldSelector=spec.color%3Dred"))
    assert [item["metadata"]["name"] for item in listed["items"]] == ["red"]
    table = await ok(await client.get(CRONTABS, headers={"Accept": TABLE}))
    assert [(c["name"], c["type"], c["priority"]) for c in table["columnDefinitions"]] == [
        ("Name", "string", 0), ("Spec", "string", 0), ("Replicas", "integer", 0), ("Image", "string", 1)]
    assert [row["cells"] for row in table["rows"]] == [["blue", "* * * * */5", 1, "cron:1"],
                                                        ["red", "* * * * */5", 2, "cron:1"]]
    bad = await ok(await client.get(CRONTABS + "?fieldSelector=spec.image%3Dx"), 400)
    assert bad["message"] == "field label not supported: spec.image"


async def test_names_in_use_by_another_crd_are_not_accepted(client: Any) -> None:
    await install(client)
    other = crd()
    other["metadata"]["name"] = f"cronjobs.{GROUP}"
    other["spec"]["names"] = {"plural": "cronjobs", "kind": "CronTab", "shortNames": ["ct"]}
    await ok(await client.post(CRDS, json=other), 201)
    stored = await ok(await client.get(f"{CRDS}/cronjobs.{GROUP}"))
    conditions = {c["type"]: (c["status"], c["reason"], c["message"]) for c in stored["status"]["conditions"]}
    assert conditions["Established"] == ("False", "NotAccepted", "not all names are accepted")
    assert conditions["NamesAccepted"][:2] == ("False", "ListKindConflict")  # the last conflict found
    assert (await client.get(f"/apis/{GROUP}/v1/namespaces/default/cronjobs")).status == 404


async def test_deleting_a_crd_deletes_its_custom_resources_first(client: Any) -> None:
    await install(client)
    await ok(await client.post(CRONTABS, json=crontab("held") | {"metadata": {"name": "held",
                                                                               "finalizers": ["example.com/x"]}}), 201)
    deleting = await ok(await client.delete(f"{CRDS}/crontabs.{GROUP}"))
    assert deleting["metadata"]["finalizers"] == ["customresourcecleanup.apiextensions.k8s.io"]
    crd_now = await ok(await client.get(f"{CRDS}/crontabs.{GROUP}"))
    terminating = next(c for c in crd_now["status"]["conditions"] if c["type"] == "Terminating")
    assert (terminating["status"], terminating["reason"]) == ("True", "InstanceDeletionInProgress")
    held = await ok(await client.get(f"{CRONTABS}/held"))
    assert held["metadata"]["deletionTimestamp"]
    await ok(await client.patch(f"{CRONTABS}/held", json={"metadata": {"finalizers": None}},
                                headers={"Content-Type": "application/merge-patch+json"}))
    assert (await client.get(f"{CRDS}/crontabs.{GROUP}")).status == 404
    assert (await client.get(CRONTABS)).status == 404


async def test_several_versions_serve_the_same_objects(client: Any) -> None:
    v1 = crd()["spec"]["versions"][0]
    v2 = {**copy.deepcopy(v1), "name": "v2", "storage": False, "deprecated": True}
    await install(client, crd([v1, v2]))
    await ok(await client.post(CRONTABS, json=crontab("both")), 201)
    response = await client.get(f"/apis/{GROUP}/v2/namespaces/default/crontabs/both")
    seen = await ok(response)
    assert seen["apiVersion"] == f"{GROUP}/v2"
    assert response.headers.getall("Warning") == [f'299 - "{GROUP}/v2 CronTab is deprecated"']
    group = await ok(await client.get(f"/apis/{GROUP}"))
    assert group["preferredVersion"]["version"] == "v2" and [v["version"] for v in group["versions"]] == ["v2", "v1"]


@pytest.mark.parametrize(("change", "message"), [
    (lambda c: c["spec"].update(group="nodots"),
     "spec.group: Invalid value: \"nodots\": should be a domain with at least one dot"),
    (lambda c: c["spec"].update(scope="Global"),
     'spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"'),
    (lambda c: c["spec"]["versions"][0].update(storage=False),
     "must have exactly one version marked as storage version"),
    (lambda c: c["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"].update(
        loose={"properties": {"a": {"type": "string"}}}),
     "spec.validation.openAPIV3Schema.properties[spec].properties[loose].type: Required value: must not be empty for "
     "specified object fields"),
    (lambda c: c["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"].update(
        both={"type": "object", "properties": {"a": {"type": "string"}},
              "additionalProperties": {"type": "string"}}),
     "spec.validation.openAPIV3Schema.properties[spec].properties[both].additionalProperties: Forbidden: "
     "additionalProperties and properties are mutual exclusive"),
    (lambda c: c["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"].update(
        bad={"type": "integer", "default": "one"}),
     'spec.validation.openAPIV3Schema.properties[spec].properties[bad].default: Invalid value: "string":  in body '
     'must be of type integer: "string"'),
    (lambda c: c["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"].update(
        {"x-kubernetes-validations": [{"rule": "self.replicas >"}]}),
     "compilation failed: ERROR: <input>:1:16: Syntax error: mismatched input '<EOF>'"),
    (lambda c: c["metadata"].update(name="wrong.example.com"),
     'metadata.name: Invalid value: "wrong.example.com": must be spec.names.plural+"."+spec.group'),
])
async def test_a_bad_crd_gets_upstreams_message_and_nothing_is_stored(client: Any, change: Any, message: str) -> None:
    body = crd()
    change(body)
    causes = await invalid(await client.post(CRDS, json=body))
    assert any(message in cause for cause in causes), causes
    listed = await ok(await client.get(CRDS))
    assert listed["items"] == []
