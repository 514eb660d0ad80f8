"""Lease validation on create and update (upstream pkg/apis/coordination/validation ValidateLease /
ValidateLeaseUpdate): apimachinery's ObjectMeta rules (no core finalizer check) and the spec's numbers.

Its `strategy` and `preferredHolder` rules cannot fire: the CoordinatedLeaderElection gate is off in v1.32,
so the strategy drops both fields before validation."""

from __future__ import annotations

from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation import names
from fakeapi.machinery.validation.objectmeta import validate_object_meta, validate_object_meta_update
from fakeapi.machinery.validation.values import as_dict


def validate_lease(lease: JSON) -> list[FieldError]:
    meta = as_dict(lease.get("metadata"))
    errs = validate_object_meta(meta, True, "metadata", names.name_is_dns_subdomain, kube_finalizers=False)
    return errs + validate_lease_spec(as_dict(lease.get("spec")))


def validate_lease_update(new: JSON, old: JSON) -> list[FieldError]:
    errs = validate_object_meta_update(as_dict(new.get("metadata")), as_dict(old.get("metadata")),
                                       kube_finalizers=False)
    return errs + validate_lease_spec(as_dict(new.get("spec")))


def validate_lease_spec(spec: JSON) -> list[FieldError]:
    errs: list[FieldError] = []
    duration = spec.get("leaseDurationSeconds")
    if isinstance(duration, int) and duration <= 0:
        errs.append(fe.invalid("spec.leaseDurationSeconds", duration, "must be greater than 0"))
    transitions = spec.get("leaseTransitions")
    if isinstance(transitions, int) and transitions < 0:
        errs.append(fe.invalid("spec.leaseTransitions", transitions, "must be greater than or equal to 0"))
    return errs
