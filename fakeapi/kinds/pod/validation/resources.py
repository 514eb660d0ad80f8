"""Resource names, quantities and requirements (containers, pod-level resources, overhead)."""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from fakeapi.kinds.pod.requests import aggregate_containers
from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.quantity import format_quantity
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation import names
from fakeapi.machinery.validation.resources import is_extended, is_native, quantity_errors
from fakeapi.machinery.validation.values import as_dict, as_list, as_str, quantity, quantity_text

ResourceNameCheck = Callable[[str, str], list[FieldError]]

HUGEPAGES_PREFIX = "hugepages-"
_STANDARD_CONTAINER = frozenset({"cpu", "memory", "ephemeral-storage"})
_STANDARD = frozenset(
    {
        "cpu", "memory", "ephemeral-storage",
        "requests.cpu", "requests.memory", "requests.ephemeral-storage",
        "limits.cpu", "limits.memory", "limits.ephemeral-storage",
        "pods", "resourcequotas", "services", "replicationcontrollers", "secrets", "configmaps",
        "persistentvolumeclaims", "storage", "requests.storage", "services.nodeports",
        "services.loadbalancers",
    }
)  # fmt: skip
_NO_OVERCOMMIT = frozenset({"alpha.kubernetes.io/nvidia-gpu"})
_POD_LEVEL = ("cpu", "memory")
_QOS_RESOURCES = frozenset(_POD_LEVEL)


def is_hugepages(name: str) -> bool:
    return name.startswith(HUGEPAGES_PREFIX)


def is_overcommit_allowed(name: str) -> bool:
    return is_native(name) and not is_hugepages(name) and name not in _NO_OVERCOMMIT


def _is_standard(name: str) -> bool:
    return name in _STANDARD or is_hugepages(name) or name.startswith("requests." + HUGEPAGES_PREFIX)


def validate_resource_name(name: str, path: str) -> list[FieldError]:
    errs = [fe.invalid(path, name, msg) for msg in names.is_qualified_name(name)]
    if errs:
        return errs
    if "/" not in name and not _is_standard(name):
        return [fe.invalid(path, name, "must be a standard resource type or fully qualified")]
    return []


def validate_container_resource_name(name: str, path: str) -> list[FieldError]:
    errs = validate_resource_name(name, path)
    if "/" not in name:
        if name not in _STANDARD_CONTAINER and not is_hugepages(name):
            errs.append(fe.invalid(path, name, "must be a standard resource for containers"))
    elif not is_native(name) and not is_extended(name):
        errs.append(fe.invalid(path, name, "doesn't follow extended resource name standard"))
    return errs


def validate_pod_resource_name(name: str, path: str) -> list[FieldError]:
    errs = validate_resource_name(name, path)
    if errs:
        return errs
    if name not in _POD_LEVEL and not is_hugepages(name):
        return [fe.not_supported(path, name, list(_POD_LEVEL))]
    return []


def _hugepage_error(name: str, raw: Any, value: Fraction) -> str | None:
    page = quantity(name[len(HUGEPAGES_PREFIX) :])
    if page is not None and page > 0 and math.ceil(value) % math.ceil(page) == 0:
        return None
    return f"{quantity_text(raw)} is not positive integer multiple of {name}"


def validate_requirements(
    requirements: JSON, path: str, name_check: ResourceNameCheck, pod_claims: set[str]
) -> list[FieldError]:
    """ValidateResourceRequirements: names, quantities, requests <= limits (reported at the unkeyed
    `requests` path), non-overcommittable resources, hugepages, claims."""
    errs: list[FieldError] = []
    limits, requests = as_dict(requirements.get("limits")), as_dict(requirements.get("requests"))
    limits_path, requests_path = f"{path}.limits", f"{path}.requests"
    has_cpu_or_memory = has_hugepages = False
    limit_values: dict[str, Fraction | None] = {}
    for name, raw in limits.items():
        value = limit_values[name] = quantity(raw)
        if name in _QOS_RESOURCES:
            has_cpu_or_memory = True
            if value is not None and value >= 0 and name_check is not validate_pod_resource_name:
                continue  # the common case, valid by construction
        at = f"{limits_path}[{name}]"
        errs += name_check(name, at)
        if value is not None:
            errs += quantity_errors(name, raw, value, at)
        if is_hugepages(name):
            has_hugepages = True
            problem = _hugepage_error(name, raw, value) if value is not None else None
            if problem:
                errs.append(fe.invalid(at, quantity_text(raw), problem))
    for name, raw in requests.items():
        value = quantity(raw)
        common = name in _QOS_RESOURCES and value is not None and value >= 0
        if not common or name_check is validate_pod_resource_name:
            at = f"{requests_path}[{name}]"
            errs += name_check(name, at)
            if value is not None:
                errs += quantity_errors(name, raw, value, at)
        if name in limits:
            limit = limit_values[name]
            if value is not None and limit is not None and value != limit:
                if not is_overcommit_allowed(name):
                    detail = f"must be equal to {name} limit of {quantity_text(limits[name])}"
                    errs.append(fe.invalid(requests_path, quantity_text(raw), detail))
                elif value > limit:
                    detail = f"must be less than or equal to {name} limit of {quantity_text(limits[name])}"
                    errs.append(fe.invalid(requests_path, quantity_text(raw), detail))
        elif not is_overcommit_allowed(name):
            errs.append(fe.required(limits_path, "Limit must be set for non overcommitable resources"))
        if is_hugepages(name):
            has_hugepages = True
            problem = _hugepage_error(name, raw, value) if value is not None else None
            if problem:
                errs.append(fe.invalid(f"{requests_path}[{name}]", quantity_text(raw), problem))
        has_cpu_or_memory = has_cpu_or_memory or name in _QOS_RESOURCES
    if has_hugepages and not has_cpu_or_memory:
        errs.append(fe.forbidden(path, "HugePages require cpu or memory"))
    if requirements.get("claims"):
        errs += _validate_claim_names(requirements.get("claims"), pod_claims, f"{path}.claims")
    return errs


def _validate_claim_names(claims: Any, pod_claims: set[str], path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    seen: set[str] = set()
    for index, raw in enumerate(as_list(claims)):
        claim, at = as_dict(raw), f"{path}[{index}]"
        name, request = as_str(claim.get("name")), as_str(claim.get("request"))
        if not name:
            errs.append(fe.required(at))
            continue
        if name in seen:
            errs.append(fe.duplicate(at, name))
        else:
            key = name
            if request:
                errs += [fe.invalid(f"{at}.request", request, m) for m in names.is_dns1123_label(request)]
                key = f"{name}/{request}"
            if key in seen:
                errs.append(fe.duplicate(at, key))
            elif not request:
                errs += [
                    fe.duplicate(at, name) for other in seen if "/" in other and other.split("/")[0] == name
                ]
            seen.add(key)
        if name not in pod_claims:
            listed = ": " + ", ".join(sorted(pod_claims)) if pod_claims else " which is empty"
            detail = "must be one of the names in pod.spec.resourceClaims" + listed
            errs.append(fe.FieldError(fe.NOT_FOUND, at, name, detail))
    return errs


def validate_container_requirements(requirements: Any, path: str, pod_claims: set[str]) -> list[FieldError]:
    return validate_requirements(as_dict(requirements), path, validate_container_resource_name, pod_claims)


def validate_overhead(overhead: Any, path: str) -> list[FieldError]:
    return validate_requirements({"limits": as_dict(overhead)}, path, validate_container_resource_name, set())


def validate_pod_resources(spec: JSON, pod_claims: set[str], path: str) -> list[FieldError]:
    """Pod-level `spec.resources` (the PodLevelResources feature), checked whenever it is present."""
    resources = spec.get("resources")
    if not isinstance(resources, dict):
        return []
    errs: list[FieldError] = []
    if resources.get("claims") is not None:
        errs.append(fe.forbidden(f"{path}.claims", "claims cannot be set for Resources at pod-level"))
    errs += validate_requirements(resources, path, validate_pod_resource_name, pod_claims)
    pod_requests, pod_limits = as_dict(resources.get("requests")), as_dict(resources.get("limits"))
    for name, needed in aggregate_containers(spec).items():
        have = quantity(pod_requests.get(name, 0)) or Fraction(0)
        if needed.value > have:
            shown = quantity_text(pod_requests[name]) if name in pod_requests else "0"
            detail = (
                f"must be greater than or equal to aggregate container requests of {format_quantity(needed)}"
            )
            errs.append(fe.invalid(f"{path}.requests[{name}]", shown, detail))
    for index, raw in enumerate(as_list(spec.get("containers"))):
        for name, limit_raw in as_dict(as_dict(as_dict(raw).get("resources")).get("limits")).items():
            if name not in pod_limits:
                continue
            limit, pod_limit = quantity(limit_raw), quantity(pod_limits[name])
            if limit is not None and pod_limit is not None and limit > pod_limit:
                at = f"{path}.containers[{index}][{name}].limits"
                detail = f"must be less than or equal to pod limits of {quantity_text(pod_limits[name])}"
                errs.append(fe.invalid(at, quantity_text(limit_raw), detail))
    return errs
