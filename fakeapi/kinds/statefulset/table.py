"""StatefulSet Table cells: upstream v1.32 `printStatefulSet` (wide form, as the server always prints)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fakeapi.kinds.podtemplate.cells import CONTAINERS_COLUMN, IMAGES_COLUMN, container_cells
from fakeapi.machinery.tables.columns import AGE_COLUMN, NAME_COLUMN, Column, Printer
from fakeapi.machinery.tables.timefmt import age
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation.values import as_dict, as_int


def stateful_set_cells(stateful_set: JSON, now: datetime) -> list[Any]:
    meta, spec, status = (as_dict(stateful_set.get(part)) for part in ("metadata", "spec", "status"))
    return [
        meta.get("name", ""),
        f"{as_int(status.get('readyReplicas'))}/{as_int(spec.get('replicas'))}",
        age(meta.get("creationTimestamp"), now),
        *container_cells(spec.get("template")),
    ]


STATEFUL_SET_PRINTER = Printer(
    (NAME_COLUMN, Column("Ready", "string", "", 0, "Number of the pod with ready state"), AGE_COLUMN,
     CONTAINERS_COLUMN, IMAGES_COLUMN),
    stateful_set_cells,
)
