"""x-kubernetes-validations of a custom resource (upstream's apiextensions schema/cel): each rule runs with
`self` the value of its schema node and, on an update, `oldSelf` the same value in the stored object
(transition rules, which use oldSelf, run only where there is one, unless `optionalOldSelf`).

A failed rule is `<path>: Invalid value: "<type>": <message>` (`Forbidden`, `Required` or `Duplicate`
with its `reason`), at the rule's `fieldPath` below the node when given; the message is `messageExpression`'s
result, else `message`, else `failed rule: <rule>`. A rule that cannot be evaluated is `... <error>
evaluating rule: <rule>`. Rules of the root report under `<nil>`, as upstream's do.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fakeapi.kinds.customresource.strategy import Rules
from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.cel.program import CompileError, Program, compile_expression
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.jsonschema.schema import Schema
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation.values import GoText

MAX_MESSAGE_BYTES = 5 * 1024
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


def compile_rule(raw: JSON) -> tuple[CompiledRule | None, str | None, str | None]:
    """(the rule, or None; the rule's compile error; its messageExpression's compile error)."""
    optional = raw.get("optionalOldSelf") is True
    try:
        program = compile_expression(str(raw.get("rule") or ""), optional_old_self=optional)
    except CompileError as error:
        return None, str(error), None
    message = None
    message_error = None
    expression = raw.get("messageExpression")
    if isinstance(expression, str) and expression.strip():
        try:
            message = compile_expression(expression, result="string")
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


@dataclass(frozen=True, eq=False)
class _Node:
    schema: Schema
    rules: tuple[CompiledRule, ...]


class CelRules(Rules):
    """The compiled rules of one version's schema, and their evaluation over objects."""

    def __init__(self, schema: Schema) -> None:
        self.schema = schema
        self._compiled: dict[int, tuple[CompiledRule, ...]] = {}
        self._compile(schema)

    def _compile(self, schema: Schema) -> None:
        if schema.rules:
            compiled = [compile_rule(raw)[0] for raw in schema.rules]
            self._compiled[id(schema)] = tuple(rule for rule in compiled if rule is not None)
        for child in (*schema.properties.values(), schema.additional, schema.items):
            if child is not None:
                self._compile(child)

    @property
    def empty(self) -> bool:
        return not self._compiled

    def validate(self, obj: JSON, old: JSON | None) -> list[FieldError]:
        errors: list[FieldError] = []
        self._walk(self.schema, obj, old if old is not None else _NO_OLD, "", errors)
        return errors

    def _walk(self, schema: Schema, value: Any, old: Any, path: str, errors: list[FieldError]) -> None:
        rules = self._compiled.get(id(schema))
        if rules:
            for rule in rules:
                self._run(rule, schema, value, old, path, errors)
        if isinstance(value, dict):
            old_map = old if isinstance(old, dict) else {}
            for key, item in value.items():
                child = schema.properties.get(key)
                at = f"{path}.{key}" if path else key
                if child is None and schema.additional is not None:
                    child, at = schema.additional, f"{path}[{key}]"
                if child is not None:
                    self._walk(child, item, old_map.get(key, _NO_OLD), at, errors)
        elif isinstance(value, list) and schema.items is not None:
            olds = self._correlate(schema, value, old)
            for index, item in enumerate(value):
                self._walk(schema.items, item, olds[index], f"{path}[{index}]", errors)

    def _correlate(self, schema: Schema, value: list[Any], old: Any) -> list[Any]:
        """The stored item of each item: by key in a map list; none in other lists (upstream correlates none)."""
        if schema.list_type != "map" or not isinstance(old, list):
            return [_NO_OLD] * len(value)
        keys = schema.list_map_keys

        def identity(item: Any) -> tuple[Any, ...]:
            return tuple((item or {}).get(key) for key in keys) if isinstance(item, dict) else ()

        stored = {identity(item): item for item in old}
        return [stored.get(identity(item), _NO_OLD) for item in value]

    def _run(self, rule: CompiledRule, schema: Schema, value: Any, old: Any, path: str,
             errors: list[FieldError]) -> None:
        has_old = old is not _NO_OLD
        if rule.program.uses_old_self and not has_old and not rule.program.optional_old_self:
            return  # a transition rule: only on an update of an existing value
        kind = schema.type or ("integer" if schema.int_or_string else "object")
        at = path or "<nil>"
        result, error = rule.program.run(value, old if has_old else None, has_old)
        if error is not None:
            errors.append(fe.invalid(at, kind, f"{error} evaluating rule: {rule.error_string()}"))
            return
        if result is True:
            return
        field_path = str(rule.raw.get("fieldPath") or "").strip()
        if field_path:
            at = f"{path}{field_path}" if path else field_path.removeprefix(".")
        detail = self._message(rule, value, old, has_old)
        reason = rule.raw.get("reason")
        if reason == fe.FORBIDDEN:
            errors.append(fe.forbidden(at, detail))
        elif reason == fe.REQUIRED:
            errors.append(fe.required(at, detail))
        elif reason == fe.DUPLICATE:
            errors.append(fe.duplicate(at, kind))
        else:
            errors.append(fe.invalid(at, kind, detail))

    def _message(self, rule: CompiledRule, value: Any, old: Any, has_old: bool) -> str:
        default = str(rule.raw.get("message") or "").strip() or f"failed rule: {rule.error_string()}"
        if rule.message is None:
            return default
        result, error = rule.message.run(value, old if has_old else None, has_old)
        if error is not None or not isinstance(result, str) or not result.strip():
            return default
        if len(result.encode()) > MAX_MESSAGE_BYTES:
            return default
        return result.strip()


def rules_for(schema: Schema) -> CelRules | None:
    rules = CelRules(schema)
    return None if rules.empty else rules
