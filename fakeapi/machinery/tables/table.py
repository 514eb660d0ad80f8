"""Server-side Table output (`Accept: application/json;as=Table;v=v1;g=meta.k8s.io`) for kubectl.

Rows and columns are those of upstream's printers, always in their wide form (the apiserver prints
wide and kubectl hides `priority: 1` columns itself). Objects in rows are not copied: pass objects the
caller owns (e.g. copies out of the store) and serialise the Table before they change.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

from fakeapi.http.tableaccept import parse_table_accept, table_group_version
from fakeapi.kinds.event.table import event_cells
from fakeapi.kinds.pod.table import pod_cells, pod_conditions
from fakeapi.machinery.errors import BadRequest
from fakeapi.machinery.tables.columns import column_definitions
from fakeapi.machinery.tables.timefmt import age, aware, human_duration, parse_time
from fakeapi.machinery.types import JSON

__all__ = [
    "column_definitions",
    "human_duration",
    "parse_table_accept",
    "table_group_version",
    "table_row",
    "to_table",
]

TABLE_API_VERSION = "meta.k8s.io/v1"
INCLUDE_OBJECT_VALUES = ("Metadata", "Object", "None")


def _namespace_cells(namespace: JSON, now: datetime) -> list[Any]:
    meta: JSON = namespace.get("metadata") or {}
    phase = (namespace.get("status") or {}).get("phase") or ""
    return [meta.get("name", ""), phase, age(meta.get("creationTimestamp"), now)]


def _default_cells(obj: JSON, now: datetime) -> list[Any]:
    """apiserver's default convertor: name and the creation time as RFC 3339 (Go's zero time if unset)."""
    meta: JSON = obj.get("metadata") or {}
    created = parse_time(meta.get("creationTimestamp"))
    stamp = created.strftime("%Y-%m-%dT%H:%M:%SZ") if created is not None else "0001-01-01T00:00:00Z"
    return [meta.get("name", ""), stamp]


def _check_include_object(include_object: str) -> None:
    if include_object and include_object not in INCLUDE_OBJECT_VALUES:
        quoted = json.dumps(include_object, ensure_ascii=False)  # Go's %q
        raise BadRequest(f"unrecognized includeObject value: {quoted}")


_CELLS: dict[str, Callable[[JSON, datetime], list[Any]]] = {
    "Pod": pod_cells,
    "Namespace": _namespace_cells,
    "Event": event_cells,
}


def table_row(kind: str, obj: JSON, now: datetime, include_object: str,
              *, api_version: str = TABLE_API_VERSION) -> JSON:
    """One `TableRow`; `include_object` is the `includeObject` query value ("" means Metadata).

    Raises BadRequest for any other value, with upstream's message.
    """
    _check_include_object(include_object)
    now = aware(now)
    row: JSON = {"cells": _CELLS.get(kind, _default_cells)(obj, now)}
    if kind == "Pod":
        conditions = pod_conditions(obj)
        if conditions is not None:
            row["conditions"] = conditions
    if include_object == "Object":
        row["object"] = obj
    elif include_object != "None":
        row["object"] = {"kind": "PartialObjectMetadata", "apiVersion": api_version,
                         "metadata": obj.get("metadata") or {}}
    return row


def to_table(kind: str, objs: Iterable[JSON], now: datetime, include_object: str, resource_version: str,
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
        "columnDefinitions": column_definitions(kind) if with_columns else None,
        "rows": [table_row(kind, obj, now, include_object, api_version=api_version) for obj in objs],
    }
