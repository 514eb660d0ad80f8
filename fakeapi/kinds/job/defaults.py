"""Decode-time defaulting of Jobs and of the job templates of CronJobs (upstream batch/v1 SetDefaults_Job and
SetDefaults_PodFailurePolicyOnPodConditionsPattern, and the pod template's)."""

from __future__ import annotations

from typing import Any

from fakeapi.kinds.podtemplate.defaults import default_pod_template
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation.values import as_dict, as_list

MAX_INT32 = 2**31 - 1


def default_job(job: JSON) -> None:
    """SetDefaults_Job. It runs on every write, status writes included: a Job whose labels are empty takes its
    template's (the generated selector labels among them, once the first write after the create came)."""
    spec = job.get("spec")
    if not isinstance(spec, dict):
        return
    if spec.get("completions") is None and spec.get("parallelism") is None:
        spec["completions"] = 1
        spec["parallelism"] = 1
    if spec.get("parallelism") is None:
        spec["parallelism"] = 1
    if spec.get("backoffLimit") is None:
        spec["backoffLimit"] = MAX_INT32 if spec.get("backoffLimitPerIndex") is not None else 6
    template_labels = as_dict(as_dict(spec.get("template")).get("metadata")).get("labels")
    meta = job.setdefault("metadata", {})
    if isinstance(template_labels, dict) and isinstance(meta, dict) and not meta.get("labels"):
        meta["labels"] = dict(template_labels)
    if spec.get("completionMode") is None:
        spec["completionMode"] = "NonIndexed"
    if spec.get("suspend") is None:
        spec["suspend"] = False
    if spec.get("podReplacementPolicy") is None:  # JobPodReplacementPolicy, on since v1.29
        spec["podReplacementPolicy"] = "Failed" if spec.get("podFailurePolicy") is not None else "TerminatingOrFailed"
    if spec.get("manualSelector") is None:
        spec["manualSelector"] = False
    default_job_spec_parts(spec)


def default_job_spec_parts(spec: Any) -> None:
    """The defaults of what a JobSpec holds, which a CronJob's job template gets too: the pod failure policy's
    condition patterns (status True) and the pod template."""
    spec = as_dict(spec)
    for rule in as_list(as_dict(spec.get("podFailurePolicy")).get("rules")):
        for pattern in as_list(as_dict(rule).get("onPodConditions")):
            if isinstance(pattern, dict) and not pattern.get("status"):
                pattern["status"] = "True"
    default_pod_template(spec.get("template"))
