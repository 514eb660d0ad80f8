"""ReplicaSet Table cells: upstream v1.32 `printReplicaSet` (wide form, as the server always prints)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fakeapi.kinds.podtemplate.cells import CONTAINERS_COLUMN, IMAGES_COLUMN, container_cells, format_label_selector
from fakeapi.machinery.tables.columns import AGE_COLUMN, NAME_COLUMN, Column, Printer
from fakeapi.machinery.tables.timefmt import age
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation.values import as_dict, as_int


def replica_set_cells(replica_set: JSON, now: datetime) -> list[Any]:
    meta, spec, status = (as_dict(replica_set.get(part)) for part in ("metadata", "spec", "status"))
    return [
        meta.get("name", ""),
        as_int(spec.get("replicas")),
        as_int(status.get("replicas")),
        as_int(status.get("readyReplicas")),
        age(meta.get("creationTimestamp"), now),
        *container_cells(spec.get("template")),
        format_label_selector(spec.get("selector")),
    ]


# descriptions: the v1.32 swagger docs of extensions/v1beta1 that upstream's printer reads
_COLUMNS = (
    NAME_COLUMN,
    Column("Desired", "integer", "", 0,
           "Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and "
           "unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/"
           "replicationcontroller/#what-is-a-replicationcontroller"),
    Column("Current", "integer", "", 0,
           "Replicas is the most recently observed number of replicas. More info: https://kubernetes.io/docs/"
           "concepts/workloads/controllers/replicationcontroller/#what-is-a-replicationcontroller"),
    Column("Ready", "integer", "", 0, "The number of ready replicas for this replica set."),
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    Column("Selector", "string", "", 1,
           "Selector is a label query over pods that should match the replica count. If the selector is empty, it "
           "is defaulted to the labels present on the pod template. Label keys and values that must match in order "
           "to be controlled by this replica set. More info: https://kubernetes.io/docs/concepts/overview/"
           "working-with-objects/labels/#label-selectors"),
)

REPLICA_SET_PRINTER = Printer(_COLUMNS, replica_set_cells)
