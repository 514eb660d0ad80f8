"""DaemonSet validation (upstream apps ValidateDaemonSet, ValidateDaemonSetUpdate,
ValidateDaemonSetStatusUpdate)."""

from __future__ import annotations

from typing import Any

from fakeapi.kinds.deployment.validation import validate_immutable_selector
from fakeapi.kinds.podtemplate.validation import (
    validate_pod_template_spec,
    validate_restart_always,
    validate_selector_matches_template,
)
from fakeapi.kinds.workload.validation import (
    go_int_or_string,
    go_strategy,
    int_or_percent_value,
    is_decremented,
    nonnegative,
    nonnegative_fields,
    not_more_than_100_percent,
    validate_positive_int_or_percent,
)
from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation import names
from fakeapi.machinery.validation.labelselector import (
    go_label_selector,
    selector_is_empty,
    selector_is_valid,
    validate_label_selector,
)
from fakeapi.machinery.validation.objectmeta import validate_object_meta, validate_object_meta_update
from fakeapi.machinery.validation.values import as_dict, as_int

STRATEGY_TYPES = ["RollingUpdate", "OnDelete"]


def validate_daemon_set(daemon_set: JSON) -> list[FieldError]:
    errs = validate_object_meta(as_dict(daemon_set.get("metadata")), True, "metadata", names.name_is_dns_subdomain)
    return errs + validate_daemon_set_spec(as_dict(daemon_set.get("spec")), "spec")


def validate_daemon_set_update(new: JSON, old: JSON) -> list[FieldError]:
    """ObjectMeta, the spec again, and the selector apps/v1 keeps immutable (the template generation, which
    upstream also checks here, is the server's own: see the strategy)."""
    errs = validate_object_meta_update(as_dict(new.get("metadata")), as_dict(old.get("metadata")))
    errs += validate_daemon_set_spec(as_dict(new.get("spec")), "spec")
    return errs + validate_immutable_selector(new, old)


def validate_daemon_set_spec(spec: JSON, path: str) -> list[FieldError]:
    selector, template = spec.get("selector"), spec.get("template")
    errs = validate_label_selector(selector, f"{path}.selector")
    if selector_is_valid(selector):
        errs += validate_selector_matches_template(selector, template, f"{path}.template")
    if selector is not None and selector_is_empty(selector):
        errs.append(fe.invalid(f"{path}.selector", go_label_selector(selector),
                               "empty selector is invalid for daemonset"))
    errs += validate_pod_template_spec(template, f"{path}.template")
    errs += validate_restart_always(template, f"{path}.template", "DaemonSet")
    errs += nonnegative(spec.get("minReadySeconds"), f"{path}.minReadySeconds")
    errs += _validate_update_strategy(as_dict(spec.get("updateStrategy")), f"{path}.updateStrategy")
    if spec.get("revisionHistoryLimit") is not None:
        errs += nonnegative(spec.get("revisionHistoryLimit"), f"{path}.revisionHistoryLimit")
    return errs


def _validate_update_strategy(strategy: JSON, path: str) -> list[FieldError]:
    kind, rolling = strategy.get("type"), strategy.get("rollingUpdate")
    if kind == "OnDelete":
        return []
    if kind == "RollingUpdate":
        if rolling is None:
            return [fe.required(f"{path}.rollingUpdate")]
        return _validate_rolling_update(as_dict(rolling), f"{path}.rollingUpdate")
    shown = go_strategy("apps.DaemonSetUpdateStrategy", strategy, "apps.RollingUpdateDaemonSet")
    return [fe.not_supported(path, shown, STRATEGY_TYPES)]


def _validate_rolling_update(rolling: JSON, path: str) -> list[FieldError]:
    """Each a non-negative int or a percentage of at most 100%, exactly one of them non-zero."""
    unavailable, surge = rolling.get("maxUnavailable"), rolling.get("maxSurge")
    errs = validate_positive_int_or_percent(unavailable, f"{path}.maxUnavailable")
    errs += validate_positive_int_or_percent(surge, f"{path}.maxSurge")
    errs += not_more_than_100_percent(unavailable, f"{path}.maxUnavailable")
    errs += not_more_than_100_percent(surge, f"{path}.maxSurge")
    has_unavailable, has_surge = int_or_percent_value(unavailable) != 0, int_or_percent_value(surge) != 0
    if has_unavailable and has_surge:
        errs.append(fe.invalid(f"{path}.maxSurge", go_int_or_string(surge),
                               "may not be set when maxUnavailable is non-zero"))
    elif not has_unavailable and not has_surge:
        errs.append(fe.required(f"{path}.maxUnavailable", "cannot be 0 when maxSurge is 0"))
    return errs


def validate_daemon_set_status_update(new: JSON, old: JSON) -> list[FieldError]:
    errs = validate_object_meta_update(as_dict(new.get("metadata")), as_dict(old.get("metadata")))
    status = as_dict(new.get("status"))
    errs += validate_daemon_set_status(status, "status")
    if is_decremented(status.get("collisionCount"), as_dict(old.get("status")).get("collisionCount")):
        errs.append(fe.invalid("status.collisionCount", as_int(status.get("collisionCount")), "cannot be decremented"))
    return errs


def validate_daemon_set_status(status: Any, path: str) -> list[FieldError]:
    errs = nonnegative_fields(status, path, "currentNumberScheduled", "numberMisscheduled", "desiredNumberScheduled",
                              "numberReady", "observedGeneration", "updatedNumberScheduled", "numberAvailable",
                              "numberUnavailable")
    if as_dict(status).get("collisionCount") is not None:
        errs += nonnegative(as_dict(status).get("collisionCount"), f"{path}.collisionCount")
    return errs
