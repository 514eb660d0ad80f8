"""A custom resource's Table (upstream's CRD table convertor): Name, then the version's
additionalPrinterColumns (Age when there are none), each the first value its JSONPath finds, typed as
the column says (a date as its age; a string column prints what it finds as JSONPath prints it)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import orjson

from fakeapi.machinery.jsonpath import JsonPath, JsonPathError
from fakeapi.machinery.tables.columns import CREATED_DESCRIPTION, NAME_COLUMN, Column, Printer
from fakeapi.machinery.tables.timefmt import age, parse_time
from fakeapi.machinery.types import JSON

AGE_COLUMN = {"name": "Age", "type": "date", "description": CREATED_DESCRIPTION,
              "jsonPath": ".metadata.creationTimestamp"}


def custom_resource_printer(columns: list[JSON]) -> Printer:
    columns = columns or [AGE_COLUMN]
    paths: list[tuple[JsonPath | None, str]] = []
    definitions = [NAME_COLUMN]
    for column in columns:
        path_text = str(column.get("jsonPath") or "")
        try:
            path: JsonPath | None = JsonPath(path_text)
        except JsonPathError:
            path = None
        kind = str(column.get("type") or "string")
        paths.append((path, kind))
        description = column.get("description") or \
            f"Custom resource definition column (in JSONPath format): {path_text}"
        definitions.append(Column(str(column.get("name") or ""), kind, str(column.get("format") or ""),
                                  int(column.get("priority") or 0), str(description)))

    def cells(obj: JSON, now: datetime) -> list[Any]:
        row: list[Any] = [(obj.get("metadata") or {}).get("name", "")]
        for path, kind in paths:
            found = path.values(obj) if path is not None else []
            row.append(_cell(kind, found[0], now) if found else None)
        return row

    return Printer(tuple(definitions), cells)


def _cell(kind: str, value: Any, now: datetime) -> Any:
    if value is None:
        return None
    if kind == "string":
        if isinstance(value, str):
            return value
        if isinstance(value, bool):
            return "true" if value else "false"
        return orjson.dumps(value).decode() if isinstance(value, dict | list) else str(value)
    if kind == "integer" and isinstance(value, int | float) and not isinstance(value, bool):
        return int(value)
    if kind == "number" and isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if kind == "boolean" and isinstance(value, bool):
        return value
    if kind == "date" and isinstance(value, str):
        return age(value, now) if parse_time(value) is not None else "<invalid>"
    return None
