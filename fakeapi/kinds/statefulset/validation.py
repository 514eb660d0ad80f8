"""StatefulSet validation (upstream apps ValidateStatefulSet, ValidateStatefulSetUpdate,
ValidateStatefulSetStatusUpdate). The pod template's spec is not validated here, as upstream does not (its
pods are)."""

from __future__ import annotations

from typing import Any

from fakeapi.kinds.pod.validation.annotations import validate_pod_specific_annotations
from fakeapi.kinds.podtemplate.validation import validate_restart_always, validate_selector_matches_template
from fakeapi.kinds.workload.replicated import validate_required_selector
from fakeapi.kinds.workload.validation import (
    go_int_or_string,
    go_pointer,
    go_strategy,
    int_or_percent_value,
    is_decremented,
    nonnegative,
    nonnegative_fields,
    not_more_than_100_percent,
    replica_counts_not_above,
    validate_positive_int_or_percent,
)
from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation import names
from fakeapi.machinery.validation.labelselector import go_label_selector, selector_is_valid
from fakeapi.machinery.validation.objectmeta import (
    validate_annotations,
    validate_labels,
    validate_object_meta,
    validate_object_meta_update,
)
from fakeapi.machinery.validation.values import GoText, as_dict, as_int, as_str, semantic_equal

POLICY_TYPES = ["Retain", "Delete"]
_UPDATABLE = ("replicas", "ordinals", "template", "updateStrategy", "persistentVolumeClaimRetentionPolicy",
              "minReadySeconds")
SPEC_UPDATE_FORBIDDEN = ("updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', "
                         "'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden")


def validate_stateful_set(stateful_set: JSON) -> list[FieldError]:
    """StatefulSet names are DNS labels: its pods' hostnames are made from them."""
    errs = validate_object_meta(as_dict(stateful_set.get("metadata")), True, "metadata", names.name_is_dns_label)
    return errs + validate_stateful_set_spec(as_dict(stateful_set.get("spec")), "spec")


def validate_stateful_set_update(new: JSON, old: JSON) -> list[FieldError]:
    """The spec again (not the name: older names were DNS subdomains), and only the updatable fields changed."""
    errs = validate_object_meta_update(as_dict(new.get("metadata")), as_dict(old.get("metadata")))
    spec, old_spec = as_dict(new.get("spec")), as_dict(old.get("spec"))
    errs += validate_stateful_set_spec(spec, "spec")
    if not semantic_equal({**spec, **{key: old_spec.get(key) for key in _UPDATABLE}}, old_spec):
        errs.append(fe.forbidden("spec", SPEC_UPDATE_FORBIDDEN))
    return errs


def validate_stateful_set_spec(spec: JSON, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    policy = spec.get("podManagementPolicy")
    if not policy:
        errs.append(fe.required(f"{path}.podManagementPolicy"))
    elif policy not in ("OrderedReady", "Parallel"):
        errs.append(fe.invalid(f"{path}.podManagementPolicy", policy, "must be 'OrderedReady' or 'Parallel'"))
    errs += _validate_update_strategy(as_dict(spec.get("updateStrategy")), f"{path}.updateStrategy")
    retention = spec.get("persistentVolumeClaimRetentionPolicy")
    if isinstance(retention, dict):
        for key in ("whenDeleted", "whenScaled"):
            if retention.get(key) not in POLICY_TYPES:
                errs.append(fe.not_supported(f"{path}.persistentVolumeClaimRetentionPolicy.{key}",
                                             as_str(retention.get(key)), POLICY_TYPES))
    errs += nonnegative(spec.get("replicas"), f"{path}.replicas")
    errs += nonnegative(spec.get("minReadySeconds"), f"{path}.minReadySeconds")
    if isinstance(spec.get("ordinals"), dict):
        errs += nonnegative(spec["ordinals"].get("start"), f"{path}.ordinals.start")
    selector = spec.get("selector")
    errs += validate_required_selector(selector, f"{path}.selector", "statefulset")
    template = spec.get("template")
    if not selector_is_valid(selector):
        errs.append(fe.invalid(f"{path}.selector", go_label_selector(selector), ""))
    else:
        errs += validate_selector_matches_template(selector, template, f"{path}.template")
        meta = as_dict(as_dict(template).get("metadata"))
        errs += validate_labels(meta.get("labels"), f"{path}.template.labels")
        errs += validate_annotations(meta.get("annotations"), f"{path}.template.annotations")
        spec_of_template = as_dict(as_dict(template).get("spec"))
        errs += validate_pod_specific_annotations(as_dict(meta.get("annotations")), spec_of_template,
                                                  f"{path}.template.annotations")
    return errs + validate_restart_always(template, f"{path}.template", "StatefulSet")


def _validate_update_strategy(strategy: JSON, path: str) -> list[FieldError]:
    kind, rolling = strategy.get("type"), strategy.get("rollingUpdate")
    if not kind:
        return [fe.required(path)]
    if kind == "OnDelete":
        if rolling is not None:
            return [fe.invalid(f"{path}.rollingUpdate", _go_rolling_update(as_dict(rolling)),
                               "only allowed for updateStrategy 'RollingUpdate'")]
        return []
    if kind == "RollingUpdate":
        return _validate_rolling_update(as_dict(rolling), f"{path}.rollingUpdate") if rolling is not None else []
    shown = go_strategy("apps.StatefulSetUpdateStrategy", strategy, "apps.RollingUpdateStatefulSetStrategy")
    return [fe.invalid(path, shown, "must be 'RollingUpdate' or 'OnDelete'")]


def _validate_rolling_update(rolling: JSON, path: str) -> list[FieldError]:
    errs = nonnegative(rolling.get("partition"), f"{path}.partition")
    unavailable = rolling.get("maxUnavailable")
    if unavailable is not None:
        errs += validate_positive_int_or_percent(unavailable, f"{path}.maxUnavailable")
        if int_or_percent_value(unavailable) == 0:
            errs.append(fe.invalid(f"{path}.maxUnavailable", go_int_or_string(unavailable), "cannot be 0"))
        errs += not_more_than_100_percent(unavailable, f"{path}.maxUnavailable")
    return errs


def _go_rolling_update(rolling: JSON) -> GoText:
    shown = go_pointer("intstr.IntOrString", rolling.get("maxUnavailable"))
    return GoText(f"apps.RollingUpdateStatefulSetStrategy{{Partition:{as_int(rolling.get('partition'))}, "
                  f"MaxUnavailable:{shown}}}")


def validate_stateful_set_status_update(new: JSON, old: JSON) -> list[FieldError]:
    status = as_dict(new.get("status"))
    errs = validate_stateful_set_status(status, "status")
    errs += validate_object_meta_update(as_dict(new.get("metadata")), as_dict(old.get("metadata")))
    if is_decremented(status.get("collisionCount"), as_dict(old.get("status")).get("collisionCount")):
        errs.append(fe.invalid("status.collisionCount", as_int(status.get("collisionCount")), "cannot be decremented"))
    return errs


def validate_stateful_set_status(status: Any, path: str) -> list[FieldError]:
    status = as_dict(status)
    errs = nonnegative_fields(status, path, "replicas", "readyReplicas", "currentReplicas", "updatedReplicas",
                              "availableReplicas")
    for name in ("observedGeneration", "collisionCount"):
        if status.get(name) is not None:
            errs += nonnegative(status.get(name), f"{path}.{name}")
    errs += replica_counts_not_above(status, path, "readyReplicas", "currentReplicas", "updatedReplicas",
                                     "availableReplicas")
    if as_int(status.get("availableReplicas")) > as_int(status.get("readyReplicas")):
        errs.append(fe.invalid(f"{path}.availableReplicas", as_int(status.get("availableReplicas")),
                               "cannot be greater than status.readyReplicas"))
    return errs
