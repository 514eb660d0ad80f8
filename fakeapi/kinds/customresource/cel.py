"""x-kubernetes-validations of a custom resource (upstream's apiextensions schema/cel): each rule runs with
`self` the value of its schema node and, on an update, `oldSelf` the same value in the stored object
(transition rules, which use oldSelf, run only where there is one, unless `optionalOldSelf`).

A failed rule is `<path>: Invalid value: "<type>": <message>` (`Forbidden`, `Required` or `Duplicate`
with its `reason`), at the rule's `fieldPath` below the node when given; the message is `messageExpression`'s
result, else `message`, else `failed rule: <rule>`. A rule that cannot be evaluated is `... <error>
evaluating rule: <rule>`. Rules of the root report under `<nil>`, as upstream's do.

Costs: a rule whose cost on the values at hand passes the per-call limit is not run (`operation cancelled:
actual cost limit exceeded`), and the rules of one object share a budget; either stops all further rules.
Ratcheting (CRDValidationRatcheting, on in v1.32): on an update, a failed rule that does not use oldSelf on a
value equal to its stored one (or, where the value cannot be matched with a stored one, such as an item of an
atomic list, whose nearest matched parent is equal) is a warning, not an error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fakeapi.kinds.customresource.strategy import Rules
from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.cel.decltypes import DeclType, schema_decl_type
from fakeapi.machinery.cel.program import PER_CALL_LIMIT, Checker, CompileError, Program
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.jsonschema.schema import Schema
from fakeapi.machinery.jsonvalues import deep_equal
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation.values import GoText

MAX_MESSAGE_BYTES = 5 * 1024
RUNTIME_COST_BUDGET = 10_000_000
OUT_OF_BUDGET = "validation failed due to running out of cost budget, no further validation rules will be run"
_NO_OLD = object()


@dataclass(frozen=True, eq=False)
class CompiledRule:
    raw: JSON
    program: Program
    message: Program | None

    @property
    def text(self) -> str:
        return str(self.raw.get("rule") or "").strip()

    def error_string(self) -> str:
        message = str(self.raw.get("message") or "").strip()
        return message or self.text


def decl_type_of(schema: Schema, resource_root: bool) -> DeclType | None:
    """The type a node's rules see as `self` (the root and embedded resources with apiVersion, kind and
    metadata.name/generateName)."""
    return schema_decl_type(schema, resource_root or schema.embedded)


def compile_rule(raw: JSON, checker: Checker) -> tuple[CompiledRule | None, str | None, str | None]:
    """(the rule, or None; the rule's compile error; its messageExpression's compile error)."""
    optional = raw.get("optionalOldSelf") is True
    try:
        program = checker.compile(str(raw.get("rule") or ""), optional_old_self=optional)
    except CompileError as error:
        return None, str(error), None
    message = None
    message_error = None
    expression = raw.get("messageExpression")
    if isinstance(expression, str) and expression.strip():
        try:
            message = checker.compile(expression, result="string")
        except CompileError as error:
            message_error = "messageExpression " + str(error) if str(error).startswith("compilation") else str(error)
    return CompiledRule(raw, program, message), None, message_error


def rule_value(raw: JSON) -> GoText:
    """A rule as upstream prints the ValidationRule struct (%#v) in its errors."""
    reason = raw.get("reason")
    optional = raw.get("optionalOldSelf")
    return GoText(
        f'apiextensions.ValidationRule{{Rule:{_quote(raw.get("rule"))}, Message:{_quote(raw.get("message"))}, '
        f'MessageExpression:{_quote(raw.get("messageExpression"))}, '
        f'Reason:{"(*apiextensions.FieldValueErrorReason)(nil)" if reason is None else "&" + _quote(reason)}, '
        f'FieldPath:{_quote(raw.get("fieldPath"))}, '
        f'OptionalOldSelf:{"(*bool)(nil)" if optional is None else "&" + str(bool(optional)).lower()}}}')


def _quote(value: Any) -> str:
    text = str(value or "")
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    return f'"{escaped}"'


class _Budget:
    """What one object's validation has left to spend; `stopped` once a limit ended it."""

    def __init__(self) -> None:
        self.remaining = RUNTIME_COST_BUDGET
        self.stopped = False


@dataclass(frozen=True)
class _Correlation:
    """Ratcheting's view of a node: whether it is matched with a stored value, and the nearest matched node
    (itself when matched) with its new and stored values."""

    matched: bool
    nearest: tuple[Any, Any] | None

    def ratchets(self) -> bool:
        return self.nearest is not None and deep_equal(self.nearest[0], self.nearest[1])

    def child(self, new: Any, old: Any) -> _Correlation:
        """A matched child (`old` is its stored value, _NO_OLD when there is none)."""
        if old is _NO_OLD or not self.matched:
            return _Correlation(False, self.nearest)
        return _Correlation(True, (new, old))


_UNMATCHED = _Correlation(False, None)


class CelRules(Rules):
    """The compiled rules of one version's schema, and their evaluation over objects."""

    def __init__(self, schema: Schema) -> None:
        self.schema = schema
        self._compiled: dict[int, tuple[CompiledRule, ...]] = {}
        self._memo: dict[int, bool] = {}
        self._compile(schema, True)

    def _compile(self, schema: Schema, root: bool) -> None:
        if schema.rules:
            checker = Checker(decl_type_of(schema, root))
            compiled = [compile_rule(raw, checker)[0] for raw in schema.rules]
            self._compiled[id(schema)] = tuple(rule for rule in compiled if rule is not None)
        for child in (*schema.properties.values(), schema.additional, schema.items):
            if child is not None:
                self._compile(child, False)

    @property
    def empty(self) -> bool:
        return not self._compiled

    def validate(self, obj: JSON, old: JSON | None) -> list[FieldError]:
        errors: list[FieldError] = []
        correlation = _Correlation(True, (obj, old)) if old is not None else _UNMATCHED
        self._walk(self.schema, obj, old if old is not None else _NO_OLD, "", errors, _Budget(), correlation, True)
        return errors

    def _walk(self, schema: Schema, value: Any, old: Any, path: str, errors: list[FieldError], budget: _Budget,
              correlation: _Correlation, root: bool = False) -> None:
        rules = self._compiled.get(id(schema))
        if rules and value is not None:
            self._run_all(rules, schema, value, old, path, errors, budget, correlation)
        if budget.stopped:
            return
        if isinstance(value, dict):
            old_map = old if isinstance(old, dict) else {}
            for key, item in value.items():
                child = schema.properties.get(key)
                at = f"{path}.{key}" if path else key
                if child is None and schema.additional is not None:
                    child, at = schema.additional, f"{path}[{key}]"
                if child is None:
                    continue
                item_old = old_map.get(key, _NO_OLD)
                if root and key in ("apiVersion", "kind"):
                    item_old = _NO_OLD  # not ratcheted: both sides are converted to the same version
                self._walk(child, item, item_old, at, errors, budget, correlation.child(item, item_old))
                if budget.stopped:
                    return
        elif isinstance(value, list) and schema.items is not None:
            olds = self._correlate(schema, value, old)
            for index, item in enumerate(value):
                self._walk(schema.items, item, olds[index], f"{path}[{index}]", errors, budget,
                           correlation.child(item, olds[index]))
                if budget.stopped:
                    return

    def _correlate(self, schema: Schema, value: list[Any], old: Any) -> list[Any]:
        """The stored item of each item: by key in a map list; none in other lists (upstream correlates none)."""
        if schema.list_type != "map" or not isinstance(old, list):
            return [_NO_OLD] * len(value)
        keys = schema.list_map_keys

        def identity(item: Any) -> tuple[Any, ...]:
            return tuple((item or {}).get(key) for key in keys) if isinstance(item, dict) else ()

        stored = {identity(item): item for item in old}
        return [stored.get(identity(item), _NO_OLD) for item in value]

    def _run_all(self, rules: tuple[CompiledRule, ...], schema: Schema, value: Any, old: Any, path: str,
                 errors: list[FieldError], budget: _Budget, correlation: _Correlation) -> None:
        kind = schema.type or ("integer" if schema.int_or_string else "object")
        at = path or "<nil>"
        if budget.remaining <= 0:
            errors.append(fe.invalid(at, kind, OUT_OF_BUDGET))
            budget.stopped = True
            return
        for rule in rules:
            self._run(rule, kind, value, old, path, errors, budget, correlation)
            if budget.stopped:
                return

    def _run(self, rule: CompiledRule, kind: str, value: Any, old: Any, path: str, errors: list[FieldError],
             budget: _Budget, correlation: _Correlation) -> None:
        has_old = old is not _NO_OLD
        program = rule.program
        if program.uses_old_self and not has_old and not program.optional_old_self:
            return  # a transition rule: only on an update of an existing value
        at = path or "<nil>"
        old_value = old if has_old else None
        cost = program.cost(value, old_value)
        cancelled = cost > PER_CALL_LIMIT
        if cancelled:
            cost = PER_CALL_LIMIT + 1  # cel-go stops the evaluation as soon as it passes the limit
        if cost > budget.remaining:
            errors.append(fe.invalid(at, kind, OUT_OF_BUDGET))
            budget.stopped = True
            return
        budget.remaining -= cost
        if cancelled:
            errors.append(fe.invalid(at, kind, "'operation cancelled: actual cost limit exceeded': no further "
                                               "validation rules will be run due to call cost exceeds limit for "
                                               f"rule: {rule.error_string()}"))
            budget.stopped = True
            return
        result, error = program.run(value, old_value, has_old, self._memo)
        if error is not None:
            if error.startswith("no such overload"):
                detail = f"'{error}': call arguments did not match a supported operator, function or macro " \
                         f"signature for rule: {rule.error_string()}"
            else:
                detail = f"{error} evaluating rule: {rule.error_string()}"
            errors.append(fe.invalid(at, kind, detail))
            return
        if result is True:
            return
        field_path = str(rule.raw.get("fieldPath") or "").strip()
        if field_path:
            at = f"{path}{field_path}" if path else field_path.removeprefix(".")
        detail = self._message(rule, value, old_value, has_old, budget)
        reason = rule.raw.get("reason")
        if reason == fe.FORBIDDEN:
            found = fe.forbidden(at, detail)
        elif reason == fe.REQUIRED:
            found = fe.required(at, detail)
        elif reason == fe.DUPLICATE:
            found = fe.duplicate(at, kind)
        else:
            found = fe.invalid(at, kind, detail)
        if not program.uses_old_self and correlation.ratchets():
            found = fe.as_warning(found)
        errors.append(found)

    def _message(self, rule: CompiledRule, value: Any, old: Any, has_old: bool, budget: _Budget) -> str:
        default = str(rule.raw.get("message") or "").strip() or f"failed rule: {rule.error_string()}"
        if rule.message is None:
            return default
        budget.remaining -= rule.message.cost(value, old)
        result, error = rule.message.run(value, old, has_old, self._memo)
        if error is not None or not isinstance(result, str) or not result.strip():
            return default
        if len(result.encode()) > MAX_MESSAGE_BYTES:
            return default
        return result.strip()


def rules_for(schema: Schema) -> CelRules | None:
    rules = CelRules(schema)
    return None if rules.empty else rules
