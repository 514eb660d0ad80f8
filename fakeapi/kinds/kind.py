"""What a kind is to the server: the API facts discovery and routing need (ResourceInfo), and what the kind
brings to the generic registry (its definition, strategies, Table printer, field labels)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from fakeapi.kinds.strategy import Strategy
from fakeapi.machinery.decode import BodyDecoder, DecodePlan, Decoder
from fakeapi.machinery.fieldselectors import METADATA_LABELS, FieldLabels
from fakeapi.machinery.schema.compiled import CompiledSchema
from fakeapi.machinery.schema.definitions import KUBERNETES_1_32, Definitions
from fakeapi.machinery.schema.structural import Structural
from fakeapi.machinery.tables.columns import DEFAULT_PRINTER, Printer
from fakeapi.machinery.types import JSON

ALL_VERBS = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")
STATUS_VERBS = ("get", "patch", "update")


@dataclass(frozen=True)
class SubresourceInfo:
    """A served subresource as discovery lists it: its name, the kind it answers with, its verbs."""

    name: str
    kind: str
    verbs: tuple[str, ...]
    # the group and version of `kind` when they are not the resource's (pods/eviction takes a policy/v1 Eviction)
    group: str | None = None
    version: str | None = None
    # the OpenAPI definition of `kind`, when it is not the resource's own
    definition: str | None = None


@dataclass(frozen=True)
class ResourceInfo:
    """What discovery, OpenAPI and routing say about a resource."""

    resource: str
    kind: str
    namespaced: bool
    singular: str
    group: str = ""  # "" is the core group, served under /api
    version: str = "v1"
    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    verbs: tuple[str, ...] = ALL_VERBS
    subresources: tuple[SubresourceInfo, ...] = ()
    # upstream's ReturnDeletedObject: DELETE answers the object (pods, namespaces), else a Status (events)
    returns_deleted_object: bool = True
    # upstream's OpenAPI definition of the kind, e.g. io.k8s.api.core.v1.Pod (its list's is this + "List")
    definition: str = field(kw_only=True)

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def group_resource(self) -> str:
        """The resource qualified by its group, as upstream writes a GroupResource: `leases.coordination.k8s.io`."""
        return f"{self.resource}.{self.group}" if self.group else self.resource

    @property
    def list_kind(self) -> str:
        return self.kind + "List"

    @property
    def list_definition(self) -> str:
        return self.definition + "List"


@dataclass(frozen=True)
class Scale:
    """A kind's /scale subresource (an autoscaling/v1 Scale), read from and written to paths of the object,
    as upstream's ScaleREST for built-in kinds and a CRD's `subresources.scale` declare them."""

    spec_replicas_path: str = ".spec.replicas"
    status_replicas_path: str = ".status.replicas"
    # the pods' selector: a LabelSelector (a built-in's .spec.selector) or its text (a CRD's .status.selector)
    label_selector_path: str = ""
    label_selector_is_map: bool = False  # a plain label map (a ReplicationController's .spec.selector)


SCALE_SUBRESOURCE = SubresourceInfo("scale", "Scale", ("get", "patch", "update"), group="autoscaling", version="v1",
                                    definition="io.k8s.api.autoscaling.v1.Scale")


PUBLISHED_V2 = "x-fakeapi-openapi-v2"
"""The key under which a published definition that OpenAPI v2 documents publish otherwise holds its v2 form."""


class Conversion(Protocol):
    """How a kind's objects relate to the stored ones of the kind it serves (both wire-shaped)."""

    def to_stored(self, obj: JSON) -> JSON:
        """The stored form of an object of this kind. May reuse parts of `obj`."""
        ...

    def from_stored(self, obj: JSON) -> JSON:
        """An object of this kind from its stored form. May reuse parts of `obj`."""
        ...


@dataclass(frozen=True)
class Kind:
    """A stored kind, registered in one line (fakeapi.cluster.KINDS): everything else (discovery, OpenAPI,
    routes, Table output, selectors, patch keys, apply, the control API) follows from it. Its schema is
    upstream's definition of the kind, compiled on first use."""

    info: ResourceInfo
    strategy: Strategy
    # update strategies of the subresources written like the main resource (status, resize...)
    subresource_strategies: Mapping[str, Strategy] = field(default_factory=dict)
    printer: Printer = DEFAULT_PRINTER
    field_labels: FieldLabels = METADATA_LABELS
    definitions: Definitions = KUBERNETES_1_32
    # a kind that serves another's stored objects (events.k8s.io's events are core events, as upstream's
    # cohabiting resources): the group resource they are stored under, and how they look in this kind
    stored_as: str = ""
    conversion: Conversion | None = None
    scale: Scale | None = None  # list SCALE_SUBRESOURCE among the info's subresources too
    # a kind that is none of upstream's definitions (a custom resource) brings its schema compiled, the decoder
    # of its bodies (given whether to remember parts), and the definitions it publishes in the OpenAPI documents
    own_schema: CompiledSchema | None = None
    body_decoder: Callable[[bool], BodyDecoder] | None = None
    published: Mapping[str, JSON] = field(default_factory=dict)
    strategic_merge_patch: bool = True  # custom resources have no strategic merge keys
    # warnings every request to this kind gets (a deprecated custom resource version)
    warnings: tuple[str, ...] = ()

    @property
    def storage_resource(self) -> str:
        """The group resource its objects are stored under."""
        return self.stored_as or self.info.group_resource

    @property
    def compiled(self) -> CompiledSchema:
        """The kind's schema compiled (on first use, once per process: it is package data)."""
        if self.own_schema is not None:
            return self.own_schema
        return self.definitions.compiled(self.info.definition)

    def decoder(self, remember_parts: bool = False) -> BodyDecoder:
        """A decoder of this kind's request bodies (with a memo of parts when `remember_parts`)."""
        if self.body_decoder is not None:
            return self.body_decoder(remember_parts)
        return Decoder(self.decode_plan, remember_parts=remember_parts)

    @property
    def schema(self) -> Structural:
        return self.compiled.schema

    @property
    def decode_plan(self) -> DecodePlan:
        return self.compiled.decode_plan

    @property
    def apply_plan(self) -> DecodePlan:
        return self.compiled.apply_plan

    @property
    def patch_tree(self) -> JSON:
        return self.compiled.patch_tree
