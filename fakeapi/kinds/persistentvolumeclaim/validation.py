"""PersistentVolumeClaim validation (upstream v1.32 ValidatePersistentVolumeClaim, ...Spec, ...Update and
...StatusUpdate, with ReadWriteOncePod and RecoverVolumeExpansionFailure on, VolumeAttributesClass off)."""

from __future__ import annotations

from typing import Any

from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation import names
from fakeapi.machinery.validation.labelselector import validate_label_selector
from fakeapi.machinery.validation.objectmeta import validate_object_meta, validate_object_meta_update
from fakeapi.machinery.validation.resources import validate_quantity_value
from fakeapi.machinery.validation.values import as_dict, as_list, as_str, quantity, quantity_text

ACCESS_MODES = ["ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"]  # sorted, as upstream lists
VOLUME_MODES = ["Block", "Filesystem"]
IMMUTABLE_SPEC = "spec is immutable after creation except resources.requests and volumeAttributesClassName for " \
                 "bound claims"
NOT_POSITIVE = "must be greater than zero"


def validate_claim(claim: JSON) -> list[FieldError]:
    errs = validate_object_meta(as_dict(claim.get("metadata")), True, "metadata", names.name_is_dns_subdomain)
    return errs + validate_claim_spec(as_dict(claim.get("spec")), "spec")


def validate_claim_spec(spec: JSON, path: str) -> list[FieldError]:
    """ValidatePersistentVolumeClaimSpec: access modes, a positive storage request, the class name, the volume
    mode, the data source."""
    errs: list[FieldError] = []
    modes = [as_str(mode) for mode in as_list(spec.get("accessModes"))]
    if not modes:
        errs.append(fe.required(f"{path}.accessModes", "at least 1 access mode is required"))
    if spec.get("selector") is not None:
        errs += validate_label_selector(spec.get("selector"), f"{path}.selector")
    for mode in modes:
        if mode not in ACCESS_MODES:
            errs.append(fe.not_supported(f"{path}.accessModes", mode, ACCESS_MODES))
    if "ReadWriteOncePod" in modes and any(mode != "ReadWriteOncePod" for mode in modes):
        errs.append(fe.forbidden(f"{path}.accessModes", "may not use ReadWriteOncePod with other access modes"))
    requests = as_dict(as_dict(spec.get("resources")).get("requests"))
    storage_path = f"{path}.resources[storage]"
    if "storage" not in requests:
        errs.append(fe.required(storage_path))
    else:
        value = quantity(requests["storage"])
        if value is not None and value <= 0:
            errs.append(fe.invalid(storage_path, quantity_text(requests["storage"]), NOT_POSITIVE))
        else:
            errs += validate_quantity_value("storage", requests["storage"], storage_path)
    class_name = as_str(spec.get("storageClassName"))
    if class_name:
        errs += [fe.invalid(f"{path}.storageClassName", class_name, message)
                 for message in names.is_dns1123_subdomain(class_name)]
    volume_mode = spec.get("volumeMode")
    if volume_mode is not None and volume_mode not in VOLUME_MODES:
        errs.append(fe.not_supported(f"{path}.volumeMode", volume_mode, VOLUME_MODES))
    if spec.get("dataSource") is not None:
        errs += _validate_data_source(as_dict(spec.get("dataSource")), f"{path}.dataSource")
    return errs


def _validate_data_source(source: JSON, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    if not as_str(source.get("name")):
        errs.append(fe.required(f"{path}.name"))
    kind = as_str(source.get("kind"))
    if not kind:
        errs.append(fe.required(f"{path}.kind"))
    group = as_str(source.get("apiGroup"))
    if not group and kind != "PersistentVolumeClaim":
        errs.append(fe.invalid(path, kind, "must be 'PersistentVolumeClaim' when referencing the default apiGroup"))
    if group:
        errs += [fe.invalid(f"{path}.apiGroup", group, message) for message in names.is_dns1123_subdomain(group)]
    return errs


def validate_claim_update(new: JSON, old: JSON) -> list[FieldError]:
    """The spec is immutable but for the volume name (set once, by the binder) and, for a bound claim, the
    storage request (which may not shrink below the capacity in the status)."""
    errs = validate_object_meta_update(as_dict(new.get("metadata")), as_dict(old.get("metadata")))
    errs += validate_claim(new)
    new_spec, old_spec = dict(as_dict(new.get("spec"))), dict(as_dict(old.get("spec")))
    if not old_spec.get("volumeName"):
        old_spec["volumeName"] = new_spec.get("volumeName")
    if as_dict(new.get("status")).get("phase") == "Bound":
        _same_storage(new_spec, old_spec)
    if _without_empty(new_spec) != _without_empty(old_spec):
        errs.append(fe.forbidden("spec", f"{IMMUTABLE_SPEC}\n{_spec_diff(old_spec, new_spec)}"))
    new_size = quantity(_storage(new)) or 0
    old_size = quantity(_storage(old)) or 0
    capacity = quantity(as_dict(as_dict(old.get("status")).get("capacity")).get("storage")) or 0
    if new_size < old_size and new_size <= capacity:
        errs.append(fe.forbidden("spec.resources.requests.storage", "field can not be less than status.capacity"))
    new_mode, old_mode = as_dict(new.get("spec")).get("volumeMode"), as_dict(old.get("spec")).get("volumeMode")
    if new_mode != old_mode:
        errs.append(fe.invalid("volumeMode", new_mode, "field is immutable"))  # (upstream's path has no spec.)
    return errs


def validate_claim_status_update(new: JSON, old: JSON) -> list[FieldError]:
    """ObjectMeta update rules; the capacity and allocated resources non-negative quantities."""
    errs = validate_object_meta_update(as_dict(new.get("metadata")), as_dict(old.get("metadata")))
    status = as_dict(new.get("status"))
    for name, value in sorted(as_dict(status.get("capacity")).items()):
        errs += validate_quantity_value(name, value, f"status.capacity[{name}]")
    return errs


def _storage(claim: JSON) -> Any:
    return as_dict(as_dict(as_dict(claim.get("spec")).get("resources")).get("requests")).get("storage")


def _same_storage(new_spec: JSON, old_spec: JSON) -> None:
    """A bound claim's storage request may change: compare the rest."""
    old_requests = as_dict(as_dict(old_spec.get("resources")).get("requests"))
    resources = dict(as_dict(new_spec.get("resources")))
    requests = dict(as_dict(resources.get("requests")))
    if "storage" in old_requests:
        requests["storage"] = old_requests["storage"]
    resources["requests"] = requests
    new_spec["resources"] = resources


def _without_empty(spec: JSON) -> JSON:
    return {key: value for key, value in spec.items() if value not in (None, "", [], {})}


def _spec_diff(old: JSON, new: JSON) -> str:
    """The changed fields, one `-` and one `+` line each (upstream prints a go-cmp diff of the internal
    struct, whose layout go-cmp keeps deliberately unstable)."""
    old, new = _without_empty(old), _without_empty(new)
    lines = ["  core.PersistentVolumeClaimSpec{"]
    for key in sorted(set(old) | set(new)):
        if old.get(key) != new.get(key):
            if key in old:
                lines.append(f"-\t{key}: {old[key]!r},")
            if key in new:
                lines.append(f"+\t{key}: {new[key]!r},")
    lines.append("  }")
    return "\n".join(lines) + "\n"
