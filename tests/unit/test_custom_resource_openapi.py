"""The OpenAPI definitions of a custom resource version, as upstream's CRD OpenAPI builder makes them."""

from __future__ import annotations

from typing import Any

from fakeapi.kinds.customresource.openapi import published_definitions
from fakeapi.kinds.kind import PUBLISHED_V2

NAME = "com.example.stable.v1.CronTab"


def published(schema: dict[str, Any] | None, **options: Any) -> dict[str, Any]:
    return published_definitions(NAME, "stable.example.com", "v1", "CronTab", "CronTabList", "crontabs", schema,
                                 **options)


SCHEMA: dict[str, Any] = {"type": "object", "properties": {"spec": {
    "type": "object", "example": {"a": 1}, "externalDocs": {"url": "https://example.com"},
    "x-kubernetes-validations": [{"rule": "self.a > 0"}],
    "properties": {
        "a": {"type": "integer", "nullable": True},
        "b": {"type": "string", "allOf": [{"maxLength": 3}]},
        "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True,
                 "properties": {"x": {"type": "string"}}},
        "template": {"type": "object", "x-kubernetes-embedded-resource": True,
                     "x-kubernetes-preserve-unknown-fields": True},
    },
    "required": ["a", "b"],
}}}


def test_v3_publishes_the_structural_schema_with_type_meta_and_rules() -> None:
    definition = published(SCHEMA, selectable=[".spec.b"])[NAME]
    spec = definition["properties"]["spec"]
    assert "example" not in spec and "externalDocs" not in spec
    assert spec["x-kubernetes-validations"] == [{"rule": "self.a > 0"}]
    assert spec["properties"]["b"]["allOf"] == [{"maxLength": 3}]
    assert set(definition["properties"]) == {"spec", "metadata", "apiVersion", "kind"}
    meta = definition["properties"]["metadata"]
    assert meta["$ref"] == "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
    template = spec["properties"]["template"]
    assert template["required"] == ["kind", "apiVersion"]
    assert template["properties"]["kind"]["description"].startswith("kind is a string value representing the type")
    assert definition["x-kubernetes-group-version-kind"] == [{"group": "stable.example.com", "kind": "CronTab",
                                                              "version": "v1"}]
    assert definition["x-kubernetes-selectable-fields"] == [{"fieldPath": "spec.b"}]


def test_v2_publishes_what_openapi_v2_can_say() -> None:
    v2 = published(SCHEMA)[NAME][PUBLISHED_V2]
    spec = v2["properties"]["spec"]
    assert spec["properties"]["a"] == {}  # nullable: untyped
    assert spec["required"] == ["b"]  # a nullable property is not required
    assert "allOf" not in spec["properties"]["b"]
    assert spec["properties"]["free"] == {"x-kubernetes-preserve-unknown-fields": True}
    assert "properties" not in spec["properties"]["template"]  # no embedded meta where unknown fields are kept


def test_a_root_that_keeps_unknown_fields_is_only_an_object_in_v2() -> None:
    definition = published({"type": "object", "x-kubernetes-preserve-unknown-fields": True})[NAME]
    assert definition[PUBLISHED_V2] == {"type": "object", "x-kubernetes-group-version-kind": [
        {"group": "stable.example.com", "kind": "CronTab", "version": "v1"}]}
    assert set(definition["properties"]) == {"metadata", "apiVersion", "kind"}


def test_the_list_is_described_as_upstream_describes_it() -> None:
    listed = published(SCHEMA)[NAME + "List"]
    assert listed["description"] == "CronTabList is a list of CronTab"
    assert listed["required"] == ["items"]
    assert listed["properties"]["items"]["items"] == {"$ref": f"#/definitions/{NAME}"}
    assert listed["properties"]["metadata"]["description"].startswith("Standard list metadata.")
