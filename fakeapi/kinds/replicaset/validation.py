"""ReplicaSet validation (upstream apps ValidateReplicaSet, ValidateReplicaSetUpdate,
ValidateReplicaSetStatusUpdate)."""

from __future__ import annotations

from typing import Any

from fakeapi.kinds.deployment.validation import validate_immutable_selector
from fakeapi.kinds.workload.replicated import validate_selector_and_template
from fakeapi.kinds.workload.validation import nonnegative, nonnegative_fields, replica_counts_not_above
from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation import names
from fakeapi.machinery.validation.objectmeta import validate_object_meta, validate_object_meta_update
from fakeapi.machinery.validation.values import as_dict, as_int


def validate_replica_set(replica_set: JSON) -> list[FieldError]:
    errs = validate_object_meta(as_dict(replica_set.get("metadata")), True, "metadata", names.name_is_dns_subdomain)
    return errs + validate_replica_set_spec(as_dict(replica_set.get("spec")), "spec")


def validate_replica_set_update(new: JSON, old: JSON) -> list[FieldError]:
    errs = validate_object_meta_update(as_dict(new.get("metadata")), as_dict(old.get("metadata")))
    errs += validate_replica_set_spec(as_dict(new.get("spec")), "spec")
    return errs + validate_immutable_selector(new, old)


def validate_replica_set_spec(spec: JSON, path: str) -> list[FieldError]:
    errs = nonnegative(spec.get("replicas"), f"{path}.replicas")
    errs += nonnegative(spec.get("minReadySeconds"), f"{path}.minReadySeconds")
    return errs + validate_selector_and_template(spec, path)


def validate_replica_set_status_update(new: JSON, old: JSON) -> list[FieldError]:
    errs = validate_object_meta_update(as_dict(new.get("metadata")), as_dict(old.get("metadata")))
    return errs + validate_replica_set_status(new.get("status"), "status")


def validate_replica_set_status(status: Any, path: str) -> list[FieldError]:
    """Non-negative counts, none above replicas, available not above ready (ReplicaSets and
    ReplicationControllers alike)."""
    status = as_dict(status)
    errs = nonnegative_fields(status, path, "replicas", "fullyLabeledReplicas", "readyReplicas", "availableReplicas",
                              "observedGeneration")
    errs += replica_counts_not_above(status, path, "fullyLabeledReplicas", "readyReplicas", "availableReplicas")
    if as_int(status.get("availableReplicas")) > as_int(status.get("readyReplicas")):
        errs.append(fe.invalid(f"{path}.availableReplicas", as_int(status.get("availableReplicas")),
                               "cannot be greater than readyReplicas"))
    return errs
