"""Job strategies (upstream pkg/registry/batch/job/strategy.go): the generated selector, the main resource and
jobs/status."""

from __future__ import annotations

from fakeapi.kinds.job.defaults import default_job
from fakeapi.kinds.job.status import validate_job_status_update
from fakeapi.kinds.job.validation import (
    CONTROLLER_UID,
    JOB_NAME,
    LEGACY_CONTROLLER_UID,
    LEGACY_JOB_NAME,
    JobOptions,
    validate_job,
    validate_job_update,
)
from fakeapi.kinds.strategy import ORPHAN_DEPENDENTS
from fakeapi.kinds.workload.strategy import WorkloadStatusStrategy, WorkloadStrategy
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation.values import as_dict, as_str

DEFINITION = "io.k8s.api.batch.v1.Job"
INDEXED_WARNING = ("In Indexed Jobs with a number of completions higher than 10^5 and a parallelism higher than "
                   "10^4, Kubernetes might not be able to track completedIndexes when a big number of indexes fail")


def generate_selector(job: JSON) -> None:
    """generateSelectorIfNeeded: unless manualSelector, the template gets the job-name and controller-uid labels
    (both spellings; ones the client set stay, and validation says when they are wrong) and the selector the
    job's uid."""
    spec = as_dict(job.get("spec"))
    if spec.get("manualSelector") is True or not isinstance(job.get("spec"), dict):
        return
    meta = as_dict(job.get("metadata"))
    name, uid = as_str(meta.get("name")), as_str(meta.get("uid"))
    template = spec.setdefault("template", {})
    template_meta = template.setdefault("metadata", {})
    labels = dict(as_dict(template_meta.get("labels")))
    for key, value in ((LEGACY_JOB_NAME, name), (JOB_NAME, name), (LEGACY_CONTROLLER_UID, uid), (CONTROLLER_UID, uid)):
        labels.setdefault(key, value)
    template_meta["labels"] = labels
    selector = spec.get("selector")
    selector = dict(selector) if isinstance(selector, dict) else {}
    match_labels = dict(as_dict(selector.get("matchLabels")))
    match_labels.setdefault(CONTROLLER_UID, uid)
    selector["matchLabels"] = match_labels
    spec["selector"] = selector


def update_options(new: JSON, old: JSON) -> JobOptions:
    """What an update may do: the scheduling directives of a suspended Job that never started may change; the
    prefixed labels are required only of Jobs that had them."""
    old_spec, old_status = as_dict(old.get("spec")), as_dict(old.get("status"))
    labels = as_dict(as_dict(as_dict(old_spec.get("template")).get("metadata")).get("labels"))
    return JobOptions(require_prefixed_labels=JOB_NAME in labels and CONTROLLER_UID in labels,
                      allow_mutable_scheduling_directives=old_spec.get("suspend") is True
                      and not old_status.get("startTime"))


def job_spec_warnings(spec: JSON, path: str) -> list[str]:
    """WarningsForJobSpec: the Indexed Job tracking warning; the template's are the strategy's."""
    if spec.get("completionMode") == "Indexed":
        completions, parallelism = spec.get("completions"), spec.get("parallelism")
        if isinstance(completions, int) and isinstance(parallelism, int) and completions > 100_000 \
                and parallelism > 10_000:
            return [f"{path}: {INDEXED_WARNING}"]
    return []


class JobStrategy(WorkloadStrategy):
    # batch/v1's default: a delete that names no propagation policy orphans the pods, with upstream's warning
    garbage_collection_policy = ORPHAN_DEPENDENTS
    delete_without_policy_warning = (
        "child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove "
        "them or set propagationPolicy=Orphan to suppress this warning")

    def __init__(self) -> None:
        super().__init__(DEFINITION)

    def default(self, obj: JSON) -> None:
        default_job(obj)

    def prepare_for_create(self, obj: JSON) -> None:
        generate_selector(obj)
        super().prepare_for_create(obj)

    def validate(self, obj: JSON) -> list[FieldError]:
        return validate_job(obj, JobOptions())

    def validate_update(self, new: JSON, old: JSON) -> list[FieldError]:
        return validate_job_update(new, old, update_options(new, old))

    def template_warnings(self, obj: JSON) -> list[str]:
        return job_spec_warnings(as_dict(obj.get("spec")), "spec") + super().template_warnings(obj)


class JobStatusStrategy(WorkloadStatusStrategy):
    def __init__(self) -> None:
        super().__init__(DEFINITION)

    def default(self, obj: JSON) -> None:
        default_job(obj)  # upstream defaults every write: an unlabelled Job takes its template's labels here

    def validate_update(self, new: JSON, old: JSON) -> list[FieldError]:
        return validate_job_status_update(new, old)
