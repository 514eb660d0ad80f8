"""Pod-specific annotations: mirror pod, deletion cost, tolerations, seccomp and AppArmor."""

from __future__ import annotations

import re
from typing import Any

import orjson

from fakeapi.kinds.pod.validation.scheduling import validate_tolerations
from fakeapi.kinds.pod.validation.security import validate_local_descending_path
from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation.values import as_dict, as_list, as_str

MIRROR_POD = "kubernetes.io/config.mirror"
DELETION_COST = "controller.kubernetes.io/pod-deletion-cost"
TOLERATIONS = "scheduler.alpha.kubernetes.io/tolerations"
SECCOMP_POD = "seccomp.security.alpha.kubernetes.io/pod"
SECCOMP_CONTAINER_PREFIX = "container.seccomp.security.alpha.kubernetes.io/"
APPARMOR_PREFIX = "container.apparmor.security.beta.kubernetes.io/"
_INT32 = re.compile(r"-?[0-9]+")


def _deletion_cost_ok(value: str) -> bool:
    # no "+" sign and no leading zeros, then a 32-bit integer
    if not value or not (value[0] == "-" or value == "0" or "1" <= value[0] <= "9"):
        return False
    return bool(_INT32.fullmatch(value)) and -(2**31) <= int(value) < 2**31


def _seccomp_profile(profile: str, path: str) -> list[FieldError]:
    if profile in ("runtime/default", "docker/default", "unconfined"):
        return []
    if profile.startswith("localhost/"):
        return validate_local_descending_path(profile[len("localhost/") :], path)
    return [fe.invalid(path, profile, "must be a valid seccomp profile")]


def _container_names(spec: JSON) -> set[str]:
    return {
        as_str(as_dict(c).get("name"))
        for key in ("initContainers", "containers", "ephemeralContainers")
        for c in as_list(spec.get(key))
    }


def validate_pod_specific_annotations(annotations: JSON, spec: JSON, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    if MIRROR_POD in annotations and not as_str(spec.get("nodeName")):
        detail = "must set spec.nodeName if mirror pod annotation is set"
        errs.append(fe.invalid(f"{path}[{MIRROR_POD}]", annotations[MIRROR_POD], detail))
    if as_str(annotations.get(TOLERATIONS)):
        try:
            tolerations = orjson.loads(annotations[TOLERATIONS])
        except orjson.JSONDecodeError as exc:
            errs.append(fe.invalid(path, TOLERATIONS, str(exc)))
        else:
            if isinstance(tolerations, list):
                errs += validate_tolerations(tolerations, f"{path}.{TOLERATIONS}")
            else:
                message = "json: cannot unmarshal into Go value of type []core.Toleration"
                errs.append(fe.invalid(path, TOLERATIONS, message))
    if DELETION_COST in annotations and not _deletion_cost_ok(as_str(annotations[DELETION_COST])):
        errs.append(
            fe.invalid(
                f"{path}[{DELETION_COST}]", as_str(annotations[DELETION_COST]), "must be a 32bit integer"
            )
        )
    if SECCOMP_POD in annotations:
        errs += _seccomp_profile(as_str(annotations[SECCOMP_POD]), f"{path}.{SECCOMP_POD}")
    for key, value in annotations.items():
        if key.startswith(SECCOMP_CONTAINER_PREFIX):
            errs += _seccomp_profile(as_str(value), f"{path}.{key}")
    names = None
    for key, value in annotations.items():
        if not key.startswith(APPARMOR_PREFIX):
            continue
        names = _container_names(spec) if names is None else names
        container = key[len(APPARMOR_PREFIX) :]
        if container not in names:
            errs.append(fe.invalid(f"{path}[{key}]", container, "container not found"))
        profile = as_str(value)
        if profile not in ("", "runtime/default", "unconfined") and not profile.startswith("localhost/"):
            errs.append(fe.invalid(f"{path}[{key}]", profile, f'invalid AppArmor profile name: "{profile}"'))
    return errs


def validate_pod_specific_annotation_updates(new: JSON, old: JSON, path: str) -> list[FieldError]:
    """The mirror-pod and AppArmor annotations may not be added, changed or removed."""
    new_meta, old_meta = as_dict(new.get("metadata")), as_dict(old.get("metadata"))
    new_annotations, old_annotations = (
        as_dict(new_meta.get("annotations")),
        as_dict(old_meta.get("annotations")),
    )
    errs: list[FieldError] = []
    for key, old_value in old_annotations.items():
        if key in new_annotations and new_annotations[key] == old_value:
            continue
        if key.startswith(APPARMOR_PREFIX):
            errs.append(fe.forbidden(f"{path}[{key}]", "may not remove or update AppArmor annotations"))
        if key == MIRROR_POD:
            errs.append(fe.forbidden(f"{path}[{key}]", "may not remove or update mirror pod annotation"))
    for key in new_annotations:
        if key in old_annotations:
            continue
        if key.startswith(APPARMOR_PREFIX):
            errs.append(fe.forbidden(f"{path}[{key}]", "may not add AppArmor annotations"))
        if key == MIRROR_POD:
            errs.append(fe.forbidden(f"{path}[{key}]", "may not add mirror pod annotation"))
    return errs + validate_pod_specific_annotations(new_annotations, as_dict(new.get("spec")), path)


def _seccomp_match(annotation: str, profile: JSON, path: str) -> FieldError | None:
    kind = profile.get("type")
    mismatch = "seccomp type in annotation and field must match"
    if kind == "Unconfined" and annotation != "unconfined":
        return fe.forbidden(f"{path}.type", mismatch)
    if kind == "RuntimeDefault" and annotation not in ("runtime/default", "docker/default"):
        return fe.forbidden(f"{path}.type", mismatch)
    if kind == "Localhost":
        if not annotation.startswith("localhost/"):
            return fe.forbidden(f"{path}.type", mismatch)
        if profile.get("localhostProfile") != annotation[len("localhost/") :]:
            return fe.forbidden(
                f"{path}.localhostProfile", "seccomp profile in annotation and field must match"
            )
    return None


def _apparmor_match(annotation: str, profile: JSON, path: str) -> FieldError | None:
    kind = profile.get("type")
    mismatch = "apparmor type in annotation and field must match"
    if kind == "Unconfined" and annotation != "unconfined":
        return fe.forbidden(f"{path}.type", mismatch)
    if kind == "RuntimeDefault" and annotation != "runtime/default":
        return fe.forbidden(f"{path}.type", mismatch)
    if kind == "Localhost":
        if not annotation.startswith("localhost/"):
            return fe.forbidden(f"{path}.type", mismatch)
        if profile.get("localhostProfile") != annotation[len("localhost/") :]:
            return fe.forbidden(
                f"{path}.localhostProfile", "apparmor profile in annotation and field must match"
            )
    return None


def validate_annotations_match_fields_on_create(
    annotations: JSON, spec: JSON, containers: list[tuple[JSON, str]]
) -> list[FieldError]:
    """Create only: seccomp and AppArmor annotations, when present, must agree with the fields.
    `containers` are (container, path) pairs in upstream's visiting order."""
    errs: list[FieldError] = []
    pod_context = as_dict(spec.get("securityContext"))
    pod_seccomp = pod_context.get("seccompProfile")
    if isinstance(pod_seccomp, dict) and SECCOMP_POD in annotations:
        error = _seccomp_match(
            as_str(annotations[SECCOMP_POD]), pod_seccomp, "spec.securityContext.seccompProfile"
        )
        errs += [error] if error else []
    for container, at in containers:
        profile = as_dict(container.get("securityContext")).get("seccompProfile")
        key = SECCOMP_CONTAINER_PREFIX + as_str(container.get("name"))
        if isinstance(profile, dict) and key in annotations:
            error = _seccomp_match(as_str(annotations[key]), profile, f"{at}.securityContext.seccompProfile")
            errs += [error] if error else []
    if as_dict(spec.get("os")).get("name") == "windows":
        return errs
    pod_apparmor: Any = pod_context.get("appArmorProfile")
    for container, at in containers:
        profile = as_dict(container.get("securityContext")).get("appArmorProfile") or pod_apparmor
        key = APPARMOR_PREFIX + as_str(container.get("name"))
        if isinstance(profile, dict) and key in annotations:
            error = _apparmor_match(
                as_str(annotations[key]), profile, f"{at}.securityContext.appArmorProfile"
            )
            errs += [error] if error else []
    return errs
