"""Namespace validation on create and update (upstream ValidateNamespace / ValidateNamespaceUpdate)."""

from __future__ import annotations

from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation import names
from fakeapi.machinery.validation.objectmeta import (
    validate_kube_finalizer_name,
    validate_object_meta,
    validate_object_meta_update,
)
from fakeapi.machinery.validation.values import as_dict, as_list, as_str


def validate_namespace(ns: JSON) -> list[FieldError]:
    """Cluster-scoped metadata whose name is a DNS label; spec.finalizers are qualified names.
    Finalizer errors are reported at `spec.finalizers` itself (not indexed), as upstream does."""
    errs = validate_object_meta(as_dict(ns.get("metadata")), False, "metadata", names.name_is_dns_label)
    for finalizer in as_list(as_dict(ns.get("spec")).get("finalizers")):
        name = as_str(finalizer)
        errs += [fe.invalid("spec.finalizers", name, msg) for msg in names.is_qualified_name(name)]
        errs += validate_kube_finalizer_name(name, "spec.finalizers")
    return errs


def validate_namespace_update(new: JSON, old: JSON) -> list[FieldError]:
    """Only the ObjectMeta update rules: name, uid, creationTimestamp... are immutable."""
    return validate_object_meta_update(as_dict(new.get("metadata")), as_dict(old.get("metadata")))
