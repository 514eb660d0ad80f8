"""RBAC validation (upstream pkg/apis/rbac/validation): rules, aggregation rules, role references and
subjects. Names need only be valid path segments, as upstream's minimalNameRequirements."""

from __future__ import annotations

from typing import Any

from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation import names
from fakeapi.machinery.validation.labelselector import validate_label_selector
from fakeapi.machinery.validation.objectmeta import validate_object_meta, validate_object_meta_update
from fakeapi.machinery.validation.values import as_dict, as_str, go_string_slice, go_struct

GROUP = "rbac.authorization.k8s.io"
SUBJECT_KINDS = ["ServiceAccount", "User", "Group"]


def validate_role(role: JSON, namespaced: bool) -> list[FieldError]:
    errs = validate_object_meta(as_dict(role.get("metadata")), namespaced, "metadata", names.path_segment_name)
    for index, rule in enumerate(role.get("rules") or []):
        errs += validate_policy_rule(as_dict(rule), namespaced, f"rules[{index}]")
    aggregation = role.get("aggregationRule")
    if not namespaced and aggregation is not None:
        errs += _validate_aggregation_rule(as_dict(aggregation))
    return errs


def validate_role_update(new: JSON, old: JSON, namespaced: bool) -> list[FieldError]:
    return validate_role(new, namespaced) + validate_object_meta_update(as_dict(new.get("metadata")),
                                                                        as_dict(old.get("metadata")))


def validate_policy_rule(rule: JSON, namespaced: bool, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    if not rule.get("verbs"):
        errs.append(fe.required(f"{path}.verbs", "verbs must contain at least one value"))
    urls = rule.get("nonResourceURLs") or []
    if urls:
        if namespaced:
            errs.append(fe.invalid(f"{path}.nonResourceURLs", go_string_slice(urls),
                                   "namespaced rules cannot apply to non-resource URLs"))
        if rule.get("apiGroups") or rule.get("resources") or rule.get("resourceNames"):
            errs.append(fe.invalid(f"{path}.nonResourceURLs", go_string_slice(urls),
                                   "rules cannot apply to both regular resources and non-resource URLs"))
        return errs
    if not rule.get("apiGroups"):
        errs.append(fe.required(f"{path}.apiGroups", "resource rules must supply at least one api group"))
    resources = rule.get("resources") or []
    if not resources:
        errs.append(fe.required(f"{path}.resources", "resource rules must supply at least one resource"))
    if rule.get("resourceNames") and len(resources) > 1:
        errs.append(fe.required(f"{path}.resourceNames", "resource names cannot apply to multiple resources"))
    return errs


def _validate_aggregation_rule(rule: JSON) -> list[FieldError]:
    path = "aggregationRule.clusterRoleSelectors"
    selectors = rule.get("clusterRoleSelectors") or []
    if not selectors:
        return [fe.required(path, "at least one clusterRoleSelector required if aggregationRule is non-nil")]
    errs: list[FieldError] = []
    for index, selector in enumerate(selectors):
        errs += validate_label_selector(selector, f"{path}[{index}]")
    return errs


def validate_binding(binding: JSON, namespaced: bool) -> list[FieldError]:
    errs = validate_object_meta(as_dict(binding.get("metadata")), namespaced, "metadata", names.path_segment_name)
    ref = as_dict(binding.get("roleRef"))
    if ref.get("apiGroup") != GROUP:
        errs.append(fe.not_supported("roleRef.apiGroup", as_str(ref.get("apiGroup")), [GROUP]))
    kinds = ["Role", "ClusterRole"] if namespaced else ["ClusterRole"]
    if ref.get("kind") not in kinds:
        errs.append(fe.not_supported("roleRef.kind", as_str(ref.get("kind")), kinds))
    name = as_str(ref.get("name"))
    if not name:
        errs.append(fe.required("roleRef.name"))
    else:
        errs += [fe.invalid("roleRef.name", name, message) for message in names.path_segment_name(name, False)]
    for index, subject in enumerate(binding.get("subjects") or []):
        errs += _validate_subject(as_dict(subject), namespaced, f"subjects[{index}]")
    return errs


def validate_binding_update(new: JSON, old: JSON, namespaced: bool) -> list[FieldError]:
    errs = validate_binding(new, namespaced)
    errs += validate_object_meta_update(as_dict(new.get("metadata")), as_dict(old.get("metadata")))
    new_ref, old_ref = as_dict(new.get("roleRef")), as_dict(old.get("roleRef"))
    if _ref_fields(new_ref) != _ref_fields(old_ref):
        errs.append(fe.invalid("roleRef", go_struct("rbac.RoleRef", zip(("APIGroup", "Kind", "Name"),
                                                                          _ref_fields(new_ref), strict=True)),
                               "cannot change roleRef"))
    return errs


def _ref_fields(ref: JSON) -> tuple[str, str, str]:
    return as_str(ref.get("apiGroup")), as_str(ref.get("kind")), as_str(ref.get("name"))


def _validate_subject(subject: JSON, namespaced: bool, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    name: Any = as_str(subject.get("name"))
    api_group = as_str(subject.get("apiGroup"))
    if not name:
        errs.append(fe.required(f"{path}.name"))
    kind = subject.get("kind")
    if kind == "ServiceAccount":
        if name:
            errs += [fe.invalid(f"{path}.name", name, message)
                     for message in names.name_is_dns_subdomain(name, False)]
        if api_group:
            errs.append(fe.not_supported(f"{path}.apiGroup", api_group, [""]))
        if not namespaced and not subject.get("namespace"):
            errs.append(fe.required(f"{path}.namespace"))
    elif kind in ("User", "Group"):
        if not name:
            errs.append(fe.invalid(f"{path}.name", name, f"{kind.lower()} name cannot be empty"))
        if api_group != GROUP:
            errs.append(fe.not_supported(f"{path}.apiGroup", api_group, [GROUP]))
    else:
        errs.append(fe.not_supported(f"{path}.kind", as_str(kind), SUBJECT_KINDS))
    return errs
