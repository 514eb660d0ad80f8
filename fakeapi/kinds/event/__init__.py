"""core/v1 Event: strategy, validation and Table columns."""

from __future__ import annotations

from fakeapi.kinds.event.fields import EVENT_FIELD_LABELS
from fakeapi.kinds.event.strategy import EventStrategy
from fakeapi.kinds.event.table import EVENT_PRINTER
from fakeapi.kinds.kind import Kind, ResourceInfo

EVENT = Kind(
    ResourceInfo("events", "Event", namespaced=True, singular="event", short_names=("ev",),
                 returns_deleted_object=False, definition="io.k8s.api.core.v1.Event"),
    EventStrategy(),
    printer=EVENT_PRINTER,
    field_labels=EVENT_FIELD_LABELS,
)
