"""Event Table cells: upstream v1.32 `printEvent` (wide form, as the server always prints)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

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
