"""events.k8s.io/v1 Event strategy: the core event strategy, with the stricter checks upstream's
ValidateEventCreate / ValidateEventUpdate apply to requests of events.k8s.io/v1 (and later versions).

It works on the stored (core/v1) form, as upstream's works on its internal Event: the field paths of its
errors are the internal names (`involvedObject.namespace`, `firstTimestamp`), as upstream's are.
"""

from __future__ import annotations

from typing import Any

from fakeapi.kinds.event.strategy import EventStrategy, validate_event
from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation.objectmeta import FIELD_IMMUTABLE

EVENT_TYPES = ("Normal", "Warning")
# the fields an update through events.k8s.io may not change (ValidateEventUpdate), by internal name
_IMMUTABLE = ("involvedObject", "reason", "message", "source", "firstTimestamp", "lastTimestamp", "count",
              "type", "eventTime", "action", "related", "reportingComponent", "reportingInstance")
_PATHS = {"reportingComponent": "reportingController"}


class EventsV1Strategy(EventStrategy):
    def validate(self, obj: JSON) -> list[FieldError]:
        errs = validate_event(obj) + _series_errors(obj)
        if not obj.get("eventTime"):
            errs.append(fe.required("eventTime"))
        event_type = obj.get("type") or ""
        if event_type not in EVENT_TYPES:
            errs.append(fe.invalid("type", "", f"has invalid value: {event_type}"))
        for key in ("firstTimestamp", "lastTimestamp", "count"):
            if obj.get(key):
                errs.append(fe.invalid(key, "", "needs to be unset"))
        source = obj.get("source") or {}
        if source.get("component") or source.get("host"):
            errs.append(fe.invalid("source", "", "needs to be unset"))
        return errs

    def validate_update(self, new: JSON, old: JSON) -> list[FieldError]:
        errs = validate_event(new)
        if new.get("series") != old.get("series"):
            errs += _series_errors(new)
        for key in _IMMUTABLE:
            if _value(new, key) != _value(old, key):
                errs.append(fe.invalid(_PATHS.get(key, key), _value(new, key), FIELD_IMMUTABLE))
        return errs


def _value(event: JSON, key: str) -> Any:
    """A field as Go compares it: absent is its zero value."""
    value = event.get(key)
    return value if value not in (None, "", 0, {}) else None


def _series_errors(event: JSON) -> list[FieldError]:
    series = event.get("series")
    if series is None:
        return []
    errs: list[FieldError] = []
    if (series.get("count") or 0) < 2:
        errs.append(fe.invalid("series.count", "", "should be at least 2"))
    if not series.get("lastObservedTime"):
        errs.append(fe.required("series.lastObservedTime"))
    return errs
