"""What a kind is to the server: the API facts discovery and routing need (ResourceInfo), and what the kind
brings to the generic registry (schema, strategies, Table printer, field labels)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from fakeapi.kinds.strategy import Strategy
from fakeapi.machinery.decode import DecodePlan, decode_plan
from fakeapi.machinery.fieldselectors import METADATA_LABELS, FieldLabels
from fakeapi.machinery.schemas.base import K8sSchema
from fakeapi.machinery.schemas.patchtree import patch_tree
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

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def list_kind(self) -> str:
        return self.kind + "List"


@dataclass(frozen=True)
class Kind:
    """A stored kind, registered in one line (fakeapi.cluster.KINDS): everything else (discovery, OpenAPI,
    routes, Table output, selectors, patch keys, apply, the control API) follows from it."""

    info: ResourceInfo
    schema: K8sSchema
    list_schema: type[K8sSchema]
    strategy: Strategy
    # update strategies of the subresources written like the main resource (status, resize...)
    subresource_strategies: Mapping[str, Strategy] = field(default_factory=dict)
    printer: Printer = DEFAULT_PRINTER
    field_labels: FieldLabels = METADATA_LABELS
    # compiled from the schema when the kind is built (code, not request data, so every server shares
    # them): how its bodies are decoded, and its strategic-merge-patch keys
    decode_plan: DecodePlan = field(init=False, repr=False, compare=False)
    apply_plan: DecodePlan = field(init=False, repr=False, compare=False)  # for applied configurations
    patch_tree: JSON = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "decode_plan", decode_plan(self.schema))  # frozen: set here only
        object.__setattr__(self, "apply_plan", decode_plan(self.schema, partial=True))
        object.__setattr__(self, "patch_tree", patch_tree(self.schema))
