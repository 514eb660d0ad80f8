"""Table printers: a kind's column definitions (upstream v1.32's names, formats, priorities and
descriptions) and the function that fills one row's cells."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple

from fakeapi.machinery.clock import rfc3339
from fakeapi.machinery.jsonpath import JsonPath
from fakeapi.machinery.tables.timefmt import age, parse_time
from fakeapi.machinery.types import JSON

# Descriptions are the v1.32 swagger docs upstream's printers read via `SwaggerDoc()`.
NAME_DESCRIPTION = (
    "Name must be unique within a namespace. Is required when creating resources, although some resources "
    "may allow a client to request the generation of an appropriate name automatically. Name is primarily "
    "intended for creation idempotence and configuration definition. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"
)
CREATED_DESCRIPTION = (
    "CreationTimestamp is a timestamp representing the server time when this object was created. It is not "
    "guaranteed to be set in happens-before order across separate operations. Clients may not set this "
    "value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for "
    "lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md"
    "#metadata"
)


class Column(NamedTuple):
    name: str
    type: str
    format: str
    priority: int  # 1: shown by kubectl only with -o wide
    description: str

    def definition(self) -> JSON:
        return {"name": self.name, "type": self.type, "format": self.format,
                "description": self.description, "priority": self.priority}


NAME_COLUMN = Column("Name", "string", "name", 0, NAME_DESCRIPTION)
AGE_COLUMN = Column("Age", "string", "", 0, CREATED_DESCRIPTION)


@dataclass(frozen=True)
class Printer:
    """How a kind prints as a Table row (upstream's printers.go handler for it)."""

    columns: tuple[Column, ...]
    cells: Callable[[JSON, datetime], list[Any]]
    conditions: Callable[[JSON], list[JSON] | None] | None = None  # `row.conditions`, for pods


def _default_cells(obj: JSON, now: datetime) -> list[Any]:
    """Name and the creation time as RFC 3339 (Go's zero time if unset)."""
    meta: JSON = obj.get("metadata") or {}
    created = parse_time(meta.get("creationTimestamp"))
    stamp = rfc3339(created) if created is not None else "0001-01-01T00:00:00Z"
    return [meta.get("name", ""), stamp]


# apiserver's default table convertor, for kinds without a printer of their own
DEFAULT_PRINTER = Printer((NAME_COLUMN, Column("Created At", "date", "", 0, CREATED_DESCRIPTION)), _default_cells)


class PathColumn(NamedTuple):
    """A column whose cell is what a JSONPath finds in the object (a CRD's additionalPrinterColumns; the
    simple columns of built-in kinds)."""

    column: Column
    path: str  # e.g. .spec.holderIdentity
    age: bool = False  # the value is a time, shown as its age (upstream's translateTimestampSince)
    missing: Any = None  # the cell when the path finds nothing (built-in printers write "")


def path_printer(columns: tuple[PathColumn, ...]) -> Printer:
    """A printer whose cells are the first value each column's path finds (upstream's CRD table
    convertor: one result per cell)."""
    compiled = [(JsonPath(column.path), column) for column in columns]

    def cells(obj: JSON, now: datetime) -> list[Any]:
        row: list[Any] = []
        for path, column in compiled:
            found = path.values(obj)
            if not found:
                row.append(column.missing)
            elif column.age:
                row.append(age(found[0], now) if isinstance(found[0], str) else column.missing)
            else:
                row.append(found[0])
        return row

    return Printer(tuple(column.column for column in columns), cells)
