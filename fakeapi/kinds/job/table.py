"""Job Table cells: upstream v1.32 `printJob` (status, completions, duration; wide form)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fakeapi.kinds.job.status import condition_true
from fakeapi.kinds.podtemplate.cells import CONTAINERS_COLUMN, IMAGES_COLUMN, container_cells, format_label_selector
from fakeapi.machinery.tables.columns import AGE_COLUMN, NAME_COLUMN, Column, Printer
from fakeapi.machinery.tables.timefmt import age, aware, human_duration, parse_time
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation.values import as_dict, as_int


def job_status(job: JSON) -> str:
    status = as_dict(job.get("status"))
    if condition_true(status, "Complete"):
        return "Complete"
    if condition_true(status, "Failed"):
        return "Failed"
    if as_dict(job.get("metadata")).get("deletionTimestamp"):
        return "Terminating"
    if condition_true(status, "Suspended"):
        return "Suspended"
    if condition_true(status, "FailureTarget"):
        return "FailureTarget"
    return "Running"


def completions(spec: JSON, status: JSON) -> str:
    succeeded = as_int(status.get("succeeded"))
    if spec.get("completions") is not None:
        return f"{succeeded}/{as_int(spec.get('completions'))}"
    parallelism = as_int(spec.get("parallelism"))
    return f"{succeeded}/1 of {parallelism}" if parallelism > 1 else f"{succeeded}/1"


def duration(status: JSON, now: datetime) -> str:
    started, completed = parse_time(status.get("startTime")), parse_time(status.get("completionTime"))
    if started is None:
        return ""
    return human_duration(((completed or aware(now)) - started).total_seconds())


def job_cells(job: JSON, now: datetime) -> list[Any]:
    meta, spec, status = (as_dict(job.get(part)) for part in ("metadata", "spec", "status"))
    return [meta.get("name", ""), job_status(job), completions(spec, status), duration(status, now),
            age(meta.get("creationTimestamp"), now), *container_cells(spec.get("template")),
            format_label_selector(spec.get("selector"))]


# descriptions: the v1.32 swagger docs of batch/v1 that upstream's printer reads
SELECTOR_COLUMN = Column("Selector", "string", "", 1,
                         "A label query over pods that should match the pod count. Normally, the system sets this "
                         "field for you. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/"
                         "labels/#label-selectors")
_COLUMNS = (
    NAME_COLUMN,
    Column("Status", "string", "", 0, "Status of the job."),
    Column("Completions", "string", "", 0,
           "The number of pods which reached phase Succeeded. The value increases monotonically for a given spec. "
           "However, it may decrease in reaction to scale down of elastic indexed jobs."),
    Column("Duration", "string", "", 0, "Time required to complete the job."),
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    SELECTOR_COLUMN,
)

JOB_PRINTER = Printer(_COLUMNS, job_cells)
