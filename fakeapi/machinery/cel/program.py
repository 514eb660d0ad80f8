"""Compiling and running x-kubernetes-validations expressions.

A rule is checked against the type its schema node gives `self` (fakeapi.machinery.cel.decltypes), with
cel-go's error texts: a field the schema lacks or a value of the wrong type is refused when the CRD is written.
It runs on the node's values as upstream's runtime sees them (fakeapi.machinery.cel.values), with `self`
dynamically typed (the runtime takes no typed objects from Python). Its estimated cost (the schema's bounds) is
kept for the CRD's cost limits, and its cost on the values at hand is worked out before it runs
(fakeapi.machinery.cel.cost).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from cel_expr_python import cel
from cel_expr_python.ext import ext_bindings, ext_optional, ext_strings

from fakeapi.machinery.cel.ast import Expr, checked_tree
from fakeapi.machinery.cel.cost import Range, estimate
from fakeapi.machinery.cel.decltypes import DeclType, declare
from fakeapi.machinery.cel.libraries import KUBERNETES_LIBRARIES
from fakeapi.machinery.cel.rewrite import RENAMED, Rewritten, rewrite
from fakeapi.machinery.cel.sizes import SchemaSizes, ValueSizes
from fakeapi.machinery.cel.types import POOL
from fakeapi.machinery.cel.values import to_cel

OLD_VALUE, HAS_OLD = "fakeapiOldSelf", "fakeapiHasOldSelf"
PER_CALL_LIMIT = 1_000_000
CHEAP = 100  # a rule whose estimate stays below this is charged its estimate, not worked out again per value
_STATUS_CODE = re.compile(r"^[A-Z_]+: ")
_STATUS_SUFFIX = re.compile(r" \[[A-Z_]+\]$")
_ISSUE = re.compile(r"^ERROR: <input>:(\d+):(\d+): (.*)$")
_CPP_TEXTS = (
    (re.compile(r"undefined field '([^']*)' not found in struct '[^']*'"), r"undefined field '\1'"),
    (re.compile(r"expression of type '([^']*)' cannot be the operand of a select operation"),
     r"type '\1' does not support field selection"),
    (re.compile(r"cannot be the range of a comprehension"), "cannot be range of a comprehension"),
)
_EXTENSIONS = (ext_strings.ExtStrings, ext_optional.ExtOptional, ext_bindings.ExtBindings)


@lru_cache(maxsize=1)
def runtime_environment() -> Any:
    """The environment rules run in, `self` dynamically typed (package data: made once, never changed)."""
    return cel.NewEnv(POOL, variables={"self": cel.Type.DYN, "oldSelf": cel.Type.DYN, OLD_VALUE: cel.Type.DYN,
                                       HAS_OLD: cel.Type.BOOL},
                      extensions=[extension() for extension in _EXTENSIONS], functions=KUBERNETES_LIBRARIES)


class CompileError(Exception):
    """The checker's issues, as cel-go prints them (`ERROR: <input>:1:1: undeclared reference ...`)."""


def issues(error: Exception) -> str:
    text = str(error)
    return _STATUS_SUFFIX.sub("", _STATUS_CODE.sub("", text, count=1))


@dataclass(frozen=True, eq=False)
class Program:
    source: str
    expression: Any
    tree: Expr  # the checked tree, for the cost
    decl: DeclType | None
    uses_old_self: bool
    optional_old_self: bool
    max_cost: int  # the estimate, from the schema's bounds

    def cost(self, value: Any, old: Any) -> int:
        """The cost of running on these values: the estimate with their sizes (an upper bound of cel-go's count)."""
        if self.max_cost <= CHEAP or self.decl is None:
            return self.max_cost
        return min(estimate(self.tree, ValueSizes(self.decl, value, old), RENAMED).high, self.max_cost)

    def run(self, value: Any, old: Any, has_old: bool, memo: dict[int, bool]) -> tuple[Any, str | None]:
        """(the result, or None with the error text)."""
        value = to_cel(value, self.decl, memo)
        old = to_cel(old, self.decl, memo)
        data = {"self": value, "oldSelf": old, OLD_VALUE: old, HAS_OLD: has_old}
        try:
            result = self.expression.eval(data=data)
        except RuntimeError as error:  # the runtime's own limit: 10,000 loop iterations in one evaluation
            return None, issues(error)
        if result.type() == cel.Type.ERROR:
            return None, runtime_error(issues(Exception(str(result.value()))))
        return result.value(), None


_RUNTIME_TEXTS = (
    (re.compile(r'^Key not found in map : "?(.*?)"?$'), r"no such key: \1"),
    (re.compile(r"^Index error: index=(-?\d+) size=(\d+)$"), r"index '\1' out of range in list size '\2'"),
    (re.compile(r"^divide by zero$"), "division by zero"),
    (re.compile(r"^No matching overloads found : (?:\(\w+\)\.)?([^()]+)\(.*$"), r"no such overload: \1"),
)


def runtime_error(text: str) -> str:
    """cel-cpp's evaluation errors in cel-go's words."""
    for pattern, replacement in _RUNTIME_TEXTS:
        if pattern.match(text):
            return pattern.sub(replacement, text)
    return text


def self_type_name() -> str:
    """A name for `self`'s type that rules cannot depend on (upstream's generateUniqueSelfTypeName)."""
    return f"selfType{time.time_ns() % 1_000_000_000}"


def typed_environment(decl: DeclType | None) -> tuple[Any, dict[str, str]]:
    """The environment a rule is checked in: `self`, `oldSelf` of the node's type; the display names of its
    object types."""
    if decl is None:
        return runtime_environment(), {}
    declared = declare(decl, self_type_name())
    env = cel.NewEnv(declared.pool, variables={"self": declared.self_type, "oldSelf": declared.self_type,
                                               OLD_VALUE: declared.self_type, HAS_OLD: cel.Type.BOOL},
                     extensions=[extension() for extension in _EXTENSIONS], functions=KUBERNETES_LIBRARIES)
    return env, declared.display_names


@dataclass
class Checker:
    """Compiles the rules of one schema node."""

    decl: DeclType | None

    def __post_init__(self) -> None:
        self.env, self.display = typed_environment(self.decl)

    def compile(self, source: str, *, optional_old_self: bool = False, result: str = "bool") -> Program:
        """A compiled rule (or messageExpression, `result="string"`); CompileError with upstream's detail."""
        runtime = runtime_environment()
        try:
            parsed = checked_tree(runtime.compile(source, disable_check=True).serialize())
        except RuntimeError as error:
            raise CompileError("compilation failed: " + self._render(issues(error), source, Rewritten(source))) \
                from None
        wrap = ("", "")
        if optional_old_self:
            wrap = (f"cel.bind(oldSelf, {HAS_OLD} ? optional.of({OLD_VALUE}) : optional.none(), (", "))")
        text = rewrite(source, parsed, wrap)
        try:
            checked = self.env.compile(text.text)
        except RuntimeError as error:
            raise CompileError("compilation failed: " + self._render(issues(error), source, text)) from None
        wanted = cel.Type.BOOL if result == "bool" else cel.Type.STRING
        if checked.return_type() != wanted:
            raise CompileError("cel expression must evaluate to a bool" if result == "bool"
                               else "messageExpression must evaluate to a string")
        tree = checked_tree(checked.serialize())
        if optional_old_self and tree.kind == "comprehension" and tree.result is not None:
            tree = tree.result  # the rule inside the binding of oldSelf
        uses_old_self = _uses(tree, "oldSelf")
        max_cost = estimate(tree, SchemaSizes(self.decl), RENAMED).high if self.decl is not None \
            else estimate(tree, _NoSizes(), RENAMED).high
        return Program(source, runtime.compile(text.text), tree, self.decl, uses_old_self,
                       optional_old_self and uses_old_self, max_cost)

    def _render(self, text: str, source: str, rewritten: Rewritten) -> str:
        """The checker's issues told against the user's text, in cel-go's words."""
        issues_found: list[tuple[int, str]] = []
        lines = rewritten.text.split("\n")
        starts = [0]
        for line in lines[:-1]:
            starts.append(starts[-1] + len(line) + 1)
        for line in text.split("\n"):
            found = _ISSUE.match(line)
            if found is None:
                continue
            row, column, message = int(found.group(1)), int(found.group(2)), found.group(3)
            offset = starts[min(row, len(starts)) - 1] + column - 1
            issues_found.append((rewritten.original_offset(offset), self._message(message)))
        if not issues_found:
            return text
        return "\n".join(_display(source, offset, message) for offset, message in issues_found)

    def _message(self, message: str) -> str:
        for pattern, replacement in _CPP_TEXTS:
            message = pattern.sub(replacement, message)
        for alias, name in RENAMED.items():
            message = message.replace(f"'{alias}'", f"'{name}'")
        return re.sub(r"selfType\d+(?:_\d+)?", lambda found: self.display.get(found.group(0), found.group(0)),
                      message)


class _NoSizes:
    def size(self, path: tuple[str, ...]) -> Range | None:
        return None


def _uses(tree: Expr, name: str) -> bool:
    stack = [tree]
    while stack:
        node = stack.pop()
        if node.kind == "ident" and node.value == name:
            return True
        stack += [child for child in (node.target, *node.args, node.iter_range, node.accu_init, node.loop_condition,
                                      node.loop_step, node.result) if child is not None]
    return False


def _display(source: str, offset: int, message: str) -> str:
    """An issue as cel-go's Error.ToDisplayString prints it."""
    before = source[:offset]
    row = before.count("\n") + 1
    column = offset - (before.rfind("\n") + 1)
    line = source.split("\n")[row - 1].replace("\t", " ")
    return f"ERROR: <input>:{row}:{column + 1}: {message}\n | {line}\n | {'.' * min(column, len(line))}^"


def compile_expression(source: str, *, optional_old_self: bool = False, result: str = "bool",
                       decl: DeclType | None = None) -> Program:
    return Checker(decl).compile(source, optional_old_self=optional_old_self, result=result)
