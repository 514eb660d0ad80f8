"""Validating a custom resource against its schema, with the messages of kube-openapi's validator as
apiextensions-apiserver turns them into field errors (`kubeOpenAPIResultToFieldErrors`):

    spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"
    spec.size: Unsupported value: "XL": supported values: "S", "M"
    spec.name: Too long: may not be more than 5 bytes
    spec.items: Too many: 4: must have at most 3 items
    spec.port: Invalid value: 70000: spec.port in body should be less than or equal to 65535

Each node runs kube-openapi's validators in their order: type, anyOf/oneOf/allOf/not, string (length,
pattern), format, number, array (items first), enum, object (its properties, then `required`).
"""

from __future__ import annotations

from typing import Any

import orjson

from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.fielderrors import FieldError, go_float
from fakeapi.machinery.jsonschema.formats import FORMAT_CHECKS
from fakeapi.machinery.jsonschema.schema import Schema

IN = "body"


def json_type(value: Any) -> str:
    """kube-openapi's schema type of a decoded JSON value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _name(path: str) -> str:
    return path


def _bound(bound: float, value: float) -> str:
    """A schema bound as kube-openapi prints it: an integer for integer data (its *Int errors), else Go's %v
    of a float64 (1e+06)."""
    if isinstance(value, int) and float(bound).is_integer():
        return str(int(bound))
    return go_float(float(bound))


Errors = list[FieldError]


def validate(schema: Schema, value: Any, path: str = "", prefix: str = "") -> Errors:
    """Every error of `value` against `schema`; `path` is kube-openapi's name of the value ("" at the root),
    `prefix` the field path it sits under (`status` when /status validates the status alone)."""
    errors: Errors = []
    _validate(schema, value, path, prefix, errors)
    return errors


def _at(prefix: str, path: str) -> str:
    name = path.removeprefix(".")
    if not prefix:
        return name or "<nil>"
    return f"{prefix}.{name}" if name else prefix


def _validate(node: Schema, value: Any, path: str, prefix: str, errors: Errors) -> None:
    if value is None:
        if node.types and not node.nullable:
            errors.append(_type_error(prefix, path, ",".join(node.types), "null"))
        if node.enum is not None and None not in node.enum:
            errors.append(_enum_error(node, value, prefix, path))
        return
    kind = json_type(value)
    if node.types and kind not in node.types:
        integral_float = kind == "number" and "integer" in node.types and float(value).is_integer()
        int_as_number = kind == "integer" and "number" in node.types
        if not (integral_float or int_as_number):
            errors.append(_type_error(prefix, path, ",".join(node.types), kind))
    if node.any_of or node.one_of or node.all_of or node.not_ is not None:
        _combinators(node, value, path, prefix, errors)
    if kind == "string":
        _string(node, value, path, prefix, errors)
    elif kind in ("integer", "number"):
        _number_checks(node, value, path, prefix, errors)
    elif kind == "array":
        _array(node, value, path, prefix, errors)
    if node.enum is not None and not any(_enum_equal(value, allowed) for allowed in node.enum):
        errors.append(_enum_error(node, value, prefix, path))
    if kind == "object":
        _object(node, value, path, prefix, errors)


def _type_error(prefix: str, path: str, expected: str, actual: str) -> FieldError:
    message = f'{_name(path)} in {IN} must be of type {expected}: "{actual}"'
    return fe.type_invalid(_at(prefix, path), actual, message)


def _enum_equal(value: Any, allowed: Any) -> bool:
    if isinstance(value, bool) or isinstance(allowed, bool):
        return type(value) is type(allowed) and value == allowed
    return bool(value == allowed)


def _enum_error(node: Schema, value: Any, prefix: str, path: str) -> FieldError:
    assert node.enum is not None
    values = [item if isinstance(item, str) else orjson.dumps(item).decode() for item in node.enum]
    return fe.not_supported(_at(prefix, path), value, values)


def _string(node: Schema, value: str, path: str, prefix: str, errors: Errors) -> None:
    at = _at(prefix, path)
    if node.max_length is not None and len(value) > node.max_length:
        errors.append(fe.too_long(at, node.max_length))
    elif node.min_length is not None and len(value) < node.min_length:
        errors.append(fe.invalid(at, value, f"{_name(path)} in {IN} should be at least {node.min_length} chars long"))
    elif node.pattern is not None and node.pattern.search(value) is None:
        pattern = node.raw.get("pattern", "")
        errors.append(fe.invalid(at, value, f"{_name(path)} in {IN} should match '{pattern}'"))
    if node.format:
        check = FORMAT_CHECKS.get(node.format)
        if check is not None and not check(value):
            fmt = str(node.raw.get("format", node.format))
            errors.append(fe.type_invalid(at, value, f'{_name(path)} in {IN} must be of type {fmt}: "{value}"'))


def _number_checks(node: Schema, value: float, path: str, prefix: str, errors: Errors) -> None:
    at = _at(prefix, path)
    if node.multiple_of is not None and node.multiple_of > 0:
        quotient = value / node.multiple_of
        if not float(quotient).is_integer():
            errors.append(fe.invalid(at, value, f"{_name(path)} in {IN} should be a multiple of "
                                              f"{_bound(node.multiple_of, value)}"))
    if node.maximum is not None:
        over = value >= node.maximum if node.exclusive_maximum else value > node.maximum
        if over:
            relation = "less than" if node.exclusive_maximum else "less than or equal to"
            bound = _bound(node.maximum, value)
            errors.append(fe.invalid(at, value, f"{_name(path)} in {IN} should be {relation} {bound}"))
    if node.minimum is not None:
        under = value <= node.minimum if node.exclusive_minimum else value < node.minimum
        if under:
            relation = "greater than" if node.exclusive_minimum else "greater than or equal to"
            bound = _bound(node.minimum, value)
            errors.append(fe.invalid(at, value, f"{_name(path)} in {IN} should be {relation} {bound}"))


def _array(node: Schema, value: list[Any], path: str, prefix: str, errors: Errors) -> None:
    if node.items is not None:
        for index, item in enumerate(value):
            _validate(node.items, item, f"{path}[{index}]", prefix, errors)
    at = _at(prefix, path)
    if node.min_items is not None and len(value) < node.min_items:
        errors.append(fe.invalid(at, len(value), f"{_name(path)} in {IN} should have at least {node.min_items} items"))
    if node.max_items is not None and len(value) > node.max_items:
        errors.append(fe.too_many(at, len(value), node.max_items))
    if node.unique_items:
        seen: set[bytes] = set()
        for item in value:
            key = orjson.dumps(item, option=orjson.OPT_SORT_KEYS)
            if key in seen:
                errors.append(fe.invalid(at, "", f"{_name(path)} in {IN} shouldn't contain duplicates"))
                break
            seen.add(key)


def _object(node: Schema, value: dict[str, Any], path: str, prefix: str, errors: Errors) -> None:
    at = _at(prefix, path)
    if node.min_properties is not None and len(value) < node.min_properties:
        errors.append(fe.invalid(at, len(value),
                                 f"{_name(path)} in {IN} should have at least {node.min_properties} properties"))
        return
    if node.max_properties is not None and len(value) > node.max_properties:
        errors.append(fe.too_many(at, len(value), node.max_properties))
        return
    base = f"{path}." if path else ""
    if not node.additional_allowed:
        for key in value:
            if key not in node.properties:
                errors.append(fe.invalid(at, key, f"{path}.{key} in {IN} is a forbidden property"))
    elif node.additional is not None:
        for key, item in value.items():
            if key not in node.properties:
                _validate(node.additional, item, f"{path}.{key}", prefix, errors)
    for name, prop in node.properties.items():
        if name in value:
            _validate(prop, value[name], base + name, prefix, errors)
    for name in node.required:
        if name not in value:
            errors.append(fe.required(_at(prefix, f"{path}.{name}")))


def _combinators(node: Schema, value: Any, path: str, prefix: str, errors: Errors) -> None:
    """anyOf, oneOf, allOf and not: errors kube-openapi reports without a field (`<nil>` when the whole
    object is validated), with the failures of the best alternative."""
    at = prefix or "<nil>"
    quoted = orjson.dumps(path).decode()
    if node.any_of:
        failures = [validate(sub, value, path, prefix) for sub in node.any_of]
        if all(failures):
            errors.append(fe.invalid(at, "", f"{quoted} must validate at least one schema (anyOf)"))
            errors.extend(_fewest(failures))
    if node.one_of:
        failures = [validate(sub, value, path, prefix) for sub in node.one_of]
        valid = sum(1 for failure in failures if not failure)
        if valid != 1:
            detail = "Found none valid" if valid == 0 else f"Found {valid} valid alternatives"
            errors.append(fe.invalid(at, "", f"{quoted} must validate one and only one schema (oneOf). {detail}"))
            if valid == 0:
                errors.extend(_fewest(failures))
    if node.all_of:
        found = [error for sub in node.all_of for error in validate(sub, value, path, prefix)]
        if found:
            errors.append(fe.invalid(at, "", f"{quoted} must validate all the schemas (allOf)"))
            errors.extend(found)
    if node.not_ is not None and not validate(node.not_, value, path, prefix):
        errors.append(fe.invalid(at, "", f"{quoted} must not validate the schema (not)"))


def _fewest(failures: list[Errors]) -> Errors:
    return min(failures, key=lambda found: len(found))
