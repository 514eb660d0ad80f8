"""events.k8s.io/v1 Event: the core events, seen through the newer API (upstream's cohabiting resources:
one object, stored once, a name taken in one API is taken in the other)."""

from __future__ import annotations

from fakeapi.kinds.event import EVENT
from fakeapi.kinds.event.table import EVENT_PRINTER
from fakeapi.kinds.eventsv1.conversion import EVENTS_V1, EventConversion
from fakeapi.kinds.eventsv1.fields import EVENTS_V1_FIELD_LABELS
from fakeapi.kinds.eventsv1.strategy import EventsV1Strategy
from fakeapi.kinds.kind import Kind, ResourceInfo
from fakeapi.machinery.tables.columns import Printer

_CONVERSION = EventConversion()

EVENTS_V1_EVENT = Kind(
    ResourceInfo("events", "Event", namespaced=True, singular="event", short_names=("ev",),
                 group="events.k8s.io", returns_deleted_object=False, definition=EVENTS_V1),
    EventsV1Strategy(),
    printer=Printer(EVENT_PRINTER.columns, lambda event, now: EVENT_PRINTER.cells(_CONVERSION.to_stored(event), now)),
    field_labels=EVENTS_V1_FIELD_LABELS,
    stored_as=EVENT.storage_resource,
    conversion=_CONVERSION,
)
