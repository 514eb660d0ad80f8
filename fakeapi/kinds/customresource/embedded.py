"""`x-kubernetes-embedded-resource` objects: apiVersion and kind are required, their metadata is validated
as an ObjectMeta (upstream's schema/objectmeta validation)."""

from __future__ import annotations

from typing import Any

from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.jsonschema.schema import Schema
from fakeapi.machinery.validation import names
from fakeapi.machinery.validation.objectmeta import validate_object_meta


def validate_embedded(schema: Schema, value: Any, path: str = "") -> list[FieldError]:
    errors: list[FieldError] = []
    _walk(schema, value, path, errors)
    return errors


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _walk(schema: Schema, value: Any, path: str, errors: list[FieldError]) -> None:
    if isinstance(value, dict):
        if schema.embedded:
            errors.extend(_resource(value, path))
        for key, item in value.items():
            child = schema.properties.get(key)
            if child is not None:
                _walk(child, item, _join(path, key), errors)
            elif schema.additional is not None:
                _walk(schema.additional, item, f"{path}[{key}]", errors)
    elif isinstance(value, list) and schema.items is not None:
        for index, item in enumerate(value):
            _walk(schema.items, item, f"{path}[{index}]", errors)


def _resource(obj: dict[str, Any], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    if "apiVersion" not in obj:
        errors.append(fe.required(_join(path, "apiVersion"), "must not be empty"))
    if "kind" not in obj:
        errors.append(fe.required(_join(path, "kind"), "must not be empty"))
    for key, value in obj.items():
        at = _join(path, key)
        if key == "apiVersion":
            if not isinstance(value, str):
                errors.append(fe.invalid(at, value, "must be a string"))
            elif not value:
                errors.append(fe.invalid(at, value, "must not be empty"))
            elif value.count("/") > 1:
                errors.append(fe.invalid(at, value, f"unexpected GroupVersion string: {value}"))
        elif key == "kind":
            if not isinstance(value, str):
                errors.append(fe.invalid(at, value, "must be a string"))
            elif not value:
                errors.append(fe.invalid(at, value, "must not be empty"))
            else:
                found = names.is_dns1035_label(value.lower())
                if found:
                    errors.append(fe.invalid(at, value, "may have mixed case, but should otherwise match: "
                                             + ",".join(found)))
        elif key == "metadata" and isinstance(value, dict):
            meta = {**value, "name": value.get("name") or "fakename"}
            errors.extend(validate_object_meta(meta, bool(meta.get("namespace")), at, names.path_segment_name,
                                               kube_finalizers=False))
    return errors
