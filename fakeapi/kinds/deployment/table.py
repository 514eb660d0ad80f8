"""Deployment Table cells: upstream v1.32 `printDeployment` (wide form, as the server always prints)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fakeapi.kinds.podtemplate.cells import CONTAINERS_COLUMN, IMAGES_COLUMN, container_cells
from fakeapi.machinery.labels import selector_text
from fakeapi.machinery.tables.columns import AGE_COLUMN, NAME_COLUMN, Column, Printer
from fakeapi.machinery.tables.timefmt import age
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation.labelselector import selector_is_valid
from fakeapi.machinery.validation.values import as_dict, as_int


def deployment_cells(deployment: JSON, now: datetime) -> list[Any]:
    meta, spec, status = (as_dict(deployment.get(part)) for part in ("metadata", "spec", "status"))
    selector = spec.get("selector")
    return [
        meta.get("name", ""),
        f"{as_int(status.get('readyReplicas'))}/{as_int(spec.get('replicas'))}",
        as_int(status.get("updatedReplicas")),
        as_int(status.get("availableReplicas")),
        age(meta.get("creationTimestamp"), now),
        *container_cells(spec.get("template")),
        selector_text(as_dict(selector)) if selector_is_valid(selector) else "<invalid>",
    ]


# descriptions: the v1.32 swagger docs of extensions/v1beta1 that upstream's printer reads
_COLUMNS = (
    NAME_COLUMN,
    Column("Ready", "string", "", 0, "Number of the pod with ready state"),
    Column("Up-to-date", "string", "", 0,
           "Total number of non-terminated pods targeted by this deployment that have the desired template spec."),
    Column("Available", "string", "", 0,
           "Total number of available pods (ready for at least minReadySeconds) targeted by this deployment."),
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    Column("Selector", "string", "", 1, "Label selector for pods. Existing ReplicaSets whose pods are selected by "
                                        "this will be the ones affected by this deployment."),
)

DEPLOYMENT_PRINTER = Printer(_COLUMNS, deployment_cells)
