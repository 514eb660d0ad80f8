"""Whether a CRD's schema is structural (upstream's apiextensions schema/validation.go and complete.go): every
specified field has a type, additionalProperties is not at the root, value validations (anyOf, allOf, oneOf,
not) only restrict what the structural part declares, metadata holds only name and generateName. The errors
are sorted by their text, as upstream sorts them."""

from __future__ import annotations

import re
from typing import Any

from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.jsonschema.schema import go_regexp
from fakeapi.machinery.types import JSON

ROOT, ITEM, FIELD = "root", "item", "field"
_INT_OR_STRING_ANY_OF = [{"type": "integer"}, {"type": "string"}]
_NESTED_FORBIDDEN_EXTENSIONS = (
    ("x-kubernetes-preserve-unknown-fields", "must be false to be structural"),
    ("x-kubernetes-embedded-resource", "must be false to be structural"),
    ("x-kubernetes-int-or-string", "must be false to be structural"),
    ("x-kubernetes-list-map-keys", "must be empty to be structural"),
    ("x-kubernetes-list-type", "must be undefined to be structural"),
    ("x-kubernetes-map-type", "must be undefined to be structural"),
    ("x-kubernetes-validations", "must be empty to be structural"),
)


def key(path: str, name: str) -> str:
    return f"{path}.properties[{name}]"


def validate_structural(schema: JSON, path: str) -> list[FieldError]:
    errors = _invariants(schema, ROOT, path) + _completeness(schema, path)
    return sorted(errors, key=str)


def _invariants(s: Any, level: str, path: str) -> list[FieldError]:
    if not isinstance(s, dict):
        return []
    errors: list[FieldError] = []
    kind = s.get("type") or ""
    if kind == "array" and not isinstance(s.get("items"), dict):
        errors.append(fe.required(f"{path}.items", "must be specified"))
    errors += _invariants(s.get("items"), ITEM, f"{path}.items")
    properties = _properties(s)
    for name, prop in properties.items():
        errors += _invariants(prop, FIELD, key(path, name))
    additional = s.get("additionalProperties")
    if additional is not None:
        if level == ROOT:
            errors.append(fe.forbidden(f"{path}.additionalProperties", "must not be used at the root"))
        if isinstance(additional, dict):
            errors += _invariants(additional, FIELD, f"{path}.additionalProperties")
    int_or_string = s.get("x-kubernetes-int-or-string") is True
    preserve = s.get("x-kubernetes-preserve-unknown-fields") is True
    embedded = s.get("x-kubernetes-embedded-resource") is True
    if int_or_string and preserve:
        errors.append(fe.invalid(f"{path}.x-kubernetes-preserve-unknown-fields", True,
                                 "must be false if x-kubernetes-int-or-string is true"))
    if int_or_string and embedded:
        errors.append(fe.invalid(f"{path}.x-kubernetes-embedded-resource", True,
                                 "must be false if x-kubernetes-int-or-string is true"))
    skip_any_of = s.get("anyOf") == _INT_OR_STRING_ANY_OF
    all_of = _list(s.get("allOf"))
    skip_first_all_of_any_of = bool(all_of) and isinstance(all_of[0], dict) and \
        all_of[0].get("anyOf") == _INT_OR_STRING_ANY_OF
    errors += _value_validation(s, skip_any_of, skip_first_all_of_any_of, level, path, True)
    check_metadata = level == ROOT or embedded
    if embedded and kind != "object":
        if not kind:
            errors.append(fe.required(f"{path}.type", "must be object if x-kubernetes-embedded-resource is true"))
        else:
            errors.append(fe.invalid(f"{path}.type", kind, "must be object if x-kubernetes-embedded-resource is true"))
    elif not kind and not int_or_string and not preserve:
        detail = {ROOT: "must not be empty at the root", ITEM: "must not be empty for specified array items",
                  FIELD: "must not be empty for specified object fields"}[level]
        errors.append(fe.required(f"{path}.type", detail))
    if embedded and additional is not None:
        errors.append(fe.forbidden(f"{path}.additionalProperties",
                                   "must not be used if x-kubernetes-embedded-resource is set"))
    if level == ROOT and kind and kind != "object":
        errors.append(fe.invalid(f"{path}.type", kind, "must be object at the root"))
    for name in ("kind", "apiVersion"):
        prop = properties.get(name)
        if isinstance(prop, dict) and check_metadata and prop.get("type") != "string":
            errors.append(fe.invalid(f"{key(path, name)}.type", prop.get("type") or "", "must be string"))
    metadata = properties.get("metadata")
    if isinstance(metadata, dict):
        errors += _metadata(metadata, check_metadata, level, key(path, "metadata"))
    if embedded and not preserve and not properties:
        errors.append(fe.required(f"{path}.properties", "must not be empty if x-kubernetes-embedded-resource is "
                                                        "true without x-kubernetes-preserve-unknown-fields"))
    return errors


def _metadata(s: JSON, check_metadata: bool, level: str, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    if check_metadata and s.get("type") != "object":
        errors.append(fe.invalid(f"{path}.type", s.get("type") or "", "must be object"))
    if level == ROOT:
        rest = {k: v for k, v in s.items() if k not in ("type", "default", "description") and v not in (None, "", [],
                                                                                                       {}, False)}
        properties = rest.pop("properties", None) or {}
        extra = set(properties) - {"name", "generateName"}
        if extra or rest:
            errors.append(fe.forbidden(path, "must not specify anything other than name and generateName, but "
                                             "metadata is implicitly specified"))
    return errors


def _value_validation(s: JSON, skip_any_of: bool, skip_first_all_of_any_of: bool, level: str, path: str,
                      top: bool) -> list[FieldError]:
    errors: list[FieldError] = []
    if not skip_any_of:
        for index, sub in enumerate(_list(s.get("anyOf"))):
            errors += _nested(sub, False, False, level, f"{path}.anyOf[{index}]")
    for index, sub in enumerate(_list(s.get("allOf"))):
        errors += _nested(sub, skip_first_all_of_any_of and index == 0, False, level, f"{path}.allOf[{index}]")
    for index, sub in enumerate(_list(s.get("oneOf"))):
        errors += _nested(sub, False, False, level, f"{path}.oneOf[{index}]")
    if isinstance(s.get("not"), dict):
        errors += _nested(s["not"], False, False, level, f"{path}.not")
    pattern = s.get("pattern")
    if isinstance(pattern, str) and pattern:
        try:
            re.compile(go_regexp(pattern))
        except re.error as error:
            errors.append(fe.invalid(f"{path}.pattern", pattern,
                                     f"must be a valid regular expression, but isn't: {_go_regexp_error(error)}"))
    return errors


def _go_regexp_error(error: re.error) -> str:
    return f"error parsing regexp: {error.msg}"


def _nested(s: Any, skip_any_of: bool, skip_all_of_any_of: bool, level: str, path: str) -> list[FieldError]:
    if not isinstance(s, dict):
        return []
    errors = _value_validation(s, skip_any_of, skip_all_of_any_of, level, path, False)
    if isinstance(s.get("items"), dict):
        errors += _nested(s["items"], False, False, level, f"{path}.items")
    for name, prop in _properties(s).items():
        errors += _nested(prop, False, False, FIELD, key(path, name))
    if s.get("type"):
        errors.append(fe.forbidden(f"{path}.type", "must be empty to be structural"))
    if "additionalProperties" in s:
        errors.append(fe.forbidden(f"{path}.additionalProperties", "must be undefined to be structural"))
    if "default" in s:
        errors.append(fe.forbidden(f"{path}.default", "must be undefined to be structural"))
    if s.get("title"):
        errors.append(fe.forbidden(f"{path}.title", "must be empty to be structural"))
    if s.get("description"):
        errors.append(fe.forbidden(f"{path}.description", "must be empty to be structural"))
    if s.get("nullable"):
        errors.append(fe.forbidden(f"{path}.nullable", "must be false to be structural"))
    for extension, detail in _NESTED_FORBIDDEN_EXTENSIONS:
        if s.get(extension) not in (None, False, []):
            errors.append(fe.forbidden(f"{path}.{extension}", detail))
    if "metadata" in _properties(s):
        errors.append(fe.forbidden(key(path, "metadata"), "must not be specified in a nested context"))
    return errors


def _completeness(s: JSON, path: str) -> list[FieldError]:
    return _value_completeness(s, s, path, path)


def _value_completeness(v: JSON, s: JSON | None, s_path: str, v_path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    if isinstance(v.get("not"), dict):
        errors += _nested_completeness(v["not"], s, s_path, f"{v_path}.not")
    for name in ("allOf", "anyOf", "oneOf"):
        for index, sub in enumerate(_list(v.get(name))):
            errors += _nested_completeness(sub, s, s_path, f"{v_path}.{name}[{index}]")
    return errors


def _nested_completeness(v: JSON, s: JSON | None, s_path: str, v_path: str) -> list[FieldError]:
    if s is None:
        return [fe.required(s_path, f"because it is defined in {v_path}")]
    errors = _value_completeness(v, s, s_path, v_path)
    if isinstance(v.get("items"), dict):
        items = s.get("items") if isinstance(s.get("items"), dict) else None
        errors += _nested_completeness(v["items"], items, f"{s_path}.items", f"{v_path}.items")
    s_properties = _properties(s)
    for name, sub in _properties(v).items():
        if not isinstance(sub, dict):
            continue
        if name not in s_properties:
            errors.append(fe.required(key(s_path, name), f"because it is defined in {key(v_path, name)}"))
        else:
            errors += _nested_completeness(sub, s_properties[name], key(s_path, name), key(v_path, name))
    return errors


def _list(value: Any) -> list[Any]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _properties(s: Any) -> dict[str, Any]:
    found = s.get("properties") if isinstance(s, dict) else None
    return found if isinstance(found, dict) else {}
