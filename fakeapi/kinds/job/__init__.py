"""batch/v1 Job: defaults, the generated selector, strategies (job, status), validation (Indexed completion,
podFailurePolicy, backoffLimitPerIndex, successPolicy, suspend), the status.successful field selector and Table
columns."""

from __future__ import annotations

from fakeapi.kinds.job.fields import JOB_FIELD_LABELS
from fakeapi.kinds.job.strategy import DEFINITION, JobStatusStrategy, JobStrategy
from fakeapi.kinds.job.table import JOB_PRINTER
from fakeapi.kinds.kind import STATUS_VERBS, Kind, ResourceInfo, SubresourceInfo

JOB = Kind(
    ResourceInfo(
        "jobs", "Job", namespaced=True, singular="job", group="batch", categories=("all",),
        returns_deleted_object=False, subresources=(SubresourceInfo("status", "Job", STATUS_VERBS),),
        definition=DEFINITION,
    ),
    JobStrategy(),
    {"status": JobStatusStrategy()},
    JOB_PRINTER,
    JOB_FIELD_LABELS,
)
