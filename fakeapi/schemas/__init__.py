"""marshmallow schemas for every object fakeapi serves: the single source of truth for decoding,
the OpenAPI documents and the strategic-merge-patch keys.

`SCHEMAS` holds one instance per Kind, created once at import.
"""

from __future__ import annotations

from marshmallow import Schema

from fakeapi.schemas.binding import BindingSchema
from fakeapi.schemas.event import EventListSchema, EventSchema
from fakeapi.schemas.meta import DeleteOptionsSchema, ObjectMetaSchema, StatusSchema
from fakeapi.schemas.namespace import NamespaceListSchema, NamespaceSchema
from fakeapi.schemas.patchtree import patch_tree
from fakeapi.schemas.pod import PodListSchema, PodSchema, PodSpecSchema
from fakeapi.schemas.podstatus import PodStatusSchema

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
