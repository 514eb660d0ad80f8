"""Decode-time defaulting of Namespaces (upstream pkg/apis/core/v1/defaults.go, SetDefaults_Namespace)."""

from __future__ import annotations

from fakeapi.machinery.types import JSON

METADATA_NAME_LABEL = "kubernetes.io/metadata.name"


def default_namespace(namespace: JSON, *, creating: bool = False) -> None:
    """SetDefaults_Namespace: label `kubernetes.io/metadata.name` = name. With `creating`, also the
    `kubernetes` finalizer that the namespace strategy adds on create only (a defaulter must not
    re-add it on update: the namespace controller removes it to finish a deletion)."""
    metadata = namespace.get("metadata")
    if isinstance(metadata, dict):
        name = metadata.get("name")
        if isinstance(name, str) and name:
            labels = metadata.get("labels")
            if labels is None:
                labels = metadata["labels"] = {}
            if isinstance(labels, dict):
                labels[METADATA_NAME_LABEL] = name
    if creating:
        spec = namespace.get("spec")
        if spec is None:
            spec = namespace["spec"] = {}
        if isinstance(spec, dict):
            finalizers = spec.get("finalizers")
            if not finalizers:
                spec["finalizers"] = ["kubernetes"]
            elif isinstance(finalizers, list) and "kubernetes" not in finalizers:
                finalizers.append("kubernetes")
