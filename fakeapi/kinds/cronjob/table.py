"""CronJob Table cells: upstream v1.32 `printCronJob` (wide form)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fakeapi.kinds.job.table import SELECTOR_COLUMN
from fakeapi.kinds.podtemplate.cells import CONTAINERS_COLUMN, IMAGES_COLUMN, container_cells, format_label_selector
from fakeapi.machinery.tables.columns import AGE_COLUMN, NAME_COLUMN, Column, Printer
from fakeapi.machinery.tables.timefmt import age
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation.values import as_dict, as_list


def cron_job_cells(cron_job: JSON, now: datetime) -> list[Any]:
    meta, spec, status = (as_dict(cron_job.get(part)) for part in ("metadata", "spec", "status"))
    job_spec = as_dict(as_dict(spec.get("jobTemplate")).get("spec"))
    suspend = spec.get("suspend")
    last = status.get("lastScheduleTime")
    return [
        meta.get("name", ""),
        spec.get("schedule", ""),
        spec["timeZone"] if isinstance(spec.get("timeZone"), str) else "<none>",
        "<unset>" if not isinstance(suspend, bool) else "True" if suspend else "False",
        len(as_list(status.get("active"))),
        age(last, now) if last else "<none>",
        age(meta.get("creationTimestamp"), now),
        *container_cells(job_spec.get("template")),
        format_label_selector(job_spec.get("selector")),
    ]


# descriptions: the v1.32 swagger docs of batch/v1beta1 that upstream's printer reads
_COLUMNS = (
    NAME_COLUMN,
    Column("Schedule", "string", "", 0, "The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron."),
    Column("Timezone", "string", "", 0,
           "The time zone name for the given schedule, see https://en.wikipedia.org/wiki/"
           "List_of_tz_database_time_zones. If not specified, this will default to the time zone of the "
           "kube-controller-manager process. The set of valid time zone names and the time zone offset is loaded "
           "from the system-wide time zone database by the API server during CronJob validation and the controller "
           "manager during execution. If no system-wide time zone database can be found a bundled version of the "
           "database is used instead. If the time zone name becomes invalid during the lifetime of a CronJob or due "
           "to a change in host configuration, the controller will stop creating new new Jobs and will create a "
           "system event with the reason UnknownTimeZone. More information can be found in https://kubernetes.io/"
           "docs/concepts/workloads/controllers/cron-jobs/#time-zones"),
    Column("Suspend", "boolean", "", 0, "This flag tells the controller to suspend subsequent executions, it does "
                                        "not apply to already started executions.  Defaults to false."),
    Column("Active", "integer", "", 0, "A list of pointers to currently running jobs."),
    Column("Last Schedule", "string", "", 0,
           "Information when was the last time the job was successfully scheduled."),
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    SELECTOR_COLUMN,
)

CRON_JOB_PRINTER = Printer(_COLUMNS, cron_job_cells)
