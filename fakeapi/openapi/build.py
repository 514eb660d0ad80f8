"""Build the OpenAPI documents (v3 per group version, and v2 swagger) from the marshmallow schemas, with apispec.

Only `fakeapi openapi` runs this: apispec is a tool for generating the committed files, not a runtime
dependency; the server serves the committed output (fakeapi.openapi.serve). Components carry upstream's
names (`io.k8s.api.core.v1.Pod`...), the field descriptions and x-kubernetes-* extensions declared in
the schemas, and `x-kubernetes-group-version-kind` on every kind; paths come from fakeapi.openapi.paths.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from marshmallow import Schema, fields

from fakeapi.kinds.authentication.schema import SelfSubjectReviewSchema, TokenReviewSchema
from fakeapi.kinds.authorization.schema import (
    SelfSubjectAccessReviewSchema,
    SelfSubjectRulesReviewSchema,
    SubjectAccessReviewSchema,
)
from fakeapi.kinds.kind import ResourceInfo
from fakeapi.kinds.pod.schema.binding import BindingSchema
from fakeapi.kinds.pod.schema.eviction import EvictionSchema
from fakeapi.machinery.schemas.base import IntOrString, MicroTime, Quantity, Time
from fakeapi.machinery.schemas.meta import DeleteOptionsSchema, StatusSchema
from fakeapi.machinery.types import JSON
from fakeapi.openapi import DOCUMENTS_DIR, V2_DOCUMENT, paths, v3_document, v3_group_version
from fakeapi.openapi.paths import operations, paths_v2, paths_v3

TITLE = "Kubernetes"
VERSION = "v1.32.0"

QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"
INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"
TIME = "io.k8s.apimachinery.pkg.apis.meta.v1.Time"
MICRO_TIME = "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime"
FIELDS_V1 = "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1"
PATCH = "io.k8s.apimachinery.pkg.apis.meta.v1.Patch"

# wire types that upstream documents as shared components rather than inline (subclasses first)
_WIRE_TYPES: tuple[tuple[type[fields.Field[Any]], str], ...] = (
    (MicroTime, MICRO_TIME),
    (Time, TIME),
    (Quantity, QUANTITY),
    (IntOrString, INT_OR_STRING),
)
_STATIC_COMPONENTS: dict[str, JSON] = {
    QUANTITY: {
        "type": "string",
        "description": (
            "A fixed-point number with a suffix: a decimal SI suffix (m, k, M, G, T, P, E), a binary "
            "one (Ki, Mi, Gi, Ti, Pi, Ei) or a decimal exponent (1e3). Written as a string, "
            'e.g. "500m" or "1Gi".'
        ),
    },
    INT_OR_STRING: {
        "type": "string",
        "format": "int-or-string",
        "description": (
            "Either an integer or a string: a field that takes a number or a name, such as a port."
        ),
    },
    TIME: {
        "type": "string",
        "format": "date-time",
        "description": ("A timestamp in RFC 3339 form, with second precision, in UTC."),
    },
    MICRO_TIME: {
        "type": "string",
        "format": "date-time",
        "description": ("A timestamp in RFC 3339 form, with microsecond precision, in UTC."),
    },
    FIELDS_V1: {
        "type": "object",
        "description": (
            "The set of fields a manager owns, as a trie of field, value and key entries "
            "(the FieldsV1 format)."
        ),
    },
    PATCH: {
        "type": "object",
        "description": (
            "The body of a PATCH request: a JSON patch, a merge patch, a strategic merge patch or an apply "
            "configuration, as the Content-Type says."
        ),
    },
}
# upstream's OpenAPIV3OneOfTypes: in v3 these are "one of" JSON types rather than a string
_V3_ONE_OF = {QUANTITY: ("string", "number"), INT_OR_STRING: ("integer", "string")}
# properties whose value is a shared component although their field says only "free-form object"
# the API group of each k8s.io/api package that is not named after its group's first label
_GROUPS = {"coordination": "coordination.k8s.io", "authorization": "authorization.k8s.io",
           "authentication": "authentication.k8s.io", "scheduling": "scheduling.k8s.io"}
_PROPERTY_COMPONENTS = {("io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry", "fieldsV1"): FIELDS_V1}
# top-level shapes documented beside the stored kinds: request bodies and answers of their operations
# (a schema nested in another comes before it: apispec registers nested schemas on its own)
_OTHER_SCHEMAS: tuple[type[Schema], ...] = (
    BindingSchema, DeleteOptionsSchema, StatusSchema, EvictionSchema, SelfSubjectAccessReviewSchema,
    SubjectAccessReviewSchema, SelfSubjectRulesReviewSchema, SelfSubjectReviewSchema, TokenReviewSchema,
)


def kind_schemas() -> dict[str, type[Schema]]:
    """Every top-level kind documented, by definition name: the stored kinds, their lists and the shapes
    their operations take and answer."""
    from fakeapi.cluster import KINDS

    classes = [type(kind.schema) for kind in KINDS] + [kind.list_schema for kind in KINDS] + list(_OTHER_SCHEMAS)
    return {_name(cls): cls for cls in classes}


def _name(cls: type[Schema] | Schema) -> str:
    schema_class = cls if isinstance(cls, type) else type(cls)
    name: str = getattr(schema_class, "openapi_name", "")
    if not name:
        raise ValueError(f"{schema_class.__name__} has no openapi_name")
    return name


def _nested_class(declared: fields.Nested) -> type[Schema]:
    nested = declared.nested
    if isinstance(nested, type) and issubclass(nested, Schema):
        return nested
    return type(declared.schema)


def reachable_schemas(roots: list[type[Schema]]) -> Iterator[type[Schema]]:
    """The roots and every schema class nested in them, each once."""
    seen: set[type[Schema]] = set()
    pending = list(roots)
    while pending:
        cls = pending.pop()
        if cls in seen:
            continue
        seen.add(cls)
        yield cls
        for declared in cls._declared_fields.values():
            inner = declared.inner if isinstance(declared, fields.List) else declared
            if isinstance(inner, fields.Dict) and inner.value_field is not None:
                inner = inner.value_field
            if isinstance(inner, fields.Nested):
                pending.append(_nested_class(inner))


def _wire_type(converter: Any, field: fields.Field[Any], **kwargs: Any) -> JSON:
    """apispec attribute function: Time, Quantity... become references to upstream's shared components."""
    ret: JSON = kwargs["ret"]
    for field_class, component in _WIRE_TYPES:
        if isinstance(field, field_class):
            for key in ("type", "format", "x-kubernetes-int-or-string"):
                ret.pop(key, None)  # described by the component
            ref = {"$ref": _ref_prefix(converter.openapi_version.major) + component}
            # wrapped even without siblings, as upstream's documents do
            return {"allOf": [ref]}
    return {}


def _ref_prefix(major: int) -> str:
    return "#/components/schemas/" if major >= 3 else "#/definitions/"


def _description(cls: type[Schema]) -> str | None:
    """The first paragraph of the class's own docstring, on one line."""
    doc = cls.__dict__.get("__doc__")
    if not doc:
        return None
    return " ".join(doc.strip().split("\n\n")[0].split())


def build_components(openapi_version: str, kinds: dict[str, type[Schema]]) -> dict[str, JSON]:
    """Component schemas (v3) or definitions (v2) for these documented kinds and what they nest."""
    plugin = MarshmallowPlugin(schema_name_resolver=_name)
    spec = APISpec(TITLE, VERSION, openapi_version, plugins=[plugin])
    assert plugin.converter is not None
    plugin.converter.add_attribute_function(_wire_type)  # type: ignore[no-untyped-call]  # apispec is untyped
    for cls in kinds.values():
        spec.components.schema(_name(cls), schema=cls)
    document = spec.to_dict()
    major = int(openapi_version.split(".")[0])
    schemas: dict[str, JSON] = document["components"]["schemas"] if major >= 3 else document["definitions"]
    for cls in reachable_schemas(list(kinds.values())):
        schema = schemas[_name(cls)]
        description = _description(cls)
        if description:
            schema["description"] = description
        schema.update(getattr(cls, "openapi_extensions", {}))
    for name in kinds:
        package, version, kind = name.removeprefix("io.k8s.api.").removeprefix("io.k8s.apimachinery.pkg.apis.") \
            .split(".")
        group = "" if package in ("core", "meta") else _GROUPS.get(package, package)
        schemas[name]["x-kubernetes-group-version-kind"] = [{"group": group, "version": version, "kind": kind}]
    for (owner, prop), component in _PROPERTY_COMPONENTS.items():
        if owner not in schemas:
            continue
        described = {
            key: value for key, value in schemas[owner]["properties"][prop].items() if key == "description"
        }
        schemas[owner]["properties"][prop] = {
            "allOf": [{"$ref": _ref_prefix(major) + component}],
            **described,
        }
    for name, schema in _STATIC_COMPONENTS.items():
        schemas[name] = dict(schema)
        if major >= 3 and name in _V3_ONE_OF:
            # v3 names the JSON types a value may take, so `kubectl explain` shows e.g. map[string]Quantity
            del schemas[name]["type"]
            schemas[name]["oneOf"] = [{"type": json_type} for json_type in _V3_ONE_OF[name]]
    return schemas


def served_resources() -> list[ResourceInfo]:
    """The resources a fresh server serves: the documents describe exactly those."""
    from fakeapi.app import create_app
    from fakeapi.http.keys import served_key

    return create_app()[served_key]


def build_v3(infos: list[ResourceInfo]) -> JSON:
    """The document of one group version: its paths, and every component (as upstream's carry more than
    their paths name)."""
    packages = {paths.component(info, info.kind).rsplit(".", 1)[0] for info in infos}
    # the kinds subresources take from other groups (pods/eviction: policy/v1 Eviction)
    packages |= {paths.subresource_component(info, sub).rsplit(".", 1)[0] for info in infos
                 for sub in info.subresources}
    kinds = {name: cls for name, cls in kind_schemas().items()
             if name.rsplit(".", 1)[0] in packages or name.startswith("io.k8s.apimachinery.")}
    schemas = build_components("3.0.0", kinds)
    return {
        "openapi": "3.0.0",
        "info": {"title": TITLE, "version": VERSION},
        "paths": paths_v3(operations(infos), lambda name: {"$ref": "#/components/schemas/" + name}),
        "components": {"schemas": schemas},
    }


def build_v2(infos: list[ResourceInfo]) -> JSON:
    return {
        "swagger": "2.0",
        "info": {"title": TITLE, "version": VERSION},
        "paths": paths_v2(operations(infos), lambda name: {"$ref": "#/definitions/" + name}),
        "definitions": build_components("2.0", kind_schemas()),
    }


def build_documents() -> dict[Path, JSON]:
    """Every committed document, by its path under the output directory."""
    infos = served_resources()
    by_group_version: dict[tuple[str, str], list[ResourceInfo]] = {}
    for info in infos:
        by_group_version.setdefault((info.group, info.version), []).append(info)
    documents = {v3_document(v3_group_version(group, version)): build_v3(group_infos)
                 for (group, version), group_infos in by_group_version.items()}
    documents[V2_DOCUMENT] = build_v2(infos)
    return documents


def render(document: JSON) -> str:
    """The committed form: sorted keys, indented, so diffs stay readable."""
    return json.dumps(document, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def write_documents(output_dir: Path = DOCUMENTS_DIR) -> list[Path]:
    written = []
    for relative, document in build_documents().items():
        target = output_dir / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(render(document), encoding="utf-8")
        written.append(target)
    return written


def stale_documents(output_dir: Path = DOCUMENTS_DIR) -> list[Path]:
    """The committed documents that differ from what the schemas generate (or are missing)."""
    stale = []
    for relative, document in build_documents().items():
        target = output_dir / relative
        if not target.is_file() or target.read_text(encoding="utf-8") != render(document):
            stale.append(target)
    return stale
