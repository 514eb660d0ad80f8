"""Compiling a schema node's x-kubernetes-validations when the CRD is written, with upstream's errors: the
checker's (`compilation failed: ERROR: <input>:1:6: undefined field 'foo'...`, `self` typed by the schema),
estimated costs over the per-expression limit (`estimated rule cost exceeds budget by factor of ...`; the
whole schema's total is checked by the caller), oldSelf where the stored value cannot be found,
optionalOldSelf without oldSelf."""

from __future__ import annotations

from fakeapi.kinds.customresource.cel import compile_rule, decl_type_of, rule_value
from fakeapi.kinds.customresourcedefinition.schema import (
    STATIC_ESTIMATED_COST_LIMIT,
    RuleContext,
    cost_error_message,
    multiply,
)
from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.cel.decltypes import MAX_REQUEST_SIZE_BYTES
from fakeapi.machinery.cel.program import Checker
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.jsonschema.schema import compile_schema
from fakeapi.machinery.types import JSON


def compile_schema_rules(schema: JSON, path: str, context: RuleContext) -> list[FieldError]:
    errors: list[FieldError] = []
    decl = decl_type_of(compile_schema(schema), context.root)
    checker = Checker(decl)
    # upstream's maxCardinality: how often data of the node's smallest size fits in a request
    fits = MAX_REQUEST_SIZE_BYTES // ((decl.min_serialized_size if decl is not None else 1) + 1)
    cardinality = context.cardinality if context.cardinality is not None else fits
    for index, raw in enumerate(schema.get("x-kubernetes-validations") or ()):
        if not isinstance(raw, dict):
            continue
        at = f"{path}.x-kubernetes-validations[{index}]"
        rule, rule_error, message_error = compile_rule(raw, checker)
        cost = multiply(rule.program.max_cost, cardinality) if rule is not None else 0
        if not context.suppress_cost and cost > STATIC_ESTIMATED_COST_LIMIT:
            errors.append(fe.forbidden(f"{at}.rule", cost_error_message("estimated rule cost", cost,
                                                                        STATIC_ESTIMATED_COST_LIMIT)))
        context.total.observe(f"{at}.rule", cost)
        if rule_error is not None:
            errors.append(fe.invalid(f"{at}.rule", rule_value(raw), rule_error))
        if message_error is not None:
            errors.append(fe.invalid(f"{at}.messageExpression", rule_value(raw), message_error))
        elif rule is not None and rule.message is not None:
            message_cost = rule.message.max_cost
            if not context.suppress_cost and message_cost > STATIC_ESTIMATED_COST_LIMIT:
                errors.append(fe.forbidden(f"{at}.messageExpression", cost_error_message(
                    "estimated messageExpression cost", message_cost, STATIC_ESTIMATED_COST_LIMIT)))
            context.total.observe(f"{at}.messageExpression", message_cost)
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
