"""Event ages for `kubectl describe`, on the server clock.

`kubectl get` shows ages the server computes (Table rows, on the server clock); `kubectl describe` computes
the ages of the events it lists from its own clock, and an event stamped by a server clock moved ahead
(`advance()`, `POST /fakeapi/v1/clock`) or frozen in the past reads `<invalid>` or hours old. So the events
listed for a `kubectl describe` (its requests say so in their `Kubectl-Command` header) carry times moved by
the server clock's distance from real time: the ages kubectl prints are then the server's. Nothing else is
changed, and every other request sees the times as stored.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import orjson
from aiohttp import web

from fakeapi.machinery.clock import Clock, parse_rfc3339, rfc3339, rfc3339_micro

DESCRIBE = "kubectl describe"
_SECOND_FIELDS = ("firstTimestamp", "lastTimestamp")
_MICRO_FIELDS = ("eventTime",)
_TOLERANCE = timedelta(seconds=1)  # a clock this close to real time needs nothing moved


def for_describe(request: web.Request, resource: str, clock: Clock, body: bytes) -> bytes:
    """The event list `body`, its times moved for a `kubectl describe` (unchanged for anything else)."""
    if resource != "events" or not request.headers.get("Kubectl-Command", "").startswith(DESCRIBE):
        return body
    offset = clock.now() - datetime.now(UTC)
    if abs(offset) < _TOLERANCE:
        return body
    listed: Any = orjson.loads(body)
    for event in listed.get("items") or []:
        _move(event, _SECOND_FIELDS, offset, rfc3339)
        _move(event, _MICRO_FIELDS, offset, rfc3339_micro)
        series = event.get("series")
        if isinstance(series, dict):
            _move(series, ("lastObservedTime",), offset, rfc3339_micro)
    return orjson.dumps(listed)


def _move(obj: dict[str, Any], fields: tuple[str, ...], offset: timedelta, write: Any) -> None:
    for field in fields:
        value = obj.get(field)
        if isinstance(value, str) and value:
            try:
                obj[field] = write(parse_rfc3339(value) - offset)
            except (ValueError, OverflowError):
                continue
