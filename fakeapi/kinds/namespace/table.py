"""Namespace Table cells: upstream v1.32 `printNamespace`."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fakeapi.machinery.tables.columns import AGE_COLUMN, NAME_COLUMN, Column, Printer
from fakeapi.machinery.tables.timefmt import age
from fakeapi.machinery.types import JSON


def namespace_cells(namespace: JSON, now: datetime) -> list[Any]:
    meta: JSON = namespace.get("metadata") or {}
    phase = (namespace.get("status") or {}).get("phase") or ""
    return [meta.get("name", ""), phase, age(meta.get("creationTimestamp"), now)]


_COLUMNS = (
    NAME_COLUMN,
    Column("Status", "string", "", 0, "The status of the namespace"),
    AGE_COLUMN,
)

NAMESPACE_PRINTER = Printer(_COLUMNS, namespace_cells)
