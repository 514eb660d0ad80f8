"""The fields of an events.k8s.io/v1 Event that field selectors match (upstream's field label
conversion for events.k8s.io: the core event's fields under this version's names)."""

from __future__ import annotations

from fakeapi.kinds.event.fields import event_fields
from fakeapi.kinds.eventsv1.conversion import EventConversion
from fakeapi.machinery.fieldselectors import FieldLabels, exposed_labels
from fakeapi.machinery.types import JSON

_CONVERSION = EventConversion()
_NAMES = {
    "metadata.name": "metadata.name", "metadata.namespace": "metadata.namespace", "reason": "reason",
    "type": "type", "reportingController": "reportingComponent",
    **{f"regarding.{part}": f"involvedObject.{part}"
       for part in ("kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath")},
}


def events_v1_fields(event: JSON) -> dict[str, str]:
    core = event_fields(_CONVERSION.to_stored(event))
    return {name: core[core_name] for name, core_name in _NAMES.items()}


EVENTS_V1_FIELD_LABELS = FieldLabels(events_v1_fields, exposed_labels(events_v1_fields))
