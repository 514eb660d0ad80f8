"""DaemonSet Table cells: upstream v1.32 `printDaemonSet` (wide form, as the server always prints)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fakeapi.kinds.podtemplate.cells import (
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    container_cells,
    format_label_selector,
    format_labels,
)
from fakeapi.machinery.tables.columns import AGE_COLUMN, NAME_COLUMN, Column, Printer
from fakeapi.machinery.tables.timefmt import age
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation.values import as_dict, as_int


def daemon_set_cells(daemon_set: JSON, now: datetime) -> list[Any]:
    meta, spec, status = (as_dict(daemon_set.get(part)) for part in ("metadata", "spec", "status"))
    template = as_dict(spec.get("template"))
    return [
        meta.get("name", ""),
        *(as_int(status.get(key)) for key in ("desiredNumberScheduled", "currentNumberScheduled", "numberReady",
                                               "updatedNumberScheduled", "numberAvailable")),
        format_labels(as_dict(template.get("spec")).get("nodeSelector")),
        age(meta.get("creationTimestamp"), now),
        *container_cells(template),
        format_label_selector(spec.get("selector")),
    ]


# descriptions: the v1.32 swagger docs of extensions/v1beta1 and core/v1 that upstream's printer reads
_COLUMNS = (
    NAME_COLUMN,
    Column("Desired", "integer", "", 0,
           "The total number of nodes that should be running the daemon pod (including nodes correctly running the "
           "daemon pod). More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/"),
    Column("Current", "integer", "", 0,
           "The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod. More "
           "info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/"),
    Column("Ready", "integer", "", 0, "The number of nodes that should be running the daemon pod and have one or "
                                      "more of the daemon pod running and ready."),
    Column("Up-to-date", "integer", "", 0, "The total number of nodes that are running updated daemon pod"),
    Column("Available", "integer", "", 0,
           "The number of nodes that should be running the daemon pod and have one or more of the daemon pod "
           "running and available (ready for at least spec.minReadySeconds)"),
    Column("Node Selector", "string", "", 0,
           "NodeSelector is a selector which must be true for the pod to fit on a node. Selector which must match a "
           "node's labels for the pod to be scheduled on that node. More info: https://kubernetes.io/docs/concepts/"
           "configuration/assign-pod-node/"),
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    Column("Selector", "string", "", 1,
           "A label query over pods that are managed by the daemon set. Must match in order to be controlled. If "
           "empty, defaulted to labels on Pod template. More info: https://kubernetes.io/docs/concepts/overview/"
           "working-with-objects/labels/#label-selectors"),
)

DAEMON_SET_PRINTER = Printer(_COLUMNS, daemon_set_cells)
