"""batch/v1 CronJob: defaults, strategies (cronjob, status), validation (the schedule as robfig/cron reads it,
`timeZone`) and Table columns."""

from __future__ import annotations

from fakeapi.kinds.cronjob.strategy import DEFINITION, CronJobStatusStrategy, CronJobStrategy
from fakeapi.kinds.cronjob.table import CRON_JOB_PRINTER
from fakeapi.kinds.kind import STATUS_VERBS, Kind, ResourceInfo, SubresourceInfo

CRON_JOB = Kind(
    ResourceInfo(
        "cronjobs", "CronJob", namespaced=True, singular="cronjob", group="batch", short_names=("cj",),
        categories=("all",), returns_deleted_object=False,
        subresources=(SubresourceInfo("status", "CronJob", STATUS_VERBS),),
        definition=DEFINITION,
    ),
    CronJobStrategy(),
    {"status": CronJobStatusStrategy()},
    CRON_JOB_PRINTER,
)
