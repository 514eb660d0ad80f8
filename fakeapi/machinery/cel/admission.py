"""CEL as admission uses it (webhooks' matchConditions; upstream's apiserver/pkg/admission/plugin/cel): the
variables `object`, `oldObject`, `request`, `namespaceObject` (and more for policies), dynamically typed, with
the Kubernetes function libraries. The `authorizer` variable is not offered."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from cel_expr_python import cel

from fakeapi.machinery.cel.libraries import KUBERNETES_LIBRARIES
from fakeapi.machinery.cel.program import _EXTENSIONS, CompileError, issues, runtime_error
from fakeapi.machinery.cel.types import POOL

MATCH_CONDITION_VARIABLES = ("object", "oldObject", "request", "namespaceObject")
POLICY_VARIABLES = ("object", "oldObject", "request", "params", "namespaceObject", "variables")


def _environment(variables: tuple[str, ...]) -> Any:
    return cel.NewEnv(POOL, variables=dict.fromkeys(variables, cel.Type.DYN),
                      extensions=[extension() for extension in _EXTENSIONS], functions=KUBERNETES_LIBRARIES)


@lru_cache(maxsize=1)
def match_condition_environment() -> Any:
    """Webhooks' match conditions (package data: made once, never changed)."""
    return _environment(MATCH_CONDITION_VARIABLES)


@lru_cache(maxsize=1)
def policy_environment() -> Any:
    """ValidatingAdmissionPolicies' expressions (package data: made once, never changed)."""
    return _environment(POLICY_VARIABLES)


@dataclass(frozen=True, eq=False)
class Expression:
    source: str
    program: Any

    def evaluate(self, data: dict[str, Any]) -> tuple[Any, str | None]:
        """(the result, or None with cel-go's error text)."""
        try:
            result = self.program.eval(data=data)
        except RuntimeError as error:
            return None, issues(error)
        if result.type() == cel.Type.ERROR:
            return None, runtime_error(issues(Exception(str(result.value()))))
        return result.value(), None


def compile_admission(source: str, policy: bool = False, result: str = "bool") -> Expression:
    """A compiled expression (of a policy, or a webhook's match condition); CompileError (`compilation failed:
    ERROR: <input>:1:1: ...`) otherwise."""
    env = policy_environment() if policy else match_condition_environment()
    try:
        checked = env.compile(source)
    except RuntimeError as error:
        raise CompileError("compilation failed: " + issues(error)) from None
    wanted = cel.Type.BOOL if result == "bool" else cel.Type.STRING
    if result != "any" and checked.return_type() not in (wanted, cel.Type.DYN):
        raise CompileError(f"must evaluate to {result}")
    return Expression(source, checked)
