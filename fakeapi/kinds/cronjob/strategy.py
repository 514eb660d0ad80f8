"""CronJob strategies (upstream pkg/registry/batch/cronjob/strategy.go) and its defaults (batch/v1
SetDefaults_CronJob; the job template gets the JobSpec parts' defaults, not SetDefaults_Job's)."""

from __future__ import annotations

from fakeapi.kinds.cronjob.validation import validate_cron_job, validate_cron_job_update
from fakeapi.kinds.job.defaults import default_job_spec_parts
from fakeapi.kinds.job.strategy import job_spec_warnings
from fakeapi.kinds.workload.strategy import WorkloadStatusStrategy, WorkloadStrategy
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation.values import as_dict

DEFINITION = "io.k8s.api.batch.v1.CronJob"
JOB_SPEC_PATH = "spec.jobTemplate.spec"


def default_cron_job(cron_job: JSON) -> None:
    spec = cron_job.get("spec")
    if not isinstance(spec, dict):
        return
    if not spec.get("concurrencyPolicy"):
        spec["concurrencyPolicy"] = "Allow"
    if spec.get("suspend") is None:
        spec["suspend"] = False
    if spec.get("successfulJobsHistoryLimit") is None:
        spec["successfulJobsHistoryLimit"] = 3
    if spec.get("failedJobsHistoryLimit") is None:
        spec["failedJobsHistoryLimit"] = 1
    default_job_spec_parts(as_dict(spec.get("jobTemplate")).get("spec"))


class CronJobStrategy(WorkloadStrategy):
    template_path = ("spec", "jobTemplate", "spec", "template")

    def __init__(self) -> None:
        super().__init__(DEFINITION)

    def default(self, obj: JSON) -> None:
        default_cron_job(obj)

    def validate(self, obj: JSON) -> list[FieldError]:
        return validate_cron_job(obj)

    def validate_update(self, new: JSON, old: JSON) -> list[FieldError]:
        return validate_cron_job_update(new, old)

    def template_warnings(self, obj: JSON) -> list[str]:
        job_spec = as_dict(as_dict(as_dict(obj.get("spec")).get("jobTemplate")).get("spec"))
        return job_spec_warnings(job_spec, JOB_SPEC_PATH) + super().template_warnings(obj)


class CronJobStatusStrategy(WorkloadStatusStrategy):
    """cronjobs/status: the spec is the stored one; upstream does not validate a CronJob's status."""

    template_path = CronJobStrategy.template_path

    def __init__(self) -> None:
        super().__init__(DEFINITION)
