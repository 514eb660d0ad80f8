"""Compiling a schema node's x-kubernetes-validations when the CRD is written, with upstream's errors:
`compilation failed: ERROR: <input>:1:1: undeclared reference to 'foo' (in container '')...`, oldSelf where
the stored value cannot be found, optionalOldSelf without oldSelf."""

from __future__ import annotations

from fakeapi.kinds.customresource.cel import compile_rule, rule_value
from fakeapi.kinds.customresourcedefinition.schema import RuleContext
from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON


def compile_schema_rules(schema: JSON, path: str, context: RuleContext) -> list[FieldError]:
    errors: list[FieldError] = []
    for index, raw in enumerate(schema.get("x-kubernetes-validations") or ()):
        if not isinstance(raw, dict):
            continue
        at = f"{path}.x-kubernetes-validations[{index}]"
        rule, rule_error, message_error = compile_rule(raw)
        if rule_error is not None:
            errors.append(fe.invalid(f"{at}.rule", rule_value(raw), rule_error))
        if message_error is not None:
            errors.append(fe.invalid(f"{at}.messageExpression", rule_value(raw), message_error))
        if rule is None:
            continue
        if rule.program.uses_old_self:
            if context.uncorrelatable is not None:
                detail = f"oldSelf cannot be used on the uncorrelatable portion of the schema within " \
                         f"{context.uncorrelatable}"
                errors.append(fe.invalid(f"{at}.rule", rule.text, detail))
        elif raw.get("optionalOldSelf") is not None:
            errors.append(fe.invalid(f"{at}.optionalOldSelf", raw["optionalOldSelf"],
                                     "may not be set if oldSelf is not used in rule"))
    return errors
