"""The fields of an Event that field selectors match (upstream's event ToSelectableFields)."""

from __future__ import annotations

from fakeapi.machinery.fieldselectors import FieldLabels, exposed_labels
from fakeapi.machinery.types import JSON

_NONE: JSON = {}


def event_fields(event: JSON) -> dict[str, str]:
    meta = event.get("metadata") or _NONE
    involved = event.get("involvedObject") or _NONE
    reporting = event.get("reportingComponent") or ""
    return {
        "involvedObject.kind": involved.get("kind") or "",
        "involvedObject.namespace": involved.get("namespace") or "",
        "involvedObject.name": involved.get("name") or "",
        "involvedObject.uid": involved.get("uid") or "",
        "involvedObject.apiVersion": involved.get("apiVersion") or "",
        "involvedObject.resourceVersion": involved.get("resourceVersion") or "",
        "involvedObject.fieldPath": involved.get("fieldPath") or "",
        "reason": event.get("reason") or "",
        "reportingComponent": reporting,
        "source": (event.get("source") or _NONE).get("component") or reporting,
        "type": event.get("type") or "",
        "metadata.name": meta.get("name") or "",
        "metadata.namespace": meta.get("namespace") or "",
    }


EVENT_FIELD_LABELS = FieldLabels(event_fields, exposed_labels(event_fields))
