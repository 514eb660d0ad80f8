"""The OpenAPI definitions a custom resource version publishes (upstream's CRD OpenAPI builder): the kind, named
after its group reversed (`com.example.stable.v1.CronTab`), with apiVersion, kind and metadata described as
for every kind, and its list."""

from __future__ import annotations

from typing import Any

from fakeapi.machinery.types import JSON

OBJECT_META = "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
LIST_META = "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta"
API_VERSION_DESCRIPTION = (
    "APIVersion defines the versioned schema of this representation of an object. Servers should convert "
    "recognized schemas to the latest internal value, and may reject unrecognized values. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources")
KIND_DESCRIPTION = (
    "Kind is a string value representing the REST resource this object represents. Servers may infer this from "
    "the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds")
METADATA_DESCRIPTION = ("Standard object's metadata. More info: "
                        "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata")
_UNPUBLISHED = ("x-kubernetes-validations",)


def published_definitions(name: str, group: str, version: str, kind: str, list_kind: str, plural: str,
                          schema: JSON | None) -> dict[str, JSON]:
    gvk = [{"group": group, "kind": kind, "version": version}]
    definition: JSON = _public(schema) if schema is not None else {"type": "object"}
    properties: JSON = dict(definition.get("properties") or {})
    properties["apiVersion"] = {"description": API_VERSION_DESCRIPTION, "type": "string"}
    properties["kind"] = {"description": KIND_DESCRIPTION, "type": "string"}
    properties["metadata"] = {"$ref": OBJECT_META, "description": METADATA_DESCRIPTION}
    definition = {**definition, "type": "object", "properties": properties, "x-kubernetes-group-version-kind": gvk}
    listed: JSON = {
        "description": f"{list_kind} is a list of {kind}",
        "type": "object",
        "required": ["items"],
        "properties": {
            "apiVersion": {"description": API_VERSION_DESCRIPTION, "type": "string"},
            "items": {"description": f"List of {plural}. More info: "
                                     "https://git.k8s.io/community/contributors/devel/sig-architecture/"
                                     "api-conventions.md",
                      "type": "array", "items": {"$ref": f"#/definitions/{name}"}},
            "kind": {"description": KIND_DESCRIPTION, "type": "string"},
            "metadata": {"$ref": LIST_META, "description": "Standard list metadata. More info: "
                         "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"},
        },
        "x-kubernetes-group-version-kind": [{"group": group, "kind": list_kind, "version": version}],
    }
    return {name: definition, name + "List": listed}


def _public(schema: Any) -> Any:
    """The schema as published: without the CEL rules (upstream leaves them out of the documents)."""
    if isinstance(schema, dict):
        return {key: _public(value) for key, value in schema.items() if key not in _UNPUBLISHED}
    if isinstance(schema, list):
        return [_public(item) for item in schema]
    return schema
