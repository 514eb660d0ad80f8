"""x-kubernetes-validations over HTTP: a CRD whose rules do not fit its schema or cost too much is refused with
upstream's messages and nothing is stored; rules that would cost too much on the values sent are stopped with
upstream's runtime errors; failed rules on values an update left as they were are warnings (ratcheting)."""

from __future__ import annotations

from typing import Any

from tests.crds import CRDS, CRONTABS, GROUP, crd, crontab

WIDGETS = f"/apis/{GROUP}/v1/namespaces/default/widgets"


async def status_of(response: Any, code: int) -> dict[str, Any]:
    assert response.status == code, await response.text()
    body: dict[str, Any] = await response.json()
    return body


async def causes(response: Any) -> list[str]:
    status = await status_of(response, 422)
    return [f"{cause['field']}: {cause['message']}" for cause in status["details"]["causes"]]


def widget_crd(spec_schema: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"widgets.{GROUP}"},
            "spec": {"group": GROUP, "scope": "Namespaced",
                     "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
                     "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                         "type": "object", "properties": {"spec": spec_schema}}}}]}}


def widget(name: str, spec: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": f"{GROUP}/v1", "kind": "Widget", "metadata": {"name": name}, "spec": spec}


async def nothing_stored(client: Any) -> None:
    assert (await status_of(await client.get(CRDS), 200))["items"] == []


async def test_a_rule_naming_a_field_the_schema_lacks_is_refused_when_the_crd_is_written(client: Any) -> None:
    body = crd()
    spec = body["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
    spec["x-kubernetes-validations"] = [{"rule": "self.replica > 0"}]
    assert await causes(await client.post(CRDS, json=body)) == [
        "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: "
        'apiextensions.ValidationRule{Rule:"self.replica > 0", Message:"", MessageExpression:"", '
        "Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:\"\", OptionalOldSelf:(*bool)(nil)}: "
        "compilation failed: ERROR: <input>:1:5: undefined field 'replica'\n | self.replica > 0\n | ....^"]
    await nothing_stored(client)


async def test_a_rule_that_would_cost_too_much_is_refused_with_upstreams_factor(client: Any) -> None:
    names: dict[str, Any] = {"type": "array", "items": {"type": "string"}}
    spec = {"type": "object", "properties": {"names": names},
            "x-kubernetes-validations": [{"rule": "self.names.all(x, self.names.all(y, x == y))"}]}
    advice = ("(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and "
              "strings are declared)")
    at = "spec.validation.openAPIV3Schema"
    assert await causes(await client.post(CRDS, json=widget_crd(spec))) == [
        f"{at}.properties[spec].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by "
        f"factor of more than 100x {advice}",
        f"{at}.properties[spec].x-kubernetes-validations[0].rule: Forbidden: contributed to estimated rule cost total "
        "exceeding cost limit for entire OpenAPIv3 schema",
        f"{at}: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds "
        f"budget by factor of more than 100x {advice}"]
    await nothing_stored(client)
    names.update(maxItems=100, items={"type": "string", "maxLength": 8})
    await status_of(await client.post(CRDS, json=widget_crd(spec)), 201)


async def test_rules_whose_total_cost_is_too_much_are_named_with_the_total(client: Any) -> None:
    rule = [{"rule": "self.contains('keyword')"}]
    spec = {"type": "object", "properties": {
        "list": {"type": "array", "maxItems": 100000,
                 "items": {"type": "string", "maxLength": 5000, "x-kubernetes-validations": rule}},
        "map": {"type": "object", "maxProperties": 1000,
                "additionalProperties": {"type": "string", "maxLength": 5000, "x-kubernetes-validations": rule}},
        "field": {"type": "integer", "x-kubernetes-validations": [{"rule": "self > 50 && self < 100"}]}}}
    at = "spec.validation.openAPIV3Schema"
    advice = ("(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and "
              "strings are declared)")
    assert await causes(await client.post(CRDS, json=widget_crd(spec))) == [
        f"{at}.properties[spec].properties[list].items.x-kubernetes-validations[0].rule: Forbidden: estimated rule "
        f"cost exceeds budget by factor of 20.0x {advice}",
        f"{at}.properties[spec].properties[list].items.x-kubernetes-validations[0].rule: Forbidden: contributed to "
        "estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
        f"{at}.properties[spec].properties[map].additionalProperties.x-kubernetes-validations[0].rule: Forbidden: "
        "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
        f"{at}: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds "
        f"budget by factor of 2.0x {advice}",
    ]
    await nothing_stored(client)


async def test_a_rule_too_costly_for_the_values_sent_is_stopped(client: Any) -> None:
    spec = {"type": "object", "properties": {"ids": {"type": "array", "maxItems": 1500, "items": {"type": "integer"},
                                                     "x-kubernetes-validations": [
                                                         {"rule": "self.all(x, self.exists_one(y, x == y))",
                                                          "message": "ids must be unique"}]}}}
    await status_of(await client.post(CRDS, json=widget_crd(spec)), 201)
    await status_of(await client.post(WIDGETS, json=widget("few", {"ids": list(range(50))})), 201)
    assert await causes(await client.post(WIDGETS, json=widget("many", {"ids": list(range(1500))}))) == [
        "spec.ids: Invalid value: \"array\": 'operation cancelled: actual cost limit exceeded': no further "
        "validation rules will be run due to call cost exceeds limit for rule: ids must be unique"]
    assert (await client.get(f"{WIDGETS}/many")).status == 404


async def test_the_rules_of_one_object_share_a_cost_budget(client: Any) -> None:
    # each rule costs 39,900 on a full group, 5.2M over 130 groups (within the per-rule limit); both rules on
    # 130 full groups pass the 10M budget of one object
    names = {"type": "array", "maxItems": 99, "items": {"type": "integer"}}
    group = {"type": "object", "properties": {"names": names}, "x-kubernetes-validations": [
        {"rule": "self.names.all(x, self.names.exists_one(y, x == y))"},
        {"rule": "self.names.all(x, self.names.exists_one(y, y == x))"}]}
    spec = {"type": "object", "properties": {"groups": {"type": "array", "maxItems": 130, "items": group}}}
    await status_of(await client.post(CRDS, json=widget_crd(spec)), 201)
    full = [{"names": list(range(99))} for _ in range(130)]
    found = await causes(await client.post(WIDGETS, json=widget("full", {"groups": full})))
    assert len(found) == 1 and found[0].startswith("spec.groups[")
    assert found[0].endswith(': Invalid value: "object": validation failed due to running out of cost budget, no '
                             "further validation rules will be run")
    await status_of(await client.post(WIDGETS, json=widget("light", {"groups": full[:100]})), 201)


async def test_a_failed_rule_on_a_value_an_update_left_alone_is_a_warning(client: Any) -> None:
    await status_of(await client.post(CRDS, json=crd()), 201)
    created = await status_of(await client.post(CRONTABS, json=crontab("old", color="red")), 201)
    stored_crd = await status_of(await client.get(f"{CRDS}/crontabs.{GROUP}"), 200)
    schema = stored_crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
    schema["color"]["x-kubernetes-validations"] = [{"rule": "self != 'red'", "message": "no more red"}]
    schema["image"]["x-kubernetes-validations"] = [{"rule": "self.startsWith('registry/')"}]
    await status_of(await client.put(f"{CRDS}/crontabs.{GROUP}", json=stored_crd), 200)
    created["spec"]["replicas"] = 3
    response = await client.put(f"{CRONTABS}/old", json=created)
    updated = await status_of(response, 200)
    assert updated["spec"]["replicas"] == 3
    assert response.headers.getall("Warning") == [
        '299 - "spec.image: Invalid value: \\"string\\": failed rule: self.startsWith(\'registry/\')"',
        '299 - "spec.color: Invalid value: \\"string\\": no more red"']
    updated["spec"]["color"] = "dark red"
    updated["spec"]["image"] = "cron:2"
    assert await causes(await client.put(f"{CRONTABS}/old", json=updated)) == [
        "spec.image: Invalid value: \"string\": failed rule: self.startsWith('registry/')"]


async def test_items_of_an_atomic_list_ratchet_only_while_the_list_is_unchanged(client: Any) -> None:
    body = crd()
    spec = body["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
    spec["properties"]["tags"] = {"type": "array", "items": {"type": "string"}}
    await status_of(await client.post(CRDS, json=body), 201)
    created = await status_of(await client.post(CRONTABS, json=crontab("t", tags=["a", "looong"])), 201)
    stored_crd = await status_of(await client.get(f"{CRDS}/crontabs.{GROUP}"), 200)
    tags = stored_crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["tags"]
    tags["items"]["maxLength"] = 3
    await status_of(await client.put(f"{CRDS}/crontabs.{GROUP}", json=stored_crd), 200)
    created["spec"]["image"] = "cron:2"
    updated = await status_of(await client.put(f"{CRONTABS}/t", json=created), 200)
    updated["spec"]["tags"] = ["b", "looong"]  # the list changed: its items cannot be matched with stored ones
    assert await causes(await client.put(f"{CRONTABS}/t", json=updated)) == [
        "spec.tags[1]: Too long: may not be more than 3 bytes",
        "<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; "
        "correct the existing errors to complete validation"]


async def test_a_default_added_to_the_schema_shows_on_objects_stored_before(client: Any) -> None:
    await status_of(await client.post(CRDS, json=crd()), 201)
    await status_of(await client.post(CRONTABS, json=crontab("before")), 201)
    stored_crd = await status_of(await client.get(f"{CRDS}/crontabs.{GROUP}"), 200)
    properties = stored_crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
    properties["color"]["default"] = "blue"
    await status_of(await client.put(f"{CRDS}/crontabs.{GROUP}", json=stored_crd), 200)
    assert (await status_of(await client.get(f"{CRONTABS}/before"), 200))["spec"]["color"] == "blue"
    listed = await status_of(await client.get(CRONTABS), 200)
    assert [item["spec"]["color"] for item in listed["items"]] == ["blue"]

