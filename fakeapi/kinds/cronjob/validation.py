"""CronJob validation (upstream batch ValidateCronJobCreate, ValidateCronJobUpdate): the schedule as robfig/cron
reads it, the time zone, the concurrency policy, and the job template (its selector generated, never set)."""

from __future__ import annotations

import re
from typing import Any

from fakeapi.kinds.cronjob.schedule import ScheduleError, parse_schedule
from fakeapi.kinds.cronjob.timezones import load_zone
from fakeapi.kinds.job.validation import validate_job_template_spec
from fakeapi.kinds.workload.validation import nonnegative
from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation import names
from fakeapi.machinery.validation.labelselector import go_label_selector
from fakeapi.machinery.validation.objectmeta import validate_object_meta, validate_object_meta_update
from fakeapi.machinery.validation.values import as_dict, as_str

CONCURRENCY_POLICIES = ["Allow", "Forbid", "Replace"]
MAX_NAME = 52  # the controller appends an 11-character suffix to make its Jobs' names (at most 63)
_TIME_ZONE_PART = re.compile(r"[A-Za-z.\-_0-9+]{1,14}")


def validate_cron_job(cron_job: JSON) -> list[FieldError]:
    meta = as_dict(cron_job.get("metadata"))
    errs = validate_object_meta(meta, True, "metadata", names.name_is_dns_subdomain)
    errs += validate_cron_job_spec(as_dict(cron_job.get("spec")), None, "spec")
    name = as_str(meta.get("name"))
    if len(name) > MAX_NAME:
        errs.append(fe.invalid("metadata.name", name, f"must be no more than {MAX_NAME} characters"))
    return errs


def validate_cron_job_update(new: JSON, old: JSON) -> list[FieldError]:
    """The update rules (not the length of the name, so older long names stay usable)."""
    errs = validate_object_meta_update(as_dict(new.get("metadata")), as_dict(old.get("metadata")))
    return errs + validate_cron_job_spec(as_dict(new.get("spec")), as_dict(old.get("spec")), "spec")


def validate_cron_job_spec(spec: JSON, old_spec: JSON | None, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    schedule = as_str(spec.get("schedule"))
    if not schedule:
        errs.append(fe.required(f"{path}.schedule"))
    else:
        allow_tz = old_spec is not None and "TZ" in as_str(old_spec.get("schedule"))
        errs += _validate_schedule(schedule, allow_tz, spec.get("timeZone"), f"{path}.schedule")
    if spec.get("startingDeadlineSeconds") is not None:
        errs += nonnegative(spec.get("startingDeadlineSeconds"), f"{path}.startingDeadlineSeconds")
    if old_spec is None or old_spec.get("timeZone") != spec.get("timeZone"):
        errs += _validate_time_zone(spec.get("timeZone"), f"{path}.timeZone")
    policy = as_str(spec.get("concurrencyPolicy"))
    if not policy:
        errs.append(fe.required(f"{path}.concurrencyPolicy"))
    elif policy not in CONCURRENCY_POLICIES:
        errs.append(fe.not_supported(f"{path}.concurrencyPolicy", policy, CONCURRENCY_POLICIES))
    errs += _validate_job_template(as_dict(spec.get("jobTemplate")), f"{path}.jobTemplate")
    for key in ("successfulJobsHistoryLimit", "failedJobsHistoryLimit"):
        if spec.get(key) is not None:
            errs += nonnegative(spec.get(key), f"{path}.{key}")
    return errs


def _validate_schedule(schedule: str, allow_tz: bool, time_zone: Any, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    try:
        parse_schedule(schedule)
    except ScheduleError as error:
        errs.append(fe.invalid(path, schedule, str(error)))
    if allow_tz and "TZ" in schedule and time_zone is not None:
        errs.append(fe.invalid(path, schedule, "cannot use both timeZone field and TZ or CRON_TZ in schedule"))
    elif not allow_tz and "TZ" in schedule:
        errs.append(fe.invalid(path, schedule, "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"))
    return errs


def _validate_time_zone(time_zone: Any, path: str) -> list[FieldError]:
    if time_zone is None:
        return []
    zone = as_str(time_zone)
    if not zone:
        return [fe.invalid(path, zone, "timeZone must be nil or non-empty string")]
    for part in zone.split("/"):
        if part in (".", "..") or part.startswith("-") or not _TIME_ZONE_PART.fullmatch(part):
            return [fe.invalid(path, zone, f"unknown time zone {zone}")]
    errs: list[FieldError] = []
    if zone.lower() == "local":
        errs.append(fe.invalid(path, zone,
                               "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"))
    if zone != "Local" and load_zone(zone) is None:
        errs.append(fe.invalid(path, zone, f"unknown time zone {zone}"))
    return errs


def _validate_job_template(template: JSON, path: str) -> list[FieldError]:
    """ValidateJobTemplateSpec: the JobSpec checks; its selector is the server's to generate."""
    spec = as_dict(template.get("spec"))
    errs = validate_job_template_spec(spec, f"{path}.spec")
    if spec.get("selector") is not None:
        errs.append(fe.invalid(f"{path}.spec.selector", go_label_selector(spec.get("selector")),
                               "`selector` will be auto-generated"))
    if spec.get("manualSelector") is True:
        errs.append(fe.not_supported(f"{path}.spec.manualSelector", True, ["nil", "false"]))
    return errs
