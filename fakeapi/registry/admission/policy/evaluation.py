"""One policy's CEL for one request and one param: match conditions, variables, validations, audit annotations
(upstream's validating/validator.go), with upstream's messages. Compiled expressions are kept per text, in
each server's memo (`Compiled`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from fakeapi.machinery.cel.admission import Expression, compile_admission
from fakeapi.machinery.types import JSON

Compiled = Callable[[str, str], Expression]  # (source, result type) -> the compiled expression


def compiler() -> Compiled:
    """A memo of compiled policy expressions."""
    def compile_policy(source: str, result: str) -> Expression:
        return compile_admission(source, True, result)

    return lru_cache(maxsize=4096)(compile_policy)


@dataclass(frozen=True)
class Failure:
    """A validation that failed (or could not be evaluated: `error`)."""

    message: str
    reason: str = ""  # Invalid when empty
    error: bool = False


def _run(compiled: Compiled, source: str, result: str, data: dict[str, Any]) -> tuple[Any, str | None]:
    try:
        return compiled(source, result).evaluate(data)
    except Exception as failure:  # (an expression stored before a rule it breaks: an error, never a crash)
        return None, str(failure)


def conditions_match(compiled: Compiled, conditions: list[Any], data: dict[str, Any]) -> tuple[bool, list[str]]:
    errors: list[str] = []
    for condition in conditions:
        expression = str((condition or {}).get("expression") or "")
        value, error = _run(compiled, expression, "bool", data)
        if error is not None:
            errors.append(f"expression '{expression}' resulted in error: {error}")
        elif value is False:
            return False, []
    return True, errors


def bind_variables(compiled: Compiled, spec: JSON, data: dict[str, Any]) -> None:
    """`variables.<name>` for each variable that evaluates (one that does not is missing when used)."""
    values: dict[str, Any] = {}
    data["variables"] = values
    for variable in spec.get("variables") or []:
        value, error = _run(compiled, str(variable.get("expression") or ""), "any", data)
        if error is None:
            values[str(variable.get("name"))] = value


def failures(compiled: Compiled, spec: JSON, data: dict[str, Any]) -> list[Failure]:
    found: list[Failure] = []
    for validation in spec.get("validations") or []:
        expression = str(validation.get("expression") or "")
        value, error = _run(compiled, expression, "bool", data)
        if error is not None:
            found.append(Failure(f"expression '{expression}' resulted in error: {error}", error=True))
        elif value is not True:
            found.append(Failure(_message(compiled, validation, data), str(validation.get("reason") or "")))
    return found


def _message(compiled: Compiled, validation: JSON, data: dict[str, Any]) -> str:
    source = str(validation.get("messageExpression") or "")
    if source.strip():
        value, error = _run(compiled, source, "string", data)
        if error is None and isinstance(value, str) and value.strip() and "\n" not in value:
            return value
    if validation.get("message"):
        return str(validation["message"])
    return f"failed expression: {str(validation.get('expression') or '').strip()}"


def audit_annotations(compiled: Compiled, spec: JSON, data: dict[str, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    for annotation in spec.get("auditAnnotations") or []:
        value, error = _run(compiled, str(annotation.get("valueExpression") or ""), "any", data)
        if error is None and value is not None:
            out[str(annotation.get("key"))] = str(value)
    return out
