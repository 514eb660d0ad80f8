"""A webhook's matchConditions (CEL; upstream's matchconditions.Matcher): all true, or one false, or errors.
Compiled expressions are kept per source text, by each server's plugin."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

from fakeapi.machinery.cel.admission import Expression, compile_admission
from fakeapi.machinery.types import JSON

Compiler = Callable[[str], Expression]


def compiler() -> Compiler:
    """A memo of compiled match conditions."""
    return lru_cache(maxsize=1024)(compile_admission)


def evaluate_conditions(compiled: Compiler, conditions: list[Any], request: JSON,
                        namespace: JSON | None) -> tuple[bool, list[str]]:
    """(False when a condition is false, else True; the errors of those that failed to evaluate)."""
    data = {"object": request.get("object"), "oldObject": request.get("oldObject"), "request": request,
            "namespaceObject": namespace}
    errors: list[str] = []
    for condition in conditions:
        expression = str((condition or {}).get("expression") or "")
        try:
            result, error = compiled(expression).evaluate(data)
        except Exception as failure:  # (stored before a rule it breaks existed: reported, never a crash)
            result, error = None, str(failure)
        if error is not None:
            errors.append(f"expression '{expression}' resulted in error: {error}")
        elif result is False:
            return False, []
    return True, errors
