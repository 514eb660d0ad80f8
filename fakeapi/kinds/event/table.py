"""Event Table cells: upstream v1.32 `printEvent` (wide form, as the server always prints)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fakeapi.machinery.tables.columns import NAME_DESCRIPTION, Column, Printer
from fakeapi.machinery.tables.timefmt import age, parse_time, since
from fakeapi.machinery.types import JSON


def event_cells(event: JSON, now: datetime) -> list[Any]:
    meta: JSON = event.get("metadata") or {}
    involved: JSON = event.get("involvedObject") or {}
    source: JSON = event.get("source") or {}

    first_time = parse_time(event.get("firstTimestamp"))
    first_seen = since(first_time, now) if first_time is not None else age(event.get("eventTime"), now)
    last_time = parse_time(event.get("lastTimestamp"))
    last_seen = since(last_time, now) if last_time is not None else first_seen

    count = event.get("count") or 0
    series: JSON | None = event.get("series")
    if series is not None:
        last_seen = age(series.get("lastObservedTime"), now)
        count = series.get("count") or 0
    elif count == 0:
        count = 1  # singleton events of the new API carry no count

    kind = str(involved.get("kind") or "").lower()
    name = involved.get("name") or ""
    target = f"{kind}/{name}" if name else kind

    component = source.get("component") or event.get("reportingComponent") or ""
    instance = source.get("host") or event.get("reportingInstance") or ""
    origin = f"{component}, {instance}" if instance else component

    return [
        last_seen,
        event.get("type") or "",
        event.get("reason") or "",
        target,
        involved.get("fieldPath") or "",
        origin,
        str(event.get("message") or "").strip(),
        first_seen,
        count,  # upstream's cell is an int64, though the column says string
        meta.get("name", ""),
    ]


_FIELD_PATH = (
    "If referring to a piece of an object instead of an entire object, this string should contain a valid "
    "JSON/Go field access statement, such as desiredState.manifest.containers[2]. For example, if the object "
    "reference is to a container within a pod, this would take on a value like: \"spec.containers{name}\" "
    '(where "name" refers to the name of the container that triggered the event) or if no container name is '
    'specified "spec.containers[2]" (container with index 2 in this pod). This syntax is chosen only to have '
    "some well-defined way of referencing a part of an object."
)

_COLUMNS = (
    Column("Last Seen", "string", "", 0,
        "The time at which the most recent occurrence of this event was recorded."),
    Column("Type", "string", "", 0, "Type of this event (Normal, Warning), new types could be added in the future"),
    Column("Reason", "string", "", 0,
        "This should be a short, machine understandable string that gives the reason for the transition into "
        "the object's current status."),
    Column("Object", "string", "", 0, "The object that this event is about."),
    Column("Subobject", "string", "", 1, _FIELD_PATH),
    Column("Source", "string", "", 1,
        "The component reporting this event. Should be a short machine understandable string."),
    Column("Message", "string", "", 0, "A human-readable description of the status of this operation."),
    Column("First Seen", "string", "", 1,
        "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)"),
    Column("Count", "string", "", 1, "The number of times this event has occurred."),
    Column("Name", "string", "name", 1, NAME_DESCRIPTION),
)

EVENT_PRINTER = Printer(_COLUMNS, event_cells)
