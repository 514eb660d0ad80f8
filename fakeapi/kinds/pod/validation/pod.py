"""Pod validation entry points (create, update, status, resize) and create-time warnings.

`validate_pod_create` is upstream's ValidatePodCreate: ObjectMeta first, then the pod annotations,
the spec, the pod-only checks and the create-only checks. Its ObjectMeta checks (DNS-subdomain names)
cover the registry's generic pass (`rest.BeforeCreate`, path-segment names), which the pod strategy
therefore skips (`validation_covers_object_meta`).
"""

from __future__ import annotations

from fakeapi.kinds.pod.remembered import PodRemembered
from fakeapi.kinds.pod.validation.annotations import (
    APPARMOR_PREFIX,
    SECCOMP_CONTAINER_PREFIX,
    SECCOMP_POD,
    validate_annotations_match_fields_on_create,
)
from fakeapi.kinds.pod.validation.podspec import validate_pod_metadata_and_spec, visit_containers
from fakeapi.kinds.pod.validation.status import validate_pod_status_update
from fakeapi.kinds.pod.validation.update import validate_pod_resize, validate_pod_update
from fakeapi.kinds.pod.validation.warnings import warnings_on_create
from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation.values import as_dict, as_list, as_str

__all__ = [
    "validate_pod_create",
    "validate_pod_resize",
    "validate_pod_status_update",
    "validate_pod_update",
    "warnings_on_create",
]


_SECURITY_ANNOTATION_PREFIXES = (SECCOMP_POD, SECCOMP_CONTAINER_PREFIX, APPARMOR_PREFIX)


def validate_pod_create(pod: JSON, memo: PodRemembered | None = None) -> list[FieldError]:
    """ValidatePodCreate for a defaulted, prepared pod."""
    errs = validate_pod_metadata_and_spec(pod, memo)
    meta, spec = as_dict(pod.get("metadata")), as_dict(pod.get("spec"))
    if as_list(spec.get("ephemeralContainers")):
        errs.append(fe.forbidden("spec.ephemeralContainers", "cannot be set on create"))
    if as_str(spec.get("nodeName")) and as_list(spec.get("schedulingGates")):
        errs.append(
            fe.forbidden("spec.nodeName", "cannot be set until all schedulingGates have been cleared")
        )
    annotations = as_dict(meta.get("annotations"))
    if any(key.startswith(_SECURITY_ANNOTATION_PREFIXES) for key in annotations):
        errs += validate_annotations_match_fields_on_create(annotations, spec, visit_containers(spec, "spec"))
    return errs
