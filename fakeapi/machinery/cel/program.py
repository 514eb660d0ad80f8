"""Compiling and running x-kubernetes-validations expressions.

`self` and `oldSelf` are dynamically typed (fakeapi does not declare the schema's object types to the
checker), so a reference to a field the schema lacks fails when the rule runs rather than when the CRD is
written. A rule with `optionalOldSelf` sees `oldSelf` as an optional value, as upstream's does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from cel_expr_python import cel
from cel_expr_python.ext import ext_bindings, ext_optional, ext_strings

from fakeapi.machinery.cel.libraries import KUBERNETES_LIBRARIES
from fakeapi.machinery.cel.types import POOL

_OLD_SELF = re.compile(r"\boldSelf\b")
_STATUS_CODE = re.compile(r"^[A-Z_]+: ")
_STATUS_SUFFIX = re.compile(r" \[[A-Z_]+\]$")
OLD_VALUE, HAS_OLD = "fakeapiOldSelf", "fakeapiHasOldSelf"


@lru_cache(maxsize=1)
def environment() -> Any:
    """The CEL environment of validation rules (package data: made once, never changed)."""
    return cel.NewEnv(POOL, variables={"self": cel.Type.DYN, "oldSelf": cel.Type.DYN, OLD_VALUE: cel.Type.DYN,
                                       HAS_OLD: cel.Type.BOOL},
                      extensions=[ext_strings.ExtStrings(), ext_optional.ExtOptional(), ext_bindings.ExtBindings()],
                      functions=KUBERNETES_LIBRARIES)


class CompileError(Exception):
    """The checker's issues, as upstream prints them (`ERROR: <input>:1:1: undeclared reference ...`)."""


def issues(error: Exception) -> str:
    text = str(error)
    return _STATUS_SUFFIX.sub("", _STATUS_CODE.sub("", text, count=1))


@dataclass(frozen=True, eq=False)
class Program:
    source: str
    expression: Any
    uses_old_self: bool
    optional_old_self: bool

    def run(self, value: Any, old: Any, has_old: bool) -> tuple[Any, str | None]:
        """(the result, or None with the error text)."""
        data = {"self": value, "oldSelf": old, OLD_VALUE: old, HAS_OLD: has_old}
        result = self.expression.eval(data=data)
        if result.type() == cel.Type.ERROR:
            return None, issues(Exception(str(result.value())))
        return result.value(), None


def compile_expression(source: str, *, optional_old_self: bool = False, result: str = "bool") -> Program:
    """A compiled rule (or messageExpression, `result="string"`); CompileError with upstream's detail."""
    env = environment()
    try:
        checked = env.compile(source)
    except RuntimeError as error:
        raise CompileError("compilation failed: " + issues(error)) from None
    wanted = cel.Type.BOOL if result == "bool" else cel.Type.STRING
    kind = checked.return_type()
    if kind != wanted and kind != cel.Type.DYN:
        raise CompileError("cel expression must evaluate to a bool" if result == "bool"
                           else "messageExpression must evaluate to a string")
    uses_old_self = bool(_OLD_SELF.search(source))
    expression = checked
    if optional_old_self and uses_old_self:
        wrapped = f"cel.bind(oldSelf, {HAS_OLD} ? optional.of({OLD_VALUE}) : optional.none(), ({source}))"
        try:
            expression = env.compile(wrapped)
        except RuntimeError as error:
            raise CompileError("compilation failed: " + issues(error)) from None
    return Program(source, expression, uses_old_self, optional_old_self and uses_old_self)
