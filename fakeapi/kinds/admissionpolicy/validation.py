"""Policy and binding validation (upstream pkg/apis/admissionregistration/validation, v1.32): the spec's
failure policy, paramKind, match constraints, match conditions, variables, validations (their CEL compiled),
audit annotations; the binding's policy name, paramRef and validation actions. Expressions are compiled with
every variable dynamically typed: no type checking against the matched kinds' schemas."""

from __future__ import annotations

import re
from typing import Any

from fakeapi.kinds.webhookconfiguration.validation import (
    FAILURE_POLICIES,
    MATCH_POLICIES,
    validate_match_conditions,
    validate_rule,
)
from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation import names
from fakeapi.machinery.validation.labelselector import validate_label_selector
from fakeapi.machinery.validation.objectmeta import validate_object_meta
from fakeapi.machinery.validation.values import as_dict, as_list

REASONS = ["Forbidden", "Invalid", "RequestEntityTooLarge", "Unauthorized"]
VALIDATION_ACTIONS = ["Audit", "Deny", "Warn"]
NOT_FOUND_ACTIONS = ["Deny", "Allow"]
MAX_AUDIT_ANNOTATIONS = 20
_CEL_IDENTIFIER = re.compile(r"^[_a-zA-Z][_a-zA-Z0-9]*$")
_NEWLINES = re.compile(r"[\n\r]+")


def validate_policy(obj: JSON) -> list[FieldError]:
    errs = validate_object_meta(as_dict(obj.get("metadata")), False, "metadata", names.name_is_dns_subdomain)
    spec = as_dict(obj.get("spec"))
    policy = spec.get("failurePolicy")
    if policy is None:
        errs.append(fe.required("spec.failurePolicy", ""))
    elif policy not in FAILURE_POLICIES:
        errs.append(fe.not_supported("spec.failurePolicy", policy, FAILURE_POLICIES))
    if isinstance(spec.get("paramKind"), dict):
        errs += validate_param_kind(spec["paramKind"], "spec.paramKind")
    constraints = spec.get("matchConstraints")
    if not isinstance(constraints, dict):
        errs.append(fe.required("spec.matchConstraints", ""))
    else:
        errs += validate_match_resources(constraints, "spec.matchConstraints")
        if not as_list(constraints.get("resourceRules")):
            errs.append(fe.required("spec.matchConstraints.resourceRules", ""))
    errs += validate_match_conditions(as_list(spec.get("matchConditions")), "spec.matchConditions")
    for index, raw in enumerate(as_list(spec.get("variables"))):
        errs += validate_variable(as_dict(raw), f"spec.variables[{index}]")
    validations, annotations = as_list(spec.get("validations")), as_list(spec.get("auditAnnotations"))
    if not validations and not annotations:
        detail = "validations or auditAnnotations must contain at least one item"
        return [*errs, fe.required("spec.validations", detail), fe.required("spec.auditAnnotations", detail)]
    for index, raw in enumerate(validations):
        errs += validate_validation(as_dict(raw), f"spec.validations[{index}]")
    if len(annotations) > MAX_AUDIT_ANNOTATIONS:
        errs.append(fe.invalid("spec.auditAnnotations", annotations,
                               f"must not have more than {MAX_AUDIT_ANNOTATIONS} auditAnnotations"))
    keys: set[str] = set()
    for index, raw in enumerate(annotations):
        annotation, at = as_dict(raw), f"spec.auditAnnotations[{index}]"
        key = str(annotation.get("key") or "")
        if not key:
            errs.append(fe.required(f"{at}.key", ""))
        if not str(annotation.get("valueExpression") or "").strip():
            errs.append(fe.required(f"{at}.valueExpression", "valueExpression is not specified"))
        else:
            errs += compile_errors(str(annotation["valueExpression"]), f"{at}.valueExpression", "any")
        if key in keys:
            errs.append(fe.duplicate(f"{at}.key", key))
        keys.add(key)
    return errs


def validate_policy_status_update(obj: JSON) -> list[FieldError]:
    return []


def validate_param_kind(kind: JSON, at: str) -> list[FieldError]:
    errs: list[FieldError] = []
    api_version = str(kind.get("apiVersion") or "")
    if not api_version:
        errs.append(fe.required(f"{at}.apiVersion", ""))
    else:
        group, _, version = api_version.rpartition("/")
        if api_version.count("/") > 1:
            errs.append(fe.invalid(f"{at}.apiVersion", api_version,
                                   f"unexpected GroupVersion string: {api_version}"))
        else:
            if group:
                problems = names.is_dns1123_subdomain(group)
                if problems:
                    errs.append(fe.invalid(f"{at}.apiVersion", group, ",".join(problems)))
            if not version:
                errs.append(fe.invalid(f"{at}.apiVersion", api_version, "version must be specified"))
            else:
                problems = names.is_dns1035_label(version)
                if problems:
                    errs.append(fe.invalid(f"{at}.apiVersion", version, ",".join(problems)))
    kind_name = str(kind.get("kind") or "")
    if not kind_name:
        errs.append(fe.required(f"{at}.kind", ""))
    else:
        problems = names.is_dns1035_label(kind_name.lower())
        if problems:
            errs.append(fe.invalid(f"{at}.kind", kind_name,
                                   "may have mixed case, but should otherwise match: " + ",".join(problems)))
    return errs


def validate_match_resources(match: JSON, at: str) -> list[FieldError]:
    errs: list[FieldError] = []
    policy = match.get("matchPolicy")
    if policy is None:
        errs.append(fe.required(f"{at}.matchPolicy", ""))
    elif policy not in MATCH_POLICIES:
        errs.append(fe.not_supported(f"{at}.matchPolicy", policy, MATCH_POLICIES))
    for key in ("namespaceSelector", "objectSelector"):
        if match.get(key) is None:
            errs.append(fe.required(f"{at}.{key}", ""))
        else:
            errs += validate_label_selector(match[key], f"{at}.{key}")
    for key in ("resourceRules", "excludeResourceRules"):
        for index, raw in enumerate(as_list(match.get(key))):
            rule, here = as_dict(raw), f"{at}.{key}[{index}]"
            seen: set[str] = set()
            for name_index, name in enumerate(as_list(rule.get("resourceNames"))):
                name = str(name)
                errs += [fe.invalid(f"{here}.resourceNames[{name_index}]", name, problem)
                         for problem in names.is_dns1123_subdomain(name)]
                if name in seen:
                    errs.append(fe.duplicate(f"{here}.resourceNames[{name_index}]", name))
                seen.add(name)
            errs += validate_rule(rule, here)
    return errs


def validate_variable(variable: JSON, at: str) -> list[FieldError]:
    errs: list[FieldError] = []
    name = str(variable.get("name") or "")
    if not name.strip():
        errs.append(fe.required(f"{at}.name", "name is not specified"))
    elif not _CEL_IDENTIFIER.match(name):
        errs.append(fe.invalid(f"{at}.name", name, "name is not a valid CEL identifier"))
    expression = str(variable.get("expression") or "")
    if not expression.strip():
        errs.append(fe.required(f"{at}.expression", "expression is not specified"))
    else:
        errs += compile_errors(expression, f"{at}.expression", "any")
    return errs


def validate_validation(validation: JSON, at: str) -> list[FieldError]:
    errs: list[FieldError] = []
    expression = str(validation.get("expression") or "")
    if not expression.strip():
        errs.append(fe.required(f"{at}.expression", "expression is not specified"))
    else:
        errs += compile_errors(expression, f"{at}.expression", "bool")
    message_expression = str(validation.get("messageExpression") or "")
    if message_expression and not message_expression.strip():
        errs.append(fe.invalid(f"{at}.messageExpression", message_expression, "must be non-empty if specified"))
    elif message_expression.strip():
        errs += compile_errors(message_expression, f"{at}.messageExpression", "string")
    message = str(validation.get("message") or "")
    if message and not message.strip():
        errs.append(fe.invalid(f"{at}.message", message, "message must be non-empty if specified"))
    elif _NEWLINES.search(message):
        errs.append(fe.invalid(f"{at}.message", message, "message must not contain line breaks"))
    reason = validation.get("reason")
    if reason is not None and reason not in REASONS:
        errs.append(fe.not_supported(f"{at}.reason", reason, REASONS))
    return errs


def compile_errors(expression: str, at: str, result: str) -> list[FieldError]:
    # (the CEL runtime loads when first needed)
    from fakeapi.machinery.cel.admission import compile_admission
    from fakeapi.machinery.cel.program import CompileError

    try:
        compile_admission(expression, True, result)
    except CompileError as error:
        return [fe.invalid(at, expression, str(error))]
    return []


def validate_binding(obj: JSON) -> list[FieldError]:
    errs = validate_object_meta(as_dict(obj.get("metadata")), False, "metadata", names.name_is_dns_subdomain)
    spec = as_dict(obj.get("spec"))
    policy_name = str(spec.get("policyName") or "")
    if not policy_name:
        errs.append(fe.required("spec.policyName", ""))
    else:
        errs += [fe.invalid("spec.policyName", policy_name, problem)
                 for problem in names.name_is_dns_subdomain(policy_name, False)]
    if isinstance(spec.get("paramRef"), dict):
        errs += validate_param_ref(spec["paramRef"], "spec.paramRef")
    if isinstance(spec.get("matchResources"), dict):
        # (upstream's path carries the typo)
        errs += validate_match_resources(spec["matchResources"], "spec.matchResouces")
    errs += validate_validation_actions(as_list(spec.get("validationActions")), "spec.validationActions")
    return errs


def validate_param_ref(ref: JSON, at: str) -> list[FieldError]:
    errs: list[FieldError] = []
    name, namespace, selector = str(ref.get("name") or ""), str(ref.get("namespace") or ""), ref.get("selector")
    if name:
        errs += [fe.invalid(f"{at}.name", name, problem) for problem in names.path_segment_name(name, False)]
        if selector is not None:
            errs.append(fe.forbidden(f"{at}.name", "name and selector are mutually exclusive"))
    if namespace:
        errs += [fe.invalid(f"{at}.namespace", namespace, problem)
                 for problem in names.path_segment_name(namespace, False)]
    if selector is not None:
        errs += validate_label_selector(selector, f"{at}.selector")
        if name:
            errs.append(fe.forbidden(f"{at}.selector", "name and selector are mutually exclusive"))
    if not name and selector is None:
        errs.append(fe.required(at, "one of name or selector must be specified"))
    action = ref.get("parameterNotFoundAction")
    if not action:
        errs.append(fe.required(f"{at}.parameterNotFoundAction", ""))
    elif action not in NOT_FOUND_ACTIONS:
        errs.append(fe.not_supported(f"{at}.parameterNotFoundAction", action, NOT_FOUND_ACTIONS))
    return errs


def validate_validation_actions(actions: list[Any], at: str) -> list[FieldError]:
    errs: list[FieldError] = []
    seen: set[str] = set()
    for index, action in enumerate(actions):
        if action not in VALIDATION_ACTIONS:
            errs.append(fe.not_supported(f"{at}[{index}]", action, VALIDATION_ACTIONS))
        if action in seen:
            errs.append(fe.duplicate(f"{at}[{index}]", action))
        seen.add(str(action))
    if {"Deny", "Warn"} <= seen:
        errs.append(fe.invalid(at, actions, "must not contain both Deny and Warn (repeating the same validation "
                                            "failure information in the API response and headers serves no "
                                            "purpose)"))
    if not seen:
        errs.append(fe.required(at, "at least one validation action is required"))
    return errs
