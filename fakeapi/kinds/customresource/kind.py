"""The Kinds a CustomResourceDefinition serves: one per served version, all stored once, in the storage
version (another version's objects are the same objects, their apiVersion rewritten: `conversion: None`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial

from fakeapi.kinds.customresource.conversion import WebhookConversion
from fakeapi.kinds.customresource.decoder import CustomResourceDecoder
from fakeapi.kinds.customresource.definition import (
    Names,
    openapi_name,
    schema_of,
    storage_version,
    subresources_of,
    versions,
)
from fakeapi.kinds.customresource.fields import custom_resource_labels
from fakeapi.kinds.customresource.openapi import published_definitions
from fakeapi.kinds.customresource.strategy import (
    CustomResourceStatusStrategy,
    CustomResourceStrategy,
    CustomResourceType,
    Rules,
    ScalePaths,
)
from fakeapi.kinds.customresource.table import custom_resource_printer
from fakeapi.kinds.kind import (
    SCALE_SUBRESOURCE,
    STATUS_VERBS,
    Conversion,
    Kind,
    ResourceInfo,
    Scale,
    SubresourceInfo,
)
from fakeapi.kinds.strategy import Strategy
from fakeapi.machinery.decode import BodyDecoder
from fakeapi.machinery.jsonschema.defaulting import apply_defaults, has_defaults, prune_nulls
from fakeapi.machinery.jsonschema.schema import Schema, compile_schema
from fakeapi.machinery.jsonvalues import copy_json
from fakeapi.machinery.schema.compiled import CompiledSchema
from fakeapi.machinery.schema.definitions import KUBERNETES_1_32
from fakeapi.machinery.schema.definitions import compile_schema as compile_structural
from fakeapi.machinery.types import JSON

OBJECT_META_REF = {"$ref": "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}
RulesCompiler = Callable[[Schema], Rules | None]
"""Makes the CEL rules of a version's schema (fakeapi.kinds.customresource.cel)."""


@dataclass(frozen=True)
class VersionConversion:
    """`conversion: None`: an object of another served version is the stored one with its apiVersion."""

    served: str
    stored: str

    def to_stored(self, obj: JSON) -> JSON:
        return {**obj, "apiVersion": self.stored}

    def from_stored(self, obj: JSON) -> JSON:
        return {**obj, "apiVersion": self.served}


@dataclass(frozen=True)
class DefaultedOnRead:
    """A version whose schema has defaults: objects read from storage get them (upstream's storage codec
    defaults what it decodes), so a default added to the schema shows on objects stored before it."""

    schema: Schema
    inner: Conversion | None = None

    def to_stored(self, obj: JSON) -> JSON:
        return obj if self.inner is None else self.inner.to_stored(obj)

    def from_stored(self, obj: JSON) -> JSON:
        obj = copy_json(obj)
        if self.inner is not None:
            obj = self.inner.from_stored(obj)
        apply_defaults(obj, self.schema)
        prune_nulls(obj, self.schema)
        return obj


def custom_resource_kinds(crd: JSON, rules_for: RulesCompiler | None = None,
                          webhook_addresses: Mapping[str, str] | None = None) -> list[Kind]:
    """A Kind for each served version of an accepted CRD (its status.acceptedNames)."""
    spec: JSON = crd.get("spec") or {}
    names = Names.of((crd.get("status") or {}).get("acceptedNames"))
    group = str(spec.get("group") or "")
    namespaced = spec.get("scope") == "Namespaced"
    stored = storage_version(crd)
    conversion_spec: JSON = spec.get("conversion") or {}
    webhook: JSON | None = (conversion_spec.get("webhook") or {}) if conversion_spec.get("strategy") == "Webhook" \
        else None
    kinds = []
    for version in versions(crd):
        if not version.get("served"):
            continue
        name = str(version.get("name") or "")
        raw_schema = schema_of(version)
        schema = compile_schema(raw_schema) if raw_schema is not None else None
        subresources = subresources_of(version)
        status = isinstance(subresources.get("status"), dict)
        scale_spec = subresources.get("scale") if isinstance(subresources.get("scale"), dict) else None
        scale = None if scale_spec is None else ScalePaths(
            str(scale_spec.get("specReplicasPath") or ""), str(scale_spec.get("statusReplicasPath") or ""),
            str(scale_spec.get("labelSelectorPath") or ""))
        rules = rules_for(schema) if rules_for is not None and schema is not None else None
        crt = CustomResourceType(group, name, names.kind, namespaced, schema, status, scale, rules)
        strategy = CustomResourceStrategy(crt)
        sub_strategies: dict[str, Strategy] = {"status": CustomResourceStatusStrategy(crt)} if status else {}
        sub_infos: list[SubresourceInfo] = []
        if status:
            sub_infos.append(SubresourceInfo("status", names.kind, STATUS_VERBS))
        if scale is not None:
            sub_infos.append(SCALE_SUBRESOURCE)
        definition = openapi_name(group, name, names.kind)
        info = ResourceInfo(names.plural, names.kind, namespaced=namespaced, singular=names.singular, group=group,
                            version=name, short_names=names.short_names, categories=names.categories,
                            subresources=tuple(sub_infos), returns_deleted_object=False, definition=definition)
        conversion: Conversion | None = None
        stored_as = ""
        if name != stored:
            stored_as = f"{names.plural}.{group}"
            if webhook is not None:
                conversion = WebhookConversion(f"{group}/{name}", f"{group}/{stored}", names.kind,
                                               webhook.get("clientConfig") or {},
                                               tuple(webhook.get("conversionReviewVersions") or ()),
                                               webhook_addresses or {})
            else:
                conversion = VersionConversion(f"{group}/{name}", f"{group}/{stored}")
        if schema is not None and has_defaults(schema) and not isinstance(conversion, WebhookConversion):
            conversion = DefaultedOnRead(schema, conversion)
        columns = version.get("additionalPrinterColumns")
        selectable = [str(field.get("jsonPath") or "") for field in version.get("selectableFields") or ()
                      if isinstance(field, dict)]
        warnings: tuple[str, ...] = ()
        if version.get("deprecated"):
            warnings = (str(version.get("deprecationWarning") or f"{group}/{name} {names.kind} is deprecated"),)
        kinds.append(Kind(
            info, strategy, sub_strategies,
            printer=custom_resource_printer([column for column in columns or () if isinstance(column, dict)]),
            field_labels=custom_resource_labels(selectable, namespaced),
            stored_as=stored_as, conversion=conversion,
            scale=None if scale is None else Scale(scale.spec_replicas, scale.status_replicas, scale.label_selector),
            own_schema=_compiled(raw_schema),
            body_decoder=partial(_decoder, schema),
            published=published_definitions(definition, group, name, names.kind, names.list_kind, names.plural,
                                             raw_schema, selectable, spec.get("preserveUnknownFields") is True),
            warnings=warnings,
            strategic_merge_patch=False,
        ))
    return kinds


def _decoder(schema: Schema | None, remember_parts: bool) -> BodyDecoder:
    return CustomResourceDecoder(schema)


def _compiled(raw: JSON | None) -> CompiledSchema:
    """The schema as the patch, apply and managedFields machinery reads it, with metadata as an ObjectMeta."""
    raw = dict(raw or {"type": "object", "x-kubernetes-preserve-unknown-fields": True})
    properties = dict(raw.get("properties") or {})
    properties["apiVersion"] = {"type": "string"}
    properties["kind"] = {"type": "string"}
    properties["metadata"] = OBJECT_META_REF
    raw["properties"] = properties
    return CompiledSchema.of(compile_structural(raw, KUBERNETES_1_32))

