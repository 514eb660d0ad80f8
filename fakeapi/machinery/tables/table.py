"""Server-side Table output (`Accept: application/json;as=Table;v=v1;g=meta.k8s.io`) for kubectl.

Rows and columns are those of upstream's printers, always in their wide form (the apiserver prints
wide and kubectl hides `priority: 1` columns itself). Objects in rows are not copied: pass objects the
caller owns (e.g. copies out of the store) and serialise the Table before they change.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime

from fakeapi.machinery.errors import BadRequest
from fakeapi.machinery.tables.columns import Printer
from fakeapi.machinery.tables.timefmt import aware
from fakeapi.machinery.types import JSON

TABLE_API_VERSION = "meta.k8s.io/v1"
INCLUDE_OBJECT_VALUES = ("Metadata", "Object", "None")


def _check_include_object(include_object: str) -> None:
    if include_object and include_object not in INCLUDE_OBJECT_VALUES:
        quoted = json.dumps(include_object, ensure_ascii=False)  # Go's %q
        raise BadRequest(f"unrecognized includeObject value: {quoted}")


def table_row(printer: Printer, obj: JSON, now: datetime, include_object: str,
              *, api_version: str = TABLE_API_VERSION) -> JSON:
    """One `TableRow`; `include_object` is the `includeObject` query value ("" means Metadata).

    Raises BadRequest for any other value, with upstream's message.
    """
    _check_include_object(include_object)
    row: JSON = {"cells": printer.cells(obj, aware(now))}
    if printer.conditions is not None:
        conditions = printer.conditions(obj)
        if conditions is not None:
            row["conditions"] = conditions
    if include_object == "Object":
        row["object"] = obj
    elif include_object != "None":
        row["object"] = {"kind": "PartialObjectMetadata", "apiVersion": api_version,
                         "metadata": obj.get("metadata") or {}}
    return row


def to_table(printer: Printer, objs: Iterable[JSON], now: datetime, include_object: str, resource_version: str,
             with_columns: bool = True, continue_token: str | None = None, remaining: int | None = None,
             *, api_version: str = TABLE_API_VERSION) -> JSON:
    """A whole `Table`: a list, a single GET (one row) or one watch event's object.

    Without columns (watch events after the first) `columnDefinitions` is null, as upstream sends it.
    """
    _check_include_object(include_object)
    now = aware(now)
    metadata: JSON = {"resourceVersion": resource_version}
    if continue_token:
        metadata["continue"] = continue_token
    if remaining is not None:
        metadata["remainingItemCount"] = remaining
    return {
        "kind": "Table",
        "apiVersion": api_version,
        "metadata": metadata,
        "columnDefinitions": [column.definition() for column in printer.columns] if with_columns else None,
        "rows": [table_row(printer, obj, now, include_object, api_version=api_version) for obj in objs],
    }
