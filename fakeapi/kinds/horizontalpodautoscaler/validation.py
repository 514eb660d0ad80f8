"""HorizontalPodAutoscaler validation (upstream autoscaling ValidateHorizontalPodAutoscaler and its status
update), on the stored (v2) form, as upstream validates its internal form whichever version was written."""

from __future__ import annotations

from typing import Any

from fakeapi.kinds.workload.validation import nonnegative_fields
from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation import names
from fakeapi.machinery.validation.objectmeta import validate_object_meta, validate_object_meta_update
from fakeapi.machinery.validation.values import as_dict, as_int, as_list, as_str, quantity

METRIC_TYPES = ["ContainerResource", "External", "Object", "Pods", "Resource"]
SOURCE_FIELDS = {"Object": "object", "Pods": "pods", "Resource": "resource", "ContainerResource": "containerResource",
                 "External": "external"}
TARGET_TYPES = ("Utilization", "Value", "AverageValue")
POPULATE = "must populate information for the given metric source"


def validate_autoscaler(autoscaler: JSON) -> list[FieldError]:
    errs = validate_object_meta(as_dict(autoscaler.get("metadata")), True, "metadata", names.name_is_dns_subdomain)
    return errs + _validate_spec(as_dict(autoscaler.get("spec")), "spec")


def validate_autoscaler_update(new: JSON, old: JSON) -> list[FieldError]:
    errs = validate_object_meta_update(as_dict(new.get("metadata")), as_dict(old.get("metadata")))
    return errs + _validate_spec(as_dict(new.get("spec")), "spec")


def validate_autoscaler_status_update(new: JSON, old: JSON) -> list[FieldError]:
    errs = validate_object_meta_update(as_dict(new.get("metadata")), as_dict(old.get("metadata")))
    return errs + nonnegative_fields(new.get("status"), "status", "currentReplicas", "desiredReplicas")


def _validate_spec(spec: JSON, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    minimum, maximum = spec.get("minReplicas"), as_int(spec.get("maxReplicas"))
    if minimum is not None and as_int(minimum) < 1:
        errs.append(fe.invalid(f"{path}.minReplicas", as_int(minimum), "must be greater than or equal to 1"))
    if maximum < 1:
        errs.append(fe.invalid(f"{path}.maxReplicas", maximum, "must be greater than 0"))
    if minimum is not None and maximum < as_int(minimum):
        errs.append(fe.invalid(f"{path}.maxReplicas", maximum, "must be greater than or equal to `minReplicas`"))
    reference = as_dict(spec.get("scaleTargetRef"))
    for key in ("kind", "name"):
        value = as_str(reference.get(key))
        if not value:
            errs.append(fe.required(f"{path}.scaleTargetRef.{key}"))
        else:
            at = f"{path}.scaleTargetRef.{key}"
            errs += [fe.invalid(at, value, message) for message in names.path_segment_name(value, False)]
    for index, metric in enumerate(as_list(spec.get("metrics"))):
        errs += _validate_metric(as_dict(metric), f"{path}.metrics[{index}]")
    return errs


def _validate_metric(metric: JSON, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    kind = as_str(metric.get("type"))
    if not kind:
        errs.append(fe.required(f"{path}.type", "must specify a metric source type"))
    if kind not in METRIC_TYPES:
        errs.append(fe.not_supported(f"{path}.type", kind, METRIC_TYPES))
    expected = SOURCE_FIELDS.get(kind, "")
    if expected and metric.get(expected) is None:
        errs.append(fe.required(f"{path}.{expected}", POPULATE))
    for field in SOURCE_FIELDS.values():
        if field != expected and metric.get(field) is not None:
            errs.append(fe.forbidden(f"{path}.{field}", "must populate the given metric source only"))
    for field in ("resource", "containerResource"):
        source = metric.get(field)
        if isinstance(source, dict):
            errs += _validate_resource_source(source, f"{path}.{field}")
    return errs


def _validate_resource_source(source: JSON, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    if not as_str(source.get("name")):
        errs.append(fe.required(f"{path}.name", "must specify a resource name"))
    target = as_dict(source.get("target"))
    errs += _validate_target(target, f"{path}.target")
    if target.get("averageUtilization") is None and target.get("averageValue") is None:
        errs.append(fe.required(f"{path}.target.averageUtilization",
                                "must set either a target raw value or a target utilization"))
    if target.get("averageUtilization") is not None and target.get("averageValue") is not None:
        errs.append(fe.forbidden(f"{path}.target.averageValue",
                                 "may not set both a target raw value and a target utilization"))
    return errs


def _validate_target(target: JSON, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    kind = as_str(target.get("type"))
    if not kind:
        errs.append(fe.required(f"{path}.type", "must specify a metric target type"))
    if kind not in TARGET_TYPES:
        errs.append(fe.invalid(f"{path}.type", kind, "must be either Utilization, Value, or AverageValue"))
    for key in ("value", "averageValue"):
        amount: Any = target.get(key)
        if amount is not None and not (quantity(amount) or 0) > 0:
            errs.append(fe.invalid(f"{path}.{key}", as_str(amount), "must be positive"))
    utilization = target.get("averageUtilization")
    if utilization is not None and as_int(utilization) < 1:
        errs.append(fe.invalid(f"{path}.averageUtilization", as_int(utilization), "must be greater than 0"))
    return errs
