"""Resource names and quantities as core validation judges them, for every kind that carries a ResourceList
(upstream's helper.IsNativeResource / IsExtendedResourceName and ValidateResourceQuantityValue)."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.validation import names
from fakeapi.machinery.validation.values import GoText, quantity, quantity_text

_INTEGER = frozenset(
    {
        "pods", "resourcequotas", "services", "replicationcontrollers", "secrets", "configmaps",
        "persistentvolumeclaims", "services.nodeports", "services.loadbalancers",
    }
)  # fmt: skip
_CPU_MEMORY = frozenset({"cpu", "memory"})  # the common names, never integer resources


def is_native(name: str) -> bool:
    return "/" not in name or "kubernetes.io/" in name


def is_extended(name: str) -> bool:
    if is_native(name) or name.startswith("requests."):
        return False
    return not names.is_qualified_name("requests." + name)


def validate_quantity_value(name: str, raw: Any, path: str) -> list[FieldError]:
    """Non-negative; integer resources (extended ones included) must be whole numbers."""
    value = quantity(raw)
    if value is None:
        return []
    return quantity_errors(name, raw, value, path)


def quantity_errors(name: str, raw: Any, value: Fraction, path: str) -> list[FieldError]:
    """validate_quantity_value for a quantity already parsed to `value`."""
    errs: list[FieldError] = []
    if value < 0:
        errs.append(fe.invalid(path, quantity_text(raw), "must be greater than or equal to 0"))
    if name not in _CPU_MEMORY and _is_integer_resource(name) and math.ceil(value * 1000) % 1000:
        # MilliValue rounds up; upstream prints the Quantity itself here
        errs.append(fe.invalid(path, GoText(quantity_text(raw)), "must be an integer"))
    return errs


def _is_integer_resource(name: str) -> bool:
    return name in _INTEGER or is_extended(name)
