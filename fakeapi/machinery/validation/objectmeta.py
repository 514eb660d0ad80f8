"""ObjectMeta validation on create and update (apimachinery `objectmeta.go` plus the core wrappers)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation import names
from fakeapi.machinery.validation.values import (
    GoText,
    as_dict,
    as_int,
    as_list,
    as_str,
    go_string_slice,
    go_struct,
    go_time,
    semantic_equal,
)

TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024
FIELD_IMMUTABLE = "field is immutable"
IS_NEGATIVE = "must be greater than or equal to 0"
_STANDARD_FINALIZERS = frozenset({"kubernetes", "orphan", "foregroundDeletion"})
_FIELD_MANAGER_MAX = 128
_MEMO_SHARED_META_UP_TO = 4096  # bytes of JSON: parts bigger than that are checked without the memo

SharedMetaChecks = Callable[[bytes, str], tuple[FieldError, ...]]
"""`shared_meta_checks`, remembered by its owner (a pod strategy): objects made from one template
share their labels, annotations, owner references and finalizers."""


def validate_label_name(key: str, path: str) -> list[FieldError]:
    return [fe.invalid(path, key, msg) for msg in names.is_qualified_name(key)]


def validate_labels(labels: Any, path: str) -> list[FieldError]:
    """Label keys and values; every error is reported at `path` itself (not keyed), as upstream does."""
    errs: list[FieldError] = []
    for key, value in as_dict(labels).items():
        errs += validate_label_name(key, path)
        errs += [fe.invalid(path, value, msg) for msg in names.is_valid_label_value(as_str(value))]
    return errs


def validate_annotations(annotations: Any, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    total = 0
    items = as_dict(annotations)
    for key, value in items.items():
        # A qualified name, except that case does not matter.
        errs += [fe.invalid(path, key, msg) for msg in names.is_qualified_name(key.lower())]
        total += len(key) + len(as_str(value))
    if total * 4 > TOTAL_ANNOTATION_SIZE_LIMIT:  # only then can the UTF-8 size exceed the limit
        size = sum(len(k.encode()) + len(as_str(v).encode()) for k, v in items.items())
        if size > TOTAL_ANNOTATION_SIZE_LIMIT:
            errs.append(fe.too_long(path, TOTAL_ANNOTATION_SIZE_LIMIT))
    return errs


def _owner_reference_literal(ref: JSON) -> GoText:
    return go_struct(
        "v1.OwnerReference",
        [
            ("APIVersion", as_str(ref.get("apiVersion"))),
            ("Kind", as_str(ref.get("kind"))),
            ("Name", as_str(ref.get("name"))),
            ("UID", as_str(ref.get("uid"))),
            ("Controller", GoText("(*bool)(nil)") if ref.get("controller") is None else ref["controller"]),
            (
                "BlockOwnerDeletion",
                GoText("(*bool)(nil)")
                if ref.get("blockOwnerDeletion") is None
                else ref["blockOwnerDeletion"],
            ),
        ],
    )


def _group_version(api_version: str) -> tuple[str, str] | None:
    if not api_version:
        return "", ""
    if api_version == "v1":
        return "", "v1"
    parts = api_version.split("/")
    if len(parts) == 1:
        return "", parts[0]
    if len(parts) == 2:
        return parts[0], parts[1]
    return None


def validate_owner_references(refs: Any, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    first_controller = ""
    references = as_list(refs)
    for raw in references:
        ref = as_dict(raw)
        api_version, kind = as_str(ref.get("apiVersion")), as_str(ref.get("kind"))
        group, version = _group_version(api_version) or ("", "")
        if not version:
            errs.append(fe.invalid(f"{path}.apiVersion", api_version, "version must not be empty"))
        if not kind:
            errs.append(fe.invalid(f"{path}.kind", kind, "must not be empty"))
        if not as_str(ref.get("name")):
            errs.append(fe.invalid(f"{path}.name", as_str(ref.get("name")), "must not be empty"))
        if not as_str(ref.get("uid")):
            errs.append(fe.invalid(f"{path}.uid", as_str(ref.get("uid")), "must not be empty"))
        if (group, version, kind) == ("", "v1", "Event"):
            detail = "/v1, Kind=Event is disallowed from being an owner"
            errs.append(fe.invalid(path, _owner_reference_literal(ref), detail))
        if ref.get("controller") is True:
            current = f"{kind}/{as_str(ref.get('name'))}"
            if first_controller:
                literal = GoText(
                    "[]v1.OwnerReference{"
                    + ", ".join(str(_owner_reference_literal(as_dict(r))) for r in references)
                    + "}"
                )
                detail = (
                    'Only one reference can have Controller set to true. Found "true" in references for '
                    f"{first_controller} and {current}"
                )
                errs.append(fe.invalid(path, literal, detail))
            else:
                first_controller = current
    return errs


def validate_finalizers(finalizers: Any, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    items = [as_str(f) for f in as_list(finalizers)]
    for finalizer in items:
        errs += [fe.invalid(path, finalizer, msg) for msg in names.is_qualified_name(finalizer)]
    if "orphan" in items and "foregroundDeletion" in items:
        detail = "finalizer orphan and foregroundDeletion cannot be both set"
        errs.append(fe.invalid(path, go_string_slice(items), detail))
    return errs


def validate_kube_finalizer_name(name: str, path: str) -> list[FieldError]:
    if "/" not in name and name not in _STANDARD_FINALIZERS:
        return [fe.invalid(path, name, "name is neither a standard finalizer name nor is it fully qualified")]
    return []


def _validate_kube_finalizers(finalizers: Any, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    for index, finalizer in enumerate(as_list(finalizers)):
        errs += validate_kube_finalizer_name(as_str(finalizer), f"{path}[{index}]")
    return errs


def validate_managed_fields(entries: Any, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    for index, raw in enumerate(as_list(entries)):
        entry, at = as_dict(raw), f"{path}[{index}]"
        operation = as_str(entry.get("operation"))
        if operation not in ("Apply", "Update"):
            errs.append(fe.invalid(f"{at}.operation", operation, "must be `Apply` or `Update`"))
        fields_type = as_str(entry.get("fieldsType"))
        if fields_type and fields_type != "FieldsV1":
            errs.append(fe.invalid(f"{at}.fieldsType", fields_type, "must be `FieldsV1`"))
        manager = as_str(entry.get("manager"))
        if len(manager) > _FIELD_MANAGER_MAX:
            errs.append(fe.too_long(f"{at}.manager", _FIELD_MANAGER_MAX))
        for position, char in enumerate(manager):
            if not char.isprintable():
                detail = f"invalid character U+{ord(char):04X} (at position {position})"
                errs.append(fe.invalid(f"{at}.manager", manager, detail))
        if len(as_str(entry.get("subresource"))) > 256:
            errs.append(fe.too_long(f"{at}.subresource", 256))
    return errs


def validate_object_meta(
    meta: JSON,
    namespaced: bool,
    path: str = "metadata",
    name_validator: names.NameValidator = names.name_is_dns_subdomain,
    *,
    kube_finalizers: bool = True,
    remembered: SharedMetaChecks | None = None,
) -> list[FieldError]:
    """ObjectMeta on create (name generation already done). `kube_finalizers` adds core's check that
    an unqualified finalizer is a standard one; the registry's generic pass runs without it.
    `remembered` is the caller's memo of `shared_meta_checks`."""
    errs: list[FieldError] = []
    generate_name = as_str(meta.get("generateName"))
    if generate_name:
        errs += [
            fe.invalid(f"{path}.generateName", generate_name, m) for m in name_validator(generate_name, True)
        ]
    name = as_str(meta.get("name"))
    if not name:
        errs.append(fe.required(f"{path}.name", "name or generateName is required"))
    else:
        errs += [fe.invalid(f"{path}.name", name, msg) for msg in name_validator(name, False)]
    namespace = as_str(meta.get("namespace"))
    if namespaced:
        if not namespace:
            errs.append(fe.required(f"{path}.namespace"))
        else:
            errs += [
                fe.invalid(f"{path}.namespace", namespace, m)
                for m in names.name_is_dns_label(namespace, False)
            ]
    elif namespace:
        errs.append(fe.forbidden(f"{path}.namespace", "not allowed on this type"))
    generation = as_int(meta.get("generation"))
    if generation < 0:
        errs.append(fe.invalid(f"{path}.generation", generation, IS_NEGATIVE))
    errs += _shared_meta_errors(
        (meta.get("labels"), meta.get("annotations"), meta.get("ownerReferences"), meta.get("finalizers")), path,
        remembered,
    )
    errs += validate_managed_fields(meta.get("managedFields"), f"{path}.managedFields")
    if kube_finalizers:
        errs += _validate_kube_finalizers(meta.get("finalizers"), f"{path}.finalizers")
    return errs


def _shared_meta_errors(parts: tuple[Any, Any, Any, Any], path: str,
                        remembered: SharedMetaChecks | None) -> list[FieldError]:
    """The labels, annotations, owner references and finalizers checks, through `remembered` when
    the parts' JSON is small."""
    if remembered is None:
        return _shared_meta_checks(parts, path)
    try:
        key = orjson.dumps(parts)
    except TypeError:  # not plain JSON (a YAML date, a non-string key): checked as it is
        return _shared_meta_checks(parts, path)
    if len(key) > _MEMO_SHARED_META_UP_TO:
        return _shared_meta_checks(parts, path)
    return list(remembered(key, path))


def shared_meta_checks(parts_json: bytes, path: str) -> tuple[FieldError, ...]:
    """The labels, annotations, owner references and finalizers checks of their JSON (a 4-list)."""
    return tuple(_shared_meta_checks(tuple(orjson.loads(parts_json)), path))


def _shared_meta_checks(parts: tuple[Any, Any, Any, Any], path: str) -> list[FieldError]:
    labels, annotations, owner_references, finalizers = parts
    errs = validate_labels(labels, f"{path}.labels")
    errs += validate_annotations(annotations, f"{path}.annotations")
    errs += validate_owner_references(owner_references, f"{path}.ownerReferences")
    return errs + validate_finalizers(finalizers, f"{path}.finalizers")


def _immutable(new: Any, old: Any, path: str, shown: Any) -> list[FieldError]:
    if semantic_equal(new, old):
        return []
    return [fe.invalid(path, shown, FIELD_IMMUTABLE)]


def _time_value(value: Any) -> Any:
    return go_time(value) or GoText("null")


def validate_object_meta_update(
    new: JSON, old: JSON, path: str = "metadata", *, kube_finalizers: bool = True
) -> list[FieldError]:
    """ObjectMeta on update: immutable identity fields, no new finalizers while deleting, syntax."""
    errs: list[FieldError] = []
    if old.get("deletionTimestamp"):
        old_set = {as_str(f) for f in as_list(old.get("finalizers"))}
        extra = sorted({as_str(f) for f in as_list(new.get("finalizers"))} - old_set)
        if extra:
            detail = (
                "no new finalizers can be added if the object is being deleted, found new finalizers "
                + str(go_string_slice(extra))
            )
            errs.append(fe.forbidden(f"{path}.finalizers", detail))
    if not as_str(new.get("resourceVersion")):
        errs.append(fe.invalid(f"{path}.resourceVersion", "", "must be specified for an update"))
    new_generation = as_int(new.get("generation"))
    if new_generation < as_int(old.get("generation")):
        errs.append(fe.invalid(f"{path}.generation", new_generation, "must not be decremented"))
    for key in ("name", "namespace", "uid"):
        errs += _immutable(as_str(new.get(key)), as_str(old.get(key)), f"{path}.{key}", as_str(new.get(key)))
    new_created, old_created = new.get("creationTimestamp"), old.get("creationTimestamp")
    if new_created != old_created and go_time(new_created) != go_time(old_created):
        shown = go_time(new_created) or GoText("0001-01-01 00:00:00 +0000 UTC")
        errs.append(fe.invalid(f"{path}.creationTimestamp", shown, FIELD_IMMUTABLE))
    new_deleted, old_deleted = new.get("deletionTimestamp"), old.get("deletionTimestamp")
    if new_deleted != old_deleted and go_time(new_deleted) != go_time(old_deleted):
        errs.append(
            fe.invalid(
                f"{path}.deletionTimestamp", _time_value(new.get("deletionTimestamp")), FIELD_IMMUTABLE
            )
        )
    new_grace, old_grace = new.get("deletionGracePeriodSeconds"), old.get("deletionGracePeriodSeconds")
    if new_grace != old_grace:
        shown_grace = new_grace if isinstance(new_grace, int) else GoText("null")
        errs.append(fe.invalid(f"{path}.deletionGracePeriodSeconds", shown_grace, FIELD_IMMUTABLE))
    errs += validate_labels(new.get("labels"), f"{path}.labels")
    errs += validate_annotations(new.get("annotations"), f"{path}.annotations")
    errs += validate_owner_references(new.get("ownerReferences"), f"{path}.ownerReferences")
    errs += validate_managed_fields(new.get("managedFields"), f"{path}.managedFields")
    if kube_finalizers:
        errs += _validate_kube_finalizers(new.get("finalizers"), f"{path}.finalizers")
    return errs


def same_metadata(new_meta: JSON, old_meta: JSON) -> bool:
    """Nothing but the server-kept resourceVersion and managedFields differs: metadata that was valid
    when stored still is, so update writes (most are status writes) can skip re-checking it."""
    # the common answer in one comparison done in C (a Python loop over the keys costs more)
    if {**new_meta, **_SERVER_KEPT_BLANK} == {**old_meta, **_SERVER_KEPT_BLANK}:
        return True
    # a key set to null on one side and absent on the other is still the same
    for key, value in new_meta.items():
        if key not in _SERVER_KEPT:
            old = old_meta.get(key)
            if old is not value and old != value:
                return False
    return all(key in new_meta or value is None for key, value in old_meta.items() if key not in _SERVER_KEPT)


_SERVER_KEPT = frozenset(("resourceVersion", "managedFields"))
_SERVER_KEPT_BLANK = dict.fromkeys(_SERVER_KEPT)


def validate_common_update(new: JSON, old: JSON, namespaced: bool = True) -> list[FieldError]:
    """What `rest.BeforeUpdate` runs for every resource before the strategy's ValidateUpdate:
    generic ObjectMeta validation (path-segment names) plus the generic ObjectMeta update rules.
    Takes whole objects. Its errors may repeat the strategy's; upstream reports both."""
    new_meta, old_meta = as_dict(new.get("metadata")), as_dict(old.get("metadata"))
    if same_metadata(new_meta, old_meta):
        return []
    errs = validate_object_meta(
        new_meta, namespaced, "metadata", names.path_segment_name, kube_finalizers=False
    )
    return errs + validate_object_meta_update(new_meta, old_meta, "metadata", kube_finalizers=False)
