"""ReplicationController validation (upstream core ValidateReplicationController, its update and status
update), with its messages and field paths."""

from __future__ import annotations

from typing import Any

from fakeapi.kinds.podtemplate.validation import SELECTOR_MISMATCH, validate_pod_template_spec, validate_restart_always
from fakeapi.kinds.replicaset.validation import validate_replica_set_status
from fakeapi.kinds.workload.validation import nonnegative
from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation import names
from fakeapi.machinery.validation.objectmeta import validate_object_meta, validate_object_meta_update
from fakeapi.machinery.validation.values import as_dict, go_string_map


def validate_replication_controller(controller: JSON) -> list[FieldError]:
    errs = validate_object_meta(as_dict(controller.get("metadata")), True, "metadata", names.name_is_dns_subdomain)
    return errs + validate_replication_controller_spec(as_dict(controller.get("spec")), "spec")


def validate_replication_controller_update(new: JSON, old: JSON) -> list[FieldError]:
    errs = validate_object_meta_update(as_dict(new.get("metadata")), as_dict(old.get("metadata")))
    return errs + validate_replication_controller_spec(as_dict(new.get("spec")), "spec")


def validate_replication_controller_spec(spec: JSON, path: str) -> list[FieldError]:
    """A non-empty selector (a label map), and the template as ValidatePodTemplateSpecForRC checks it."""
    errs = nonnegative(spec.get("minReadySeconds"), f"{path}.minReadySeconds")
    selector = as_dict(spec.get("selector"))
    if not selector:
        errs.append(fe.required(f"{path}.selector"))
    errs += nonnegative(spec.get("replicas"), f"{path}.replicas")
    template = spec.get("template")
    if template is None:
        return errs + [fe.required(f"{path}.template")]
    labels = as_dict(as_dict(as_dict(template).get("metadata")).get("labels"))
    if selector and any(labels.get(key) != value for key, value in selector.items()):
        shown = go_string_map({key: str(value) for key, value in labels.items()} if labels else None)
        errs.append(fe.invalid(f"{path}.template.metadata.labels", shown, SELECTOR_MISMATCH))
    errs += validate_pod_template_spec(template, f"{path}.template")
    return errs + validate_restart_always(template, f"{path}.template", "ReplicationController")


def validate_replication_controller_status_update(new: JSON, old: JSON) -> list[FieldError]:
    errs = validate_object_meta_update(as_dict(new.get("metadata")), as_dict(old.get("metadata")))
    return errs + validate_replication_controller_status(new.get("status"), "status")


def validate_replication_controller_status(status: Any, path: str) -> list[FieldError]:
    return validate_replica_set_status(status, path)
