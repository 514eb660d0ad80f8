"""Webhook configuration validation (upstream pkg/apis/admissionregistration/validation, v1.32): the webhooks'
names, rules, policies, side effects, timeouts, selectors, client configs, review versions and match
conditions, with upstream's messages and paths."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation import names
from fakeapi.machinery.validation.labelselector import validate_label_selector
from fakeapi.machinery.validation.objectmeta import validate_object_meta
from fakeapi.machinery.validation.values import as_dict, as_list

ACCEPTED_REVIEW_VERSIONS = ("v1", "v1beta1")
FAILURE_POLICIES = ["Fail", "Ignore"]
MATCH_POLICIES = ["Equivalent", "Exact"]
NO_SIDE_EFFECTS = ["None", "NoneOnDryRun"]
SIDE_EFFECTS = ["None", "NoneOnDryRun", "Some", "Unknown"]
OPERATIONS = ["*", "CONNECT", "CREATE", "DELETE", "UPDATE"]
REINVOCATION_POLICIES = ["IfNeeded", "Never"]
SCOPES = ["*", "Cluster", "Namespaced"]
MAX_MATCH_CONDITIONS = 64


def validate_configuration(obj: JSON, mutating: bool, lenient: bool = False) -> list[FieldError]:
    """Create validation; `lenient` for an update of a configuration that already broke the v1 rules (upstream
    keeps accepting what it stored before)."""
    errs = validate_object_meta(as_dict(obj.get("metadata")), False, "metadata", names.name_is_dns_subdomain)
    seen: set[str] = set()
    for index, raw in enumerate(as_list(obj.get("webhooks"))):
        hook, at = as_dict(raw), f"webhooks[{index}]"
        errs += validate_webhook(hook, at, mutating, lenient)
        errs += validate_review_versions(as_list(hook.get("admissionReviewVersions")),
                                         f"{at}.admissionReviewVersions", not lenient)
        name = hook.get("name")
        if isinstance(name, str) and name and not lenient:
            if name in seen:
                errs.append(fe.duplicate(f"{at}.name", name))
            seen.add(name)
    return errs


def validate_configuration_update(new: JSON, old: JSON, mutating: bool) -> list[FieldError]:
    old_hooks = [as_dict(hook) for hook in as_list(old.get("webhooks"))]
    strict = all(hook.get("sideEffects") in NO_SIDE_EFFECTS for hook in old_hooks) and all(
        not hook.get("admissionReviewVersions")
        or any(version in ACCEPTED_REVIEW_VERSIONS for version in as_list(hook.get("admissionReviewVersions")))
        for hook in old_hooks)
    return validate_configuration(new, mutating, lenient=not strict)


def validate_webhook(hook: JSON, at: str, mutating: bool, lenient: bool) -> list[FieldError]:
    errs = fully_qualified_name(str(hook.get("name") or ""), f"{at}.name")
    for index, rule in enumerate(as_list(hook.get("rules"))):
        errs += validate_rule(as_dict(rule), f"{at}.rules[{index}]")
    if hook.get("failurePolicy") is not None and hook["failurePolicy"] not in FAILURE_POLICIES:
        errs.append(fe.not_supported(f"{at}.failurePolicy", hook["failurePolicy"], FAILURE_POLICIES))
    if hook.get("matchPolicy") is not None and hook["matchPolicy"] not in MATCH_POLICIES:
        errs.append(fe.not_supported(f"{at}.matchPolicy", hook["matchPolicy"], MATCH_POLICIES))
    allowed = SIDE_EFFECTS if lenient else NO_SIDE_EFFECTS
    side_effects = hook.get("sideEffects")
    if side_effects is None:
        errs.append(fe.required(f"{at}.sideEffects", f"must specify one of {', '.join(allowed)}"))
    elif side_effects not in allowed:
        errs.append(fe.not_supported(f"{at}.sideEffects", side_effects, allowed))
    timeout = hook.get("timeoutSeconds")
    if isinstance(timeout, int) and not 1 <= timeout <= 30:
        errs.append(fe.invalid(f"{at}.timeoutSeconds", timeout, "the timeout value must be between 1 and 30 seconds"))
    errs += validate_label_selector(hook.get("namespaceSelector"), f"{at}.namespaceSelector")
    errs += validate_label_selector(hook.get("objectSelector"), f"{at}.objectSelector")
    policy = hook.get("reinvocationPolicy")
    if mutating and policy is not None and policy not in REINVOCATION_POLICIES:
        errs.append(fe.not_supported(f"{at}.reinvocationPolicy", policy, REINVOCATION_POLICIES))
    errs += validate_client_config(as_dict(hook.get("clientConfig")), f"{at}.clientConfig")
    errs += validate_match_conditions(as_list(hook.get("matchConditions")), f"{at}.matchConditions")
    return errs


def fully_qualified_name(name: str, at: str) -> list[FieldError]:
    """apimachinery's IsFullyQualifiedName."""
    if not name:
        return [fe.required(at, "")]
    problems = names.is_dns1123_subdomain(name)
    if problems:
        return [fe.invalid(at, name, ",".join(problems))]
    if len(name.split(".")) < 3:
        return [fe.invalid(at, name, "should be a domain with at least three segments separated by dots")]
    return []


def validate_rule(rule: JSON, at: str) -> list[FieldError]:
    """validateRuleWithOperations, subresources allowed."""
    errs: list[FieldError] = []
    operations = as_list(rule.get("operations"))
    if not operations:
        errs.append(fe.required(f"{at}.operations", ""))
    if len(operations) > 1 and "*" in operations:
        errs.append(fe.invalid(f"{at}.operations", operations, "if '*' is present, must not specify other operations"))
    for index, operation in enumerate(operations):
        if operation not in OPERATIONS:
            errs.append(fe.not_supported(f"{at}.operations[{index}]", operation, OPERATIONS))
    groups = as_list(rule.get("apiGroups"))
    if not groups:
        errs.append(fe.required(f"{at}.apiGroups", ""))
    if len(groups) > 1 and "*" in groups:
        errs.append(fe.invalid(f"{at}.apiGroups", groups, "if '*' is present, must not specify other API groups"))
    versions = as_list(rule.get("apiVersions"))
    if not versions:
        errs.append(fe.required(f"{at}.apiVersions", ""))
    if len(versions) > 1 and "*" in versions:
        errs.append(fe.invalid(f"{at}.apiVersions", versions, "if '*' is present, must not specify other API versions"))
    for index, version in enumerate(versions):
        if version == "":
            errs.append(fe.required(f"{at}.apiVersions[{index}]", ""))
    errs += validate_resources(as_list(rule.get("resources")), f"{at}.resources")
    scope = rule.get("scope")
    if scope is not None and scope not in SCOPES:
        errs.append(fe.not_supported(f"{at}.scope", scope, SCOPES))
    return errs


def validate_resources(resources: list[Any], at: str) -> list[FieldError]:
    if not resources:
        return [fe.required(at, "")]
    errs: list[FieldError] = []
    wildcard_subresources: set[str] = set()  # x/*
    wildcard_resources: set[str] = set()  # */x
    double_wildcard = single_wildcard = without_subresource = False
    for index, entry in enumerate(resources):
        entry = str(entry)
        if entry == "":
            errs.append(fe.required(f"{at}[{index}]", ""))
            continue
        double_wildcard = double_wildcard or entry == "*/*"
        single_wildcard = single_wildcard or entry == "*"
        parts = entry.split("/", 1)
        if len(parts) == 1:
            without_subresource = without_subresource or entry != "*"
            continue
        resource, subresource = parts
        if resource in wildcard_subresources:
            errs.append(fe.invalid(f"{at}[{index}]", entry, f"if '{resource}/*' is present, must not specify {entry}"))
        if subresource in wildcard_resources:
            errs.append(fe.invalid(f"{at}[{index}]", entry,
                                   f"if '*/{subresource}' is present, must not specify {entry}"))
        if subresource == "*":
            wildcard_subresources.add(resource)
        if resource == "*":
            wildcard_resources.add(subresource)
    if len(resources) > 1 and double_wildcard:
        errs.append(fe.invalid(at, resources, "if '*/*' is present, must not specify other resources"))
    if single_wildcard and without_subresource:
        errs.append(fe.invalid(at, resources,
                               "if '*' is present, must not specify other resources without subresources"))
    return errs


def validate_client_config(config: JSON, at: str) -> list[FieldError]:
    url, service = config.get("url"), config.get("service")
    if (url is None) == (service is None):
        return [fe.required(at, "exactly one of url or service is required")]
    if url is not None:
        return validate_url(str(url), f"{at}.url")
    service = as_dict(service)
    return validate_service(service, f"{at}.service")


def validate_url(text: str, at: str) -> list[FieldError]:
    """apiserver's ValidateWebhookURL with https required."""
    form = "; desired format: https://host[/path]"
    try:
        parts = urlsplit(text)
        host = parts.netloc.rsplit("@", 1)[-1]
    except ValueError as error:
        return [fe.required(at, f"url must be a valid URL: {error}{form}")]
    errs: list[FieldError] = []
    if parts.scheme != "https":
        errs.append(fe.invalid(at, parts.scheme, "'https' is the only allowed URL scheme" + form))
    if not host:
        errs.append(fe.invalid(at, host, "host must be specified" + form))
    if "@" in parts.netloc:
        errs.append(fe.invalid(at, parts.netloc.rsplit("@", 1)[0], "user information is not permitted in the URL"))
    if parts.fragment:
        errs.append(fe.invalid(at, parts.fragment, "fragments are not permitted in the URL"))
    if parts.query:
        errs.append(fe.invalid(at, parts.query, "query parameters are not permitted in the URL"))
    return errs


def validate_service(service: JSON, at: str) -> list[FieldError]:
    """apiserver's ValidateWebhookService."""
    errs: list[FieldError] = []
    if not service.get("name"):
        errs.append(fe.required(f"{at}.name", "service name is required"))
    if not service.get("namespace"):
        errs.append(fe.required(f"{at}.namespace", "service namespace is required"))
    port = service.get("port", 443)
    if isinstance(port, int):
        problems = names.is_valid_port_num(port)
        if problems:
            errs.append(fe.invalid(f"{at}.port", port, "port is not valid: " + ", ".join(problems)))
    path = service.get("path")
    if not isinstance(path, str) or path in ("", "/"):
        return errs
    if path == "//":
        return [*errs, fe.invalid(f"{at}.path", path, "segment[0] may not be empty")]
    if not path.startswith("/"):
        errs.append(fe.invalid(f"{at}.path", path, "must start with a '/'"))
    checked = path[1:]
    if checked.endswith("/"):
        checked = checked[:-1]
    for index, step in enumerate(checked.split("/")):
        if not step:
            errs.append(fe.invalid(f"{at}.path", path, f"segment[{index}] may not be empty"))
            continue
        errs += [fe.invalid(f"{at}.path", path, f"segment[{index}]: {problem}")
                 for problem in names.is_dns1123_subdomain(step)]
    return errs


def validate_review_versions(versions: list[Any], at: str, require_recognized: bool) -> list[FieldError]:
    if not versions:
        return [fe.required(at, f"must specify one of {', '.join(ACCEPTED_REVIEW_VERSIONS)}")]
    errs: list[FieldError] = []
    seen: set[str] = set()
    accepted = False
    for index, version in enumerate(versions):
        version = str(version)
        if version in seen:
            errs.append(fe.invalid(f"{at}[{index}]", version, "duplicate version"))
            continue
        seen.add(version)
        errs += [fe.invalid(f"{at}[{index}]", version, problem) for problem in names.is_dns1035_label(version)]
        accepted = accepted or version in ACCEPTED_REVIEW_VERSIONS
    if require_recognized and not accepted:
        errs.append(fe.invalid(at, versions, f"must include at least one of {', '.join(ACCEPTED_REVIEW_VERSIONS)}"))
    return errs


def validate_match_conditions(conditions: list[Any], at: str) -> list[FieldError]:
    errs: list[FieldError] = []
    if len(conditions) > MAX_MATCH_CONDITIONS:
        errs.append(fe.too_many(at, len(conditions), MAX_MATCH_CONDITIONS))
    seen: set[str] = set()
    for index, raw in enumerate(conditions):
        condition, here = as_dict(raw), f"{at}[{index}]"
        expression = str(condition.get("expression") or "").strip()
        if not expression:
            errs.append(fe.required(f"{here}.expression", ""))
        else:
            errs += compile_errors(expression, f"{here}.expression")
        name = str(condition.get("name") or "")
        if not name:
            errs.append(fe.required(f"{here}.name", ""))
        else:
            # (upstream reports a bad name at the condition's path, not at its name's)
            errs += [fe.invalid(here, name, problem) for problem in names.is_qualified_name(name)]
            if name in seen:
                errs.append(fe.duplicate(f"{here}.name", name))
            seen.add(name)
    return errs


def compile_errors(expression: str, at: str) -> list[FieldError]:
    # (the CEL runtime loads when first needed)
    from fakeapi.machinery.cel.admission import compile_admission
    from fakeapi.machinery.cel.program import CompileError

    try:
        compile_admission(expression)
    except CompileError as error:
        return [fe.invalid(at, expression, str(error))]
    return []
