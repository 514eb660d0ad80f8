"""ValidatePodTemplateSpec (core validation) and the template checks the workload kinds add around it."""

from __future__ import annotations

from typing import Any

from fakeapi.kinds.pod.validation.annotations import (
    validate_annotations_match_fields_on_create,
    validate_pod_specific_annotations,
)
from fakeapi.kinds.pod.validation.podspec import validate_pod_spec, visit_containers
from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation.labelselector import selector_is_empty, selector_matches
from fakeapi.machinery.validation.objectmeta import validate_annotations, validate_labels
from fakeapi.machinery.validation.values import as_dict, as_list, go_string_map

SELECTOR_MISMATCH = "`selector` does not match template `labels`"


def validate_pod_template_spec(template: Any, path: str) -> list[FieldError]:
    """ValidatePodTemplateSpec: labels and annotations (reported at `<path>.labels`, not under metadata, as
    upstream does), the pod spec, and no ephemeral containers."""
    template = as_dict(template)
    meta, spec = as_dict(template.get("metadata")), as_dict(template.get("spec"))
    annotations = as_dict(meta.get("annotations"))
    errs = validate_labels(meta.get("labels"), f"{path}.labels")
    errs += validate_annotations(meta.get("annotations"), f"{path}.annotations")
    errs += validate_pod_specific_annotations(annotations, spec, f"{path}.annotations")
    errs += validate_pod_spec(spec, "", f"{path}.spec")
    if annotations:
        errs += validate_annotations_match_fields_on_create(annotations, spec, visit_containers(spec, f"{path}.spec"))
    if as_list(spec.get("ephemeralContainers")):
        errs.append(fe.forbidden(f"{path}.spec.ephemeralContainers",
                                 "ephemeral containers not allowed in pod template"))
    return errs


def template_labels(template: Any) -> JSON:
    return as_dict(as_dict(as_dict(template).get("metadata")).get("labels"))


def validate_selector_matches_template(selector: Any, template: Any, path: str) -> list[FieldError]:
    """A (valid) selector must select the template's labels: `<path>.metadata.labels`. An empty selector
    selects everything; a null one nothing (so a missing selector draws this error as well)."""
    if (selector is not None and selector_is_empty(selector)) or selector_matches(selector, template_labels(template)):
        return []
    labels = as_dict(as_dict(as_dict(template).get("metadata")).get("labels"))
    shown = go_string_map({key: str(value) for key, value in labels.items()}) if labels else \
        go_string_map(None)
    return [fe.invalid(f"{path}.metadata.labels", shown, SELECTOR_MISMATCH)]


def validate_restart_always(template: Any, path: str, kind: str) -> list[FieldError]:
    """What the controllers that keep pods running require of their template: restartPolicy Always and no
    activeDeadlineSeconds (upstream's ReplicaSet, DaemonSet, StatefulSet and ReplicationController checks)."""
    spec = as_dict(as_dict(template).get("spec"))
    errs: list[FieldError] = []
    if spec.get("restartPolicy") != "Always":
        errs.append(fe.not_supported(f"{path}.spec.restartPolicy", spec.get("restartPolicy") or "", ["Always"]))
    if spec.get("activeDeadlineSeconds") is not None:
        errs.append(fe.forbidden(f"{path}.spec.activeDeadlineSeconds",
                                 f"activeDeadlineSeconds in {kind} is not Supported"))
    return errs
