"""The OpenAPI definitions a custom resource version publishes, as upstream's CRD OpenAPI builder makes them
(apiextensions-apiserver controller/openapi/builder): the kind, named after its group reversed
(`com.example.stable.v1.CronTab`), is its structural schema (what a structural schema keeps: no `example` or
`externalDocs`; the `x-kubernetes-*` extensions and rules kept) with apiVersion, kind and metadata described as
for every kind, embedded resources given theirs, `x-kubernetes-group-version-kind` and
`x-kubernetes-selectable-fields`; and its list. The v2 document gets what OpenAPI v2 can say (upstream's
ToStructuralOpenAPIV2: no allOf/anyOf/oneOf/not, nullable and preserve-unknown-fields nodes left untyped, a root
that keeps unknown fields only `type: object`), under the key PUBLISHED_V2.
"""

from __future__ import annotations

from fakeapi.kinds.kind import PUBLISHED_V2
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
LIST_METADATA_DESCRIPTION = ("Standard list metadata. More info: "
                             "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md"
                             "#types-kinds")
EMBEDDED_API_VERSION_DESCRIPTION = (
    "apiVersion defines the versioned schema of this representation of an object. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources")
EMBEDDED_KIND_DESCRIPTION = (
    "kind is a string value representing the type of this object. In CamelCase. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds")
# what a structural schema holds (the rest of a CRD's schema is dropped when it is published)
_GENERIC = ("type", "nullable", "description", "title", "default")
_VALUE = ("format", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength", "minLength", "pattern",
          "maxItems", "minItems", "uniqueItems", "multipleOf", "enum", "maxProperties", "minProperties", "required")
_EXTENSIONS = ("x-kubernetes-preserve-unknown-fields", "x-kubernetes-embedded-resource", "x-kubernetes-int-or-string",
               "x-kubernetes-list-map-keys", "x-kubernetes-list-type", "x-kubernetes-map-type",
               "x-kubernetes-validations")
_COMBINATORS = ("allOf", "anyOf", "oneOf")


def published_definitions(name: str, group: str, version: str, kind: str, list_kind: str, plural: str,
                          schema: JSON | None, selectable: list[str] | None = None,
                          preserve_unknown_fields: bool = False) -> dict[str, JSON]:
    gvk = [{"group": group, "kind": kind, "version": version}]
    extensions: JSON = {"x-kubernetes-group-version-kind": gvk}
    if selectable:
        extensions["x-kubernetes-selectable-fields"] = [{"fieldPath": path.removeprefix(".")} for path in selectable]
    if schema is None:
        definition: JSON = {"type": "object", **extensions}
    else:
        definition = {**_kube_native(structural(schema), v2=False), **extensions}
        if schema.get("x-kubernetes-preserve-unknown-fields") is True or preserve_unknown_fields:
            v2: JSON = {"type": "object", **extensions}
        else:
            v2 = {**_kube_native(to_openapi_v2(structural(schema)), v2=True), **extensions}
        definition[PUBLISHED_V2] = v2
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
            "metadata": {"$ref": LIST_META, "description": LIST_METADATA_DESCRIPTION},
        },
        "x-kubernetes-group-version-kind": [{"group": group, "kind": list_kind, "version": version}],
    }
    if "x-kubernetes-selectable-fields" in extensions:
        listed["x-kubernetes-selectable-fields"] = extensions["x-kubernetes-selectable-fields"]
    return {name: definition, name + "List": listed}


def _kube_native(schema: JSON, v2: bool) -> JSON:
    properties = dict(schema.get("properties") or {})
    properties["metadata"] = {"$ref": OBJECT_META, "description": METADATA_DESCRIPTION}
    properties["apiVersion"] = {"description": API_VERSION_DESCRIPTION, "type": "string"}
    properties["kind"] = {"description": KIND_DESCRIPTION, "type": "string"}
    out = {**schema, "properties": properties}
    _embedded(out, v2)
    return out


def structural(raw: JSON, nested: bool = False) -> JSON:
    """What upstream's structural schema keeps of a node (nested: inside allOf/anyOf/oneOf/not, only value
    validations)."""
    out: JSON = {}
    for key in (*(() if nested else _GENERIC), *_VALUE, *_EXTENSIONS):
        if key not in raw or raw[key] is None:
            continue
        value = raw[key]
        if key in ("nullable", "exclusiveMaximum", "exclusiveMinimum", "uniqueItems") and value is not True:
            continue
        if key.startswith("x-kubernetes-") and value in (False, [], ""):
            continue
        if key in ("description", "title", "format", "pattern") and value == "":
            continue
        if key in ("required", "enum") and not value:
            continue
        out[key] = value
    properties = raw.get("properties")
    if isinstance(properties, dict) and properties:
        out["properties"] = {name: structural(prop, nested) for name, prop in properties.items()
                             if isinstance(prop, dict)}
    items = raw.get("items")
    if isinstance(items, dict):
        out["items"] = structural(items, nested)
    additional = raw.get("additionalProperties")
    if isinstance(additional, dict):
        out["additionalProperties"] = structural(additional, nested)
    elif isinstance(additional, bool) and not nested:
        out["additionalProperties"] = additional
    for key in _COMBINATORS:
        found = raw.get(key)
        if isinstance(found, list) and found:
            out[key] = [structural(sub, True) for sub in found if isinstance(sub, dict)]
    if isinstance(raw.get("not"), dict):
        out["not"] = structural(raw["not"], True)
    return out


def to_openapi_v2(schema: JSON) -> JSON:
    """Upstream's ToStructuralOpenAPIV2 on a structural node (and its children)."""
    out = dict(schema)
    for key in (*_COMBINATORS, "not"):
        out.pop(key, None)
    if out.get("nullable"):
        out.pop("type", None)
        out.pop("nullable", None)
        out.pop("items", None)
        out.pop("properties", None)
    if out.get("x-kubernetes-preserve-unknown-fields"):
        out.pop("items", None)
        out.pop("properties", None)
    if "items" not in out and out.get("type") == "array":
        out.pop("type")
    if out.get("x-kubernetes-preserve-unknown-fields") and out.get("type") == "object":
        out.pop("type")
    properties = out.get("properties")
    if properties:
        out["properties"] = {name: to_openapi_v2(prop) for name, prop in properties.items()}
        nullable = {name for name, prop in properties.items() if prop.get("nullable")}
        if nullable and out.get("required"):
            kept = [name for name in out["required"] if name not in nullable]
            if kept:
                out["required"] = kept
            else:
                out.pop("required")
    if isinstance(out.get("items"), dict):
        out["items"] = to_openapi_v2(out["items"])
    additional = out.get("additionalProperties")
    if isinstance(additional, dict):
        if additional.get("nullable"):
            out.pop("required", None)
        out["additionalProperties"] = to_openapi_v2(additional)
    return out


def _embedded(schema: JSON, v2: bool) -> None:
    """apiVersion, kind and metadata of embedded resources (not in v2 where unknown fields are kept)."""
    for prop in (schema.get("properties") or {}).values():
        _embedded(prop, v2)
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            _embedded(schema[key], v2)
    if schema.get("x-kubernetes-preserve-unknown-fields") is True and v2:
        return
    if schema.get("x-kubernetes-embedded-resource") is True:
        properties = dict(schema.get("properties") or {})
        properties["apiVersion"] = {"description": EMBEDDED_API_VERSION_DESCRIPTION, "type": "string"}
        properties["kind"] = {"description": EMBEDDED_KIND_DESCRIPTION, "type": "string"}
        properties["metadata"] = {"$ref": OBJECT_META, "description": METADATA_DESCRIPTION}
        schema["properties"] = properties
        required = list(schema.get("required") or [])
        schema["required"] = required + [name for name in ("kind", "apiVersion") if name not in required]

