"""What upstream validates alike for Deployments and ReplicaSets: the selector, and the template as
ValidatePodTemplateSpecForReplicaSet checks it."""

from __future__ import annotations

from typing import Any

from fakeapi.kinds.podtemplate.validation import (
    validate_pod_template_spec,
    validate_restart_always,
    validate_selector_matches_template,
)
from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation.labelselector import (
    go_label_selector,
    selector_is_empty,
    selector_is_valid,
    validate_label_selector,
)


def validate_required_selector(selector: Any, path: str, kind: str) -> list[FieldError]:
    """A selector must be set, valid, and not empty (`empty selector is invalid for <kind>`)."""
    if selector is None:
        return [fe.required(path)]
    errs = validate_label_selector(selector, path)
    if selector_is_empty(selector):
        errs.append(fe.invalid(path, go_label_selector(selector), f"empty selector is invalid for {kind}"))
    return errs


def validate_selector_and_template(spec: JSON, path: str) -> list[FieldError]:
    """The selector (upstream says `deployment` in the empty-selector message for ReplicaSets too), then the
    template when the selector is usable: it must match the labels, be a valid pod template, restart Always."""
    selector = spec.get("selector")
    errs = validate_required_selector(selector, f"{path}.selector", "deployment")
    if not selector_is_valid(selector):
        return errs + [fe.invalid(f"{path}.selector", go_label_selector(selector), "invalid label selector")]
    template = spec.get("template")
    errs += validate_selector_matches_template(selector, template, f"{path}.template")
    errs += validate_pod_template_spec(template, f"{path}.template")
    return errs + validate_restart_always(template, f"{path}.template", "ReplicaSet")
