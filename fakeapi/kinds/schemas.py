"""marshmallow schemas for every object fakeapi serves: the single source of truth for decoding,
the OpenAPI documents and the strategic-merge-patch keys.

`SCHEMAS` holds one instance per Kind, created once at import.
"""

from __future__ import annotations

from marshmallow import Schema

from fakeapi.kinds.event.schema import EventListSchema, EventSchema
from fakeapi.kinds.namespace.schema import NamespaceListSchema, NamespaceSchema
from fakeapi.kinds.pod.schema.binding import BindingSchema
from fakeapi.kinds.pod.schema.pod import PodListSchema, PodSchema, PodSpecSchema
from fakeapi.kinds.pod.schema.status import PodStatusSchema
from fakeapi.machinery.schemas.meta import DeleteOptionsSchema, ObjectMetaSchema, StatusSchema
from fakeapi.machinery.schemas.patchtree import patch_tree

__all__ = [
    "SCHEMAS",
    "BindingSchema",
    "DeleteOptionsSchema",
    "EventListSchema",
    "EventSchema",
    "NamespaceListSchema",
    "NamespaceSchema",
    "ObjectMetaSchema",
    "PodListSchema",
    "PodSchema",
    "PodSpecSchema",
    "PodStatusSchema",
    "StatusSchema",
    "patch_tree",
]

SCHEMAS: dict[str, Schema] = {
    "Pod": PodSchema(),
    "Namespace": NamespaceSchema(),
    "Event": EventSchema(),
    "Binding": BindingSchema(),
    "DeleteOptions": DeleteOptionsSchema(),
    "Status": StatusSchema(),
}
