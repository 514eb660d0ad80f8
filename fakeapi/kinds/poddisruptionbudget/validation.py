"""PodDisruptionBudget validation (upstream policy ValidatePodDisruptionBudget and its status update)."""

from __future__ import annotations

from typing import Any

from fakeapi.kinds.workload.validation import (
    nonnegative_fields,
    not_more_than_100_percent,
    validate_positive_int_or_percent,
)
from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation.conditions import validate_conditions
from fakeapi.machinery.validation.labelselector import validate_label_selector
from fakeapi.machinery.validation.objectmeta import validate_object_meta_update
from fakeapi.machinery.validation.values import GoText, as_dict, as_str

EVICTION_POLICIES = ["AlwaysAllow", "IfHealthyBudget"]


def validate_pod_disruption_budget(budget: JSON) -> list[FieldError]:
    """The spec only: the ObjectMeta checks are the registry's generic ones (any path-segment name), as
    upstream's strategy leaves them to rest.BeforeCreate."""
    spec = as_dict(budget.get("spec"))
    errs: list[FieldError] = []
    if spec.get("minAvailable") is not None and spec.get("maxUnavailable") is not None:
        errs.append(fe.invalid("spec", GoText("policy.PodDisruptionBudgetSpec{...}"),
                               "minAvailable and maxUnavailable cannot be both set"))
    for key in ("minAvailable", "maxUnavailable"):
        if spec.get(key) is not None:
            errs += validate_positive_int_or_percent(spec[key], f"spec.{key}")
            errs += not_more_than_100_percent(spec[key], f"spec.{key}")
    errs += validate_label_selector(spec.get("selector"), "spec.selector")
    policy = spec.get("unhealthyPodEvictionPolicy")
    if policy is not None and policy not in EVICTION_POLICIES:
        errs.append(fe.not_supported("spec.unhealthyPodEvictionPolicy", as_str(policy), EVICTION_POLICIES))
    return errs


def validate_pod_disruption_budget_update(new: JSON, old: JSON) -> list[FieldError]:
    return validate_object_meta_update(as_dict(new.get("metadata")), as_dict(old.get("metadata"))) + \
        validate_pod_disruption_budget(new)


def validate_pod_disruption_budget_status_update(new: JSON, old: JSON) -> list[FieldError]:
    errs = validate_object_meta_update(as_dict(new.get("metadata")), as_dict(old.get("metadata")))
    return errs + validate_status(new.get("status"), "status")


def validate_status(status: Any, path: str) -> list[FieldError]:
    return validate_conditions(as_dict(status).get("conditions"), f"{path}.conditions") + nonnegative_fields(
        status, path, "disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods")
