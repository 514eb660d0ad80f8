"""Job status validation (upstream batch ValidateJobUpdateStatus with the options its status strategy gives with
JobManagedBy on, as in v1.32): the transitions a Job's status may make, checked only where the write changed
the fields involved, as upstream does."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fakeapi.kinds.job.validation import count_indexes, parse_index_interval
from fakeapi.kinds.workload.validation import nonnegative, nonnegative_fields
from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.tables.timefmt import parse_time
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation.objectmeta import validate_object_meta_update
from fakeapi.machinery.validation.values import GoText, as_dict, as_int, as_list, as_str, go_time


def condition_true(status: JSON, kind: str) -> bool:
    return any(as_dict(c).get("type") == kind and as_dict(c).get("status") == "True"
               for c in as_list(status.get("conditions")))


def finished(status: JSON) -> bool:
    return condition_true(status, "Complete") or condition_true(status, "Failed")


def _time(value: Any) -> Any:
    return go_time(value) or GoText("null")


def validate_job_status_update(new: JSON, old: JSON) -> list[FieldError]:
    errs = validate_object_meta_update(as_dict(new.get("metadata")), as_dict(old.get("metadata")))
    spec = as_dict(new.get("spec"))
    status, old_status = as_dict(new.get("status")), as_dict(old.get("status"))
    changed = {key for key in ("completedIndexes", "failedIndexes", "active", "startTime", "completionTime",
                               "uncountedTerminatedPods") if status.get(key) != old_status.get(key)}
    complete_changed = condition_true(status, "Complete") != condition_true(old_status, "Complete")
    failed_changed = condition_true(status, "Failed") != condition_true(old_status, "Failed")
    finished_changed = finished(status) != finished(old_status)
    target_changed = condition_true(status, "FailureTarget") != condition_true(old_status, "FailureTarget")
    errs += _validate_status(spec, status, changed, complete_changed, failed_changed, finished_changed,
                             target_changed)
    for kind in ("Failed", "Complete", "FailureTarget"):
        if condition_true(old_status, kind) and not condition_true(status, kind):
            errs.append(fe.invalid("status.conditions", fe.OMIT, f"cannot disable the terminal {kind}=True condition"))
    if as_int(status.get("failed")) < as_int(old_status.get("failed")):
        errs.append(fe.invalid("status.failed", as_int(status.get("failed")), "cannot decrease the failed counter"))
    elastic = spec.get("completionMode") == "Indexed" and spec.get("completions") == spec.get("parallelism")
    if not elastic and as_int(status.get("succeeded")) < as_int(old_status.get("succeeded")):
        errs.append(fe.invalid("status.succeeded", as_int(status.get("succeeded")),
                               "cannot decrease the succeeded counter"))
    completion, old_completion = status.get("completionTime"), old_status.get("completionTime")
    if completion and old_completion and go_time(completion) != go_time(old_completion):
        errs.append(fe.invalid("status.completionTime", _time(completion), "completionTime cannot be mutated"))
    if "startTime" in changed and old_status.get("startTime") and spec.get("suspend") is not True:
        errs.append(fe.required("status.startTime", "startTime cannot be removed for unsuspended job"))
    if condition_true(old_status, "SuccessCriteriaMet") and not condition_true(status, "SuccessCriteriaMet"):
        errs.append(fe.invalid("status.conditions", fe.OMIT, "cannot disable the SuccessCriteriaMet=True condition"))
    if (condition_true(old_status, "Complete") and not condition_true(old_status, "SuccessCriteriaMet")
            and condition_true(status, "SuccessCriteriaMet")):
        errs.append(fe.invalid("status.conditions", fe.OMIT,
                               "cannot set SuccessCriteriaMet=True for Job already has Complete=true conditions"))
    return errs


def _validate_status(spec: JSON, status: JSON, changed: set[str], complete_changed: bool, failed_changed: bool,
                     finished_changed: bool, target_changed: bool) -> list[FieldError]:
    path = "status"
    errs = nonnegative_fields(status, path, "active", "succeeded", "failed")
    for key in ("ready", "terminating"):
        if status.get(key) is not None:
            errs += nonnegative(status.get(key), f"{path}.{key}")
    uncounted = status.get("uncountedTerminatedPods")
    if isinstance(uncounted, dict):
        seen: set[str] = set()
        for key in ("succeeded", "failed"):
            for index, uid in enumerate(as_list(uncounted.get(key))):
                at = f"{path}.uncountedTerminatedPods.{key}[{index}]"
                if not uid:
                    errs.append(fe.invalid(at, as_str(uid), "must not be empty"))
                elif uid in seen:
                    errs.append(fe.duplicate(at, uid))
                else:
                    seen.add(uid)
    complete, failed = condition_true(status, "Complete"), condition_true(status, "Failed")
    if (complete_changed or failed_changed) and complete and failed:
        errs.append(fe.invalid(f"{path}.conditions", fe.OMIT, "cannot set Complete=True and Failed=true conditions"))
    if (complete_changed or target_changed) and complete and condition_true(status, "FailureTarget"):
        errs.append(fe.invalid(f"{path}.conditions", fe.OMIT,
                               "cannot set Complete=True and FailureTarget=true conditions"))
    completion, start = status.get("completionTime"), status.get("startTime")
    if (complete_changed or "completionTime" in changed) and completion and not complete:
        errs.append(fe.invalid(f"{path}.completionTime", _time(completion),
                               "cannot set completionTime when there is no Complete=True condition"))
    if (complete_changed or "completionTime" in changed) and not completion and complete:
        errs.append(fe.required(f"{path}.completionTime", "completionTime is required for Complete jobs"))
    if ("startTime" in changed or "completionTime" in changed) and start and completion:
        started, completed = parse_time(start), parse_time(completion)
        if isinstance(started, datetime) and isinstance(completed, datetime) and completed < started:
            errs.append(fe.invalid(f"{path}.completionTime", _time(completion),
                                   "completionTime cannot be set before startTime"))
    is_finished = finished(status)
    if (finished_changed or "active" in changed) and as_int(status.get("active")) > 0 and is_finished:
        errs.append(fe.invalid(f"{path}.active", as_int(status.get("active")), "active>0 is invalid for finished job"))
    if (finished_changed or "startTime" in changed) and not start and is_finished:
        errs.append(fe.required(f"{path}.startTime", "startTime is required for finished job"))
    if (finished_changed or "uncountedTerminatedPods" in changed) and is_finished and isinstance(uncounted, dict) \
            and (as_list(uncounted.get("failed")) or as_list(uncounted.get("succeeded"))):
        errs.append(fe.invalid(f"{path}.uncountedTerminatedPods", GoText("batch.UncountedTerminatedPods{...}"),
                               "uncountedTerminatedPods needs to be empty for finished job"))
    errs += _validate_indexes(spec, status, changed, path)
    criteria_met = condition_true(status, "SuccessCriteriaMet")
    if criteria_met and failed:
        errs.append(fe.invalid(f"{path}.conditions", fe.OMIT,
                               "cannot set SuccessCriteriaMet=True and Failed=true conditions"))
    if criteria_met and condition_true(status, "FailureTarget"):
        errs.append(fe.invalid(f"{path}.conditions", fe.OMIT,
                               "cannot set SuccessCriteriaMet=True and FailureTarget=true conditions"))
    if spec.get("successPolicy") is not None and not criteria_met and complete:
        errs.append(fe.invalid(f"{path}.conditions", fe.OMIT,
                               "cannot set Complete=True for Job with SuccessPolicy unless SuccessCriteriaMet=True"))
    return errs


def _validate_indexes(spec: JSON, status: JSON, changed: set[str], path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    completions = spec.get("completions")
    completed, failed = as_str(status.get("completedIndexes")), status.get("failedIndexes")
    if "completedIndexes" in changed and isinstance(completions, int):
        try:
            count_indexes(completed, completions)
        except ValueError as error:
            errs.append(fe.invalid(f"{path}.completedIndexes", completed, f"error parsing completedIndexes: {error}"))
    if ("failedIndexes" in changed and isinstance(completions, int) and spec.get("backoffLimitPerIndex") is not None
            and failed is not None):
        try:
            count_indexes(as_str(failed), completions)
        except ValueError as error:
            errs.append(fe.invalid(f"{path}.failedIndexes", as_str(failed), f"error parsing failedIndexes: {error}"))
    if "completedIndexes" in changed and completed and spec.get("completionMode") != "Indexed":
        errs.append(fe.invalid(f"{path}.completedIndexes", completed,
                               "cannot set non-empty completedIndexes when non-indexed completion mode"))
    if "failedIndexes" in changed and spec.get("backoffLimitPerIndex") is None and failed is not None:
        errs.append(fe.invalid(f"{path}.failedIndexes", as_str(failed),
                               "cannot set non-null failedIndexes when backoffLimitPerIndex is null"))
    if changed & {"failedIndexes", "completedIndexes"} and isinstance(completions, int) and failed is not None:
        overlap = _overlap(completed, as_str(failed), completions)
        if overlap is not None:
            errs.append(fe.invalid(f"{path}.failedIndexes", as_str(failed),
                                   f"failedIndexes and completedIndexes overlap at index: {overlap}"))
    return errs


def _overlap(completed: str, failed: str, completions: int) -> int | None:
    """The first index both lists name (intervals that do not parse are skipped, as upstream skips them)."""
    def intervals(text: str) -> list[tuple[int, int]]:
        found = []
        for part in text.split(",") if text else []:
            try:
                found.append(parse_index_interval(part, completions))
            except ValueError:
                continue
        return found

    for low, high in intervals(completed):
        for other_low, other_high in intervals(failed):
            if low <= other_high and other_low <= high:
                return max(low, other_low)
    return None
