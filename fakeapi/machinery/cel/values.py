"""A custom resource's values as rules see them (upstream's UnstructuredToVal): object properties under their
escaped names, `number` values as doubles, date and date-time strings as timestamps, durations, and `byte`
strings as bytes. A value that does not parse stays a string, as the schema's own validation reports it."""

from __future__ import annotations

import base64
import binascii
import re
from datetime import UTC, datetime, timedelta
from typing import Any

from google.protobuf import duration_pb2, timestamp_pb2

from fakeapi.machinery.cel.decltypes import DeclType

_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0,
          "w": 604800.0}
_DURATION_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)\s*(ns|us|µs|ms|s|m|h|d|w)")
_DATE_TIME = re.compile(r"^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)([Zz]|[+-]\d{2}:?\d{2})?$")


def converts(decl: DeclType, memo: dict[int, bool]) -> bool:
    """Whether values of `decl` need converting (else they are passed as they are)."""
    found = memo.get(id(decl))
    if found is not None:
        return found
    if decl.kind in ("timestamp", "duration", "bytes", "double"):
        found = True
    elif decl.kind == "object":
        found = any(escaped != field.name or converts(field.type, memo) for escaped, field in decl.fields.items())
    elif decl.elem is not None:
        found = converts(decl.elem, memo)
    else:
        found = False
    memo[id(decl)] = found
    return found


def to_cel(value: Any, decl: DeclType | None, memo: dict[int, bool]) -> Any:
    if decl is None or value is None or not converts(decl, memo):
        return value
    kind = decl.kind
    if kind == "object" and isinstance(value, dict):
        renamed = {field.name: escaped for escaped, field in decl.fields.items()}
        converted = {}
        for key, item in value.items():
            escaped = renamed.get(key)
            converted[escaped or key] = to_cel(item, decl.fields[escaped].type, memo) if escaped else item
        return converted
    if kind == "list" and isinstance(value, list):
        return [to_cel(item, decl.elem, memo) for item in value]
    if kind == "map" and isinstance(value, dict):
        return {key: to_cel(item, decl.elem, memo) for key, item in value.items()}
    if kind == "double" and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        if kind == "timestamp":
            return _timestamp(value, decl.date_only)
        if kind == "duration":
            return _duration(value)
        if kind == "bytes":
            try:
                return base64.b64decode(value, validate=True)
            except (binascii.Error, ValueError):
                return value
    return value


def _timestamp(text: str, date_only: bool) -> Any:
    """A google.protobuf.Timestamp, which the runtime takes as a CEL timestamp."""
    try:
        if date_only:
            return _proto_time(datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=UTC))
        found = _DATE_TIME.match(text)
        if found is None:
            return text
        day, clock, zone = found.groups()
        if clock.count(":") == 1:
            clock += ":00"
        zone = "+00:00" if zone in (None, "Z", "z") else zone
        if len(zone) == 5:
            zone = f"{zone[:3]}:{zone[3:]}"
        return _proto_time(datetime.fromisoformat(f"{day}T{clock}{zone}"))
    except ValueError:
        return text


def _proto_time(moment: datetime) -> Any:
    stamp = timestamp_pb2.Timestamp()
    stamp.FromDatetime(moment)
    return stamp


def _duration(text: str) -> Any:
    compact = text.replace(" ", "")
    parts = _DURATION_PART.findall(compact)
    if not parts or "".join(number + unit for number, unit in parts) != compact:
        return text
    duration = duration_pb2.Duration()
    duration.FromTimedelta(timedelta(seconds=sum(float(number) * _UNITS[unit] for number, unit in parts)))
    return duration


def size_of(value: Any) -> int:
    """The size CEL gives a value: characters, bytes, items or entries."""
    if isinstance(value, str | bytes | list | dict):
        return len(value)
    return 0
