"""Deployment validation (upstream apps ValidateDeployment, ValidateDeploymentUpdate,
ValidateDeploymentStatusUpdate), with its messages and field paths."""

from __future__ import annotations

from typing import Any

from fakeapi.kinds.workload.replicated import validate_selector_and_template
from fakeapi.kinds.workload.validation import (
    go_int_or_string,
    go_strategy,
    int_or_percent_value,
    is_decremented,
    nonnegative,
    nonnegative_fields,
    not_more_than_100_percent,
    replica_counts_not_above,
    validate_positive_int_or_percent,
)
from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation import names
from fakeapi.machinery.validation.labelselector import go_label_selector
from fakeapi.machinery.validation.objectmeta import FIELD_IMMUTABLE, validate_object_meta, validate_object_meta_update
from fakeapi.machinery.validation.values import as_dict, as_int, semantic_equal

STRATEGY_TYPES = ["Recreate", "RollingUpdate"]


def validate_deployment(deployment: JSON) -> list[FieldError]:
    errs = validate_object_meta(as_dict(deployment.get("metadata")), True, "metadata", names.name_is_dns_subdomain)
    return errs + validate_deployment_spec(as_dict(deployment.get("spec")), "spec")


def validate_deployment_update(new: JSON, old: JSON) -> list[FieldError]:
    """ValidateDeploymentUpdate, and the selector immutability apps/v1 adds in the strategy."""
    errs = validate_object_meta_update(as_dict(new.get("metadata")), as_dict(old.get("metadata")))
    errs += validate_deployment_spec(as_dict(new.get("spec")), "spec")
    return errs + validate_immutable_selector(new, old)


def validate_immutable_selector(new: JSON, old: JSON) -> list[FieldError]:
    selector, old_selector = as_dict(new.get("spec")).get("selector"), as_dict(old.get("spec")).get("selector")
    if semantic_equal(selector, old_selector):
        return []
    return [fe.invalid("spec.selector", go_label_selector(selector), FIELD_IMMUTABLE)]


def validate_deployment_spec(spec: JSON, path: str) -> list[FieldError]:
    errs = nonnegative(spec.get("replicas"), f"{path}.replicas")
    errs += validate_selector_and_template(spec, path)
    errs += _validate_strategy(as_dict(spec.get("strategy")), f"{path}.strategy")
    errs += nonnegative(spec.get("minReadySeconds"), f"{path}.minReadySeconds")
    if spec.get("revisionHistoryLimit") is not None:
        errs += nonnegative(spec.get("revisionHistoryLimit"), f"{path}.revisionHistoryLimit")
    deadline = spec.get("progressDeadlineSeconds")
    if deadline is not None:
        errs += nonnegative(deadline, f"{path}.progressDeadlineSeconds")
        if as_int(deadline) <= as_int(spec.get("minReadySeconds")):
            errs.append(fe.invalid(f"{path}.progressDeadlineSeconds", as_int(deadline),
                                   "must be greater than minReadySeconds"))
    return errs


def _validate_strategy(strategy: JSON, path: str) -> list[FieldError]:
    kind = strategy.get("type")
    rolling = strategy.get("rollingUpdate")
    if kind == "Recreate":
        if rolling is not None:
            return [fe.forbidden(f"{path}.rollingUpdate", "may not be specified when strategy `type` is 'Recreate'")]
        return []
    if kind == "RollingUpdate":
        if rolling is None:
            return [fe.required(f"{path}.rollingUpdate", "this should be defaulted and never be nil")]
        return _validate_rolling_update(as_dict(rolling), f"{path}.rollingUpdate")
    return [fe.not_supported(path, go_strategy("apps.DeploymentStrategy", strategy, "apps.RollingUpdateDeployment"),
                             STRATEGY_TYPES)]


def _validate_rolling_update(rolling: JSON, path: str) -> list[FieldError]:
    unavailable, surge = rolling.get("maxUnavailable"), rolling.get("maxSurge")
    errs = validate_positive_int_or_percent(unavailable, f"{path}.maxUnavailable")
    errs += validate_positive_int_or_percent(surge, f"{path}.maxSurge")
    if int_or_percent_value(unavailable) == 0 and int_or_percent_value(surge) == 0:
        errs.append(fe.invalid(f"{path}.maxUnavailable", go_int_or_string(unavailable),
                               "may not be 0 when `maxSurge` is 0"))
    return errs + not_more_than_100_percent(unavailable, f"{path}.maxUnavailable")




def validate_deployment_status_update(new: JSON, old: JSON) -> list[FieldError]:
    """ValidateDeploymentStatusUpdate: non-negative counts, none above replicas, collisionCount never down."""
    errs = validate_object_meta_update(as_dict(new.get("metadata")), as_dict(old.get("metadata")))
    status = as_dict(new.get("status"))
    errs += validate_deployment_status(status, "status")
    if is_decremented(status.get("collisionCount"), as_dict(old.get("status")).get("collisionCount")):
        errs.append(fe.invalid("status.collisionCount", as_int(status.get("collisionCount")), "cannot be decremented"))
    return errs


def validate_deployment_status(status: Any, path: str) -> list[FieldError]:
    status = as_dict(status)
    errs = nonnegative_fields(status, path, "observedGeneration", "replicas", "updatedReplicas", "readyReplicas",
                              "availableReplicas", "unavailableReplicas")
    if status.get("collisionCount") is not None:
        errs += nonnegative(status.get("collisionCount"), f"{path}.collisionCount")
    errs += replica_counts_not_above(status, path, "updatedReplicas", "readyReplicas", "availableReplicas")
    if as_int(status.get("availableReplicas")) > as_int(status.get("readyReplicas")):
        errs.append(fe.invalid(f"{path}.availableReplicas", as_int(status.get("availableReplicas")),
                               "cannot be greater than readyReplicas"))
    return errs
