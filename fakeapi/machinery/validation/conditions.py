"""metav1.Condition lists (upstream's ValidateConditions), as the status of PodDisruptionBudgets carries them."""

from __future__ import annotations

import re
from typing import Any

from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.validation.names import regex_error
from fakeapi.machinery.validation.objectmeta import validate_label_name
from fakeapi.machinery.validation.values import as_dict, as_int, as_str

STATUSES = ["False", "True", "Unknown"]
MAX_REASON_LENGTH = 1024
MAX_MESSAGE_LENGTH = 32 * 1024
REASON_FORMAT = "[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?"
REASON_PATTERN = re.compile(REASON_FORMAT)
REASON_MESSAGE = regex_error(
    "a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric "
    "characters or '_,:', and must end with an alphanumeric character or '_'",
    REASON_FORMAT, "my_name", "MY_NAME", "MyName", "ReasonA,ReasonB", "ReasonA:ReasonB")


def validate_conditions(conditions: Any, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    seen: set[str] = set()
    for index, condition in enumerate(conditions if isinstance(conditions, list) else []):
        condition_type = as_str(as_dict(condition).get("type"))
        if condition_type in seen:
            errs.append(fe.duplicate(f"{path}[{index}].type", condition_type))
        seen.add(condition_type)
        errs += validate_condition(as_dict(condition), f"{path}[{index}]")
    return errs


def validate_condition(condition: dict[str, Any], path: str) -> list[FieldError]:
    errs = validate_label_name(as_str(condition.get("type")), f"{path}.type")
    status = as_str(condition.get("status"))
    if status not in STATUSES:
        errs.append(fe.not_supported(f"{path}.status", status, STATUSES))
    generation = as_int(condition.get("observedGeneration"))
    if generation < 0:
        errs.append(fe.invalid(f"{path}.observedGeneration", generation, "must be greater than or equal to zero"))
    if not condition.get("lastTransitionTime"):
        errs.append(fe.required(f"{path}.lastTransitionTime", "must be set"))
    reason = as_str(condition.get("reason"))
    if not reason:
        errs.append(fe.required(f"{path}.reason", "must be set"))
    else:
        if not REASON_PATTERN.fullmatch(reason):
            errs.append(fe.invalid(f"{path}.reason", reason, REASON_MESSAGE))
        if len(reason.encode()) > MAX_REASON_LENGTH:
            errs.append(fe.too_long(f"{path}.reason", MAX_REASON_LENGTH))
    if len(as_str(condition.get("message")).encode()) > MAX_MESSAGE_LENGTH:
        errs.append(fe.too_long(f"{path}.message", MAX_MESSAGE_LENGTH))
    return errs
