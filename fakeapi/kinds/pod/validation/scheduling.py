"""Scheduling constraints: label selectors, affinity, tolerations, topology spread, scheduling gates."""

from __future__ import annotations

from typing import Any

from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation import names
from fakeapi.machinery.validation.labelselector import validate_label_selector
from fakeapi.machinery.validation.objectmeta import validate_label_name
from fakeapi.machinery.validation.values import as_dict, as_int, as_list, as_str

_TAINT_EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"]
_NOT_POSITIVE = "must be greater than zero"


def _node_selector_requirement(requirement: JSON, path: str, check_values: bool) -> list[FieldError]:
    errs: list[FieldError] = []
    operator, values = requirement.get("operator"), as_list(requirement.get("values"))
    if operator in ("In", "NotIn"):
        if not values:
            errs.append(fe.required(f"{path}.values", "must be specified when `operator` is 'In' or 'NotIn'"))
    elif operator in ("Exists", "DoesNotExist"):
        if values:
            detail = "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
            errs.append(fe.forbidden(f"{path}.values", detail))
    elif operator in ("Gt", "Lt"):
        if len(values) != 1:
            detail = "must be specified single value when `operator` is 'Lt' or 'Gt'"
            errs.append(fe.required(f"{path}.values", detail))
    else:
        errs.append(fe.invalid(f"{path}.operator", as_str(operator), "not a valid selector operator"))
    errs += validate_label_name(as_str(requirement.get("key")), f"{path}.key")
    if check_values:
        for index, value in enumerate(values):
            at = f"{path}.values[{index}]"
            errs += [fe.invalid(at, value, msg) for msg in names.is_valid_label_value(as_str(value))]
    return errs


def _node_field_requirement(requirement: JSON, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    values = as_list(requirement.get("values"))
    if requirement.get("operator") in ("In", "NotIn"):
        if len(values) != 1:
            detail = "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"
            errs.append(fe.required(f"{path}.values", detail))
    else:
        errs.append(
            fe.invalid(
                f"{path}.operator", as_str(requirement.get("operator")), "not a valid selector operator"
            )
        )
    if requirement.get("key") != "metadata.name":
        errs.append(
            fe.invalid(f"{path}.key", as_str(requirement.get("key")), "not a valid field selector key")
        )
    else:
        for index, value in enumerate(values):
            at = f"{path}.values[{index}]"
            errs += [fe.invalid(at, value, msg) for msg in names.is_dns1123_subdomain(as_str(value))]
    return errs


def validate_node_selector_term(term: JSON, path: str, check_values: bool) -> list[FieldError]:
    errs: list[FieldError] = []
    for index, requirement in enumerate(as_list(term.get("matchExpressions"))):
        errs += _node_selector_requirement(
            as_dict(requirement), f"{path}.matchExpressions[{index}]", check_values
        )
    for index, requirement in enumerate(as_list(term.get("matchFields"))):
        errs += _node_field_requirement(as_dict(requirement), f"{path}.matchFields[{index}]")
    return errs


def _pod_affinity_term(term: JSON, path: str) -> list[FieldError]:
    errs = validate_label_selector(term.get("labelSelector"), f"{path}.labelSelector")
    errs += validate_label_selector(term.get("namespaceSelector"), f"{path}.namespaceSelector")
    for namespace in as_list(term.get("namespaces")):
        text = as_str(namespace)
        errs += [fe.invalid(f"{path}.namespace", text, msg) for msg in names.name_is_dns_label(text, False)]
    errs += _match_label_keys(term, path)
    topology_key = as_str(term.get("topologyKey"))
    if not topology_key:
        errs.append(fe.required(f"{path}.topologyKey", "can not be empty"))
    return errs + validate_label_name(topology_key, f"{path}.topologyKey")


def _match_label_keys(term: JSON, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    selector = term.get("labelSelector")
    match_keys = [as_str(k) for k in as_list(term.get("matchLabelKeys"))]
    mismatch_keys = [as_str(k) for k in as_list(term.get("mismatchLabelKeys"))]
    for field_name, keys in (("matchLabelKeys", match_keys), ("mismatchLabelKeys", mismatch_keys)):
        if not keys:
            continue
        if not isinstance(selector, dict):
            errs.append(
                fe.forbidden(f"{path}.{field_name}", "must not be specified when labelSelector is not set")
            )
            continue
        for index, key in enumerate(keys):
            errs += validate_label_name(key, f"{path}.{field_name}[{index}]")
    if isinstance(selector, dict):
        positions = {key: index for index, key in enumerate(match_keys)}
        selector_keys = set(as_dict(selector.get("matchLabels")))
        for expression in as_list(selector.get("matchExpressions")):
            key = as_str(as_dict(expression).get("key"))
            if key in positions and key in selector_keys:
                # upstream indexes the term path itself here, not matchLabelKeys
                errs.append(
                    fe.invalid(
                        f"{path}[{positions[key]}]", key, "exists in both matchLabelKeys and labelSelector"
                    )
                )
            selector_keys.add(key)
    mismatch = set(mismatch_keys)
    for index, key in enumerate(match_keys):
        if key in mismatch:
            detail = "exists in both matchLabelKeys and mismatchLabelKeys"
            errs.append(fe.invalid(f"{path}.matchLabelKeys[{index}]", key, detail))
    return errs


def _pod_affinity(affinity: JSON, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    required = f"{path}.requiredDuringSchedulingIgnoredDuringExecution"
    for index, term in enumerate(as_list(affinity.get("requiredDuringSchedulingIgnoredDuringExecution"))):
        errs += _pod_affinity_term(as_dict(term), f"{required}[{index}]")
    preferred = f"{path}.preferredDuringSchedulingIgnoredDuringExecution"
    for index, raw in enumerate(as_list(affinity.get("preferredDuringSchedulingIgnoredDuringExecution"))):
        weighted, at = as_dict(raw), f"{preferred}[{index}]"
        weight = as_int(weighted.get("weight"))
        if not 0 < weight <= 100:
            errs.append(fe.invalid(f"{at}.weight", weight, "must be in the range 1-100"))
        errs += _pod_affinity_term(as_dict(weighted.get("podAffinityTerm")), f"{at}.podAffinityTerm")
    return errs


def _node_affinity(affinity: JSON, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    required = affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    if isinstance(required, dict):
        terms_path = f"{path}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
        terms = as_list(required.get("nodeSelectorTerms"))
        if not terms:
            errs.append(fe.required(terms_path, "must have at least one node selector term"))
        for index, term in enumerate(terms):
            errs += validate_node_selector_term(as_dict(term), f"{terms_path}[{index}]", True)
    preferred = f"{path}.preferredDuringSchedulingIgnoredDuringExecution"
    for index, raw in enumerate(as_list(affinity.get("preferredDuringSchedulingIgnoredDuringExecution"))):
        term, at = as_dict(raw), f"{preferred}[{index}]"
        weight = as_int(term.get("weight"))
        if not 0 < weight <= 100:
            errs.append(fe.invalid(f"{at}.weight", weight, "must be in the range 1-100"))
        errs += validate_node_selector_term(as_dict(term.get("preference")), f"{at}.preference", False)
    return errs


def validate_affinity(affinity: Any, path: str) -> list[FieldError]:
    if not isinstance(affinity, dict):
        return []
    errs: list[FieldError] = []
    if isinstance(affinity.get("nodeAffinity"), dict):
        errs += _node_affinity(affinity["nodeAffinity"], f"{path}.nodeAffinity")
    for key in ("podAffinity", "podAntiAffinity"):
        if isinstance(affinity.get(key), dict):
            errs += _pod_affinity(affinity[key], f"{path}.{key}")
    return errs


def validate_tolerations(tolerations: Any, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    for index, raw in enumerate(as_list(tolerations)):
        toleration, at = as_dict(raw), f"{path}[{index}]"
        key, operator = as_str(toleration.get("key")), as_str(toleration.get("operator"))
        value, effect = as_str(toleration.get("value")), as_str(toleration.get("effect"))
        if key:
            errs += validate_label_name(key, f"{at}.key")
        if not key and operator != "Exists":
            detail = (
                'operator must be Exists when `key` is empty, which means "match all values and all keys"'
            )
            errs.append(fe.invalid(f"{at}.operator", operator, detail))
        if toleration.get("tolerationSeconds") is not None and effect != "NoExecute":
            errs.append(
                fe.invalid(
                    f"{at}.effect", effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"
                )
            )
        if operator in ("Equal", ""):
            messages = names.is_valid_label_value(value)
            if messages:
                errs.append(fe.invalid(f"{at}.operator", value, ";".join(messages)))
        elif operator == "Exists":
            if value:
                errs.append(
                    fe.invalid(f"{at}.operator", value, "value must be empty when `operator` is 'Exists'")
                )
        else:
            errs.append(fe.not_supported(f"{at}.operator", operator, ["Equal", "Exists"]))
        if effect and effect not in _TAINT_EFFECTS:
            errs.append(fe.not_supported(f"{at}.effect", effect, _TAINT_EFFECTS))
    return errs


def validate_scheduling_gates(gates: Any, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    seen: set[str] = set()
    for index, raw in enumerate(as_list(gates)):
        name = as_str(as_dict(raw).get("name"))
        errs += [fe.invalid(f"{path}[{index}]", name, msg) for msg in names.is_qualified_name(name)]
        if name in seen:
            errs.append(fe.duplicate(f"{path}[{index}]", name))
        seen.add(name)
    return errs


def validate_topology_spread(constraints: Any, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    items = [as_dict(c) for c in as_list(constraints)]
    for index, constraint in enumerate(items):
        at = f"{path}[{index}]"
        max_skew = as_int(constraint.get("maxSkew"))
        if max_skew <= 0:
            errs.append(fe.invalid(f"{at}.maxSkew", max_skew, _NOT_POSITIVE))
        key, action = as_str(constraint.get("topologyKey")), as_str(constraint.get("whenUnsatisfiable"))
        if not key:
            errs.append(fe.required(f"{at}.topologyKey", "can not be empty"))
        if action not in ("DoNotSchedule", "ScheduleAnyway"):
            errs.append(
                fe.not_supported(f"{at}.whenUnsatisfiable", action, ["DoNotSchedule", "ScheduleAnyway"])
            )
        for later in items[index + 1 :]:
            if as_str(later.get("topologyKey")) == key and as_str(later.get("whenUnsatisfiable")) == action:
                errs.append(fe.duplicate(f"{at}.{{topologyKey, whenUnsatisfiable}}", f"{{{key}, {action}}}"))
                break
        min_domains = constraint.get("minDomains")
        if isinstance(min_domains, int):
            if min_domains <= 0:
                errs.append(fe.invalid(f"{at}.minDomains", min_domains, _NOT_POSITIVE))
            if action != "DoNotSchedule":
                detail = f"can only use minDomains if whenUnsatisfiable=DoNotSchedule, not {action}"
                errs.append(fe.invalid(f"{at}.minDomains", min_domains, detail))
        for policy_key in ("nodeAffinityPolicy", "nodeTaintsPolicy"):
            policy = constraint.get(policy_key)
            if policy is not None and policy not in ("Honor", "Ignore"):
                errs.append(fe.not_supported(f"{at}.{policy_key}", policy, ["Honor", "Ignore"]))
        errs += _topology_match_label_keys(constraint, f"{at}.matchLabelKeys")
        errs += validate_label_selector(constraint.get("labelSelector"), f"{at}.labelSelector")
    return errs


def _topology_match_label_keys(constraint: JSON, path: str) -> list[FieldError]:
    keys = [as_str(k) for k in as_list(constraint.get("matchLabelKeys"))]
    if not keys:
        return []
    errs: list[FieldError] = []
    selector = constraint.get("labelSelector")
    selector_keys: set[str] = set()
    if isinstance(selector, dict):
        selector_keys = set(as_dict(selector.get("matchLabels")))
        selector_keys |= {as_str(as_dict(e).get("key")) for e in as_list(selector.get("matchExpressions"))}
    else:
        errs.append(fe.forbidden(path, "must not be specified when labelSelector is not set"))
    for index, key in enumerate(keys):
        errs += validate_label_name(key, f"{path}[{index}]")
        if key in selector_keys:
            errs.append(
                fe.invalid(f"{path}[{index}]", key, "exists in both matchLabelKeys and labelSelector")
            )
    return errs
