"""One strategy for every custom kind (upstream's customresource/strategy.go), parameterised by the version's
schema, its CEL rules, and its status and scale subresources.

* create: `status` is dropped when the status subresource is on; generation 1;
* update: the main resource keeps the stored status (status subresource on); the generation moves when
  anything but metadata changed; an update must name the resourceVersion it replaces;
* validation: apiVersion and kind, ObjectMeta (DNS subdomain names), the schema (kube-openapi's messages,
  ratcheted on update: an error in a value the update did not change is not reported), the scale paths,
  embedded resources, list types, then the CEL rules unless a blocking error came first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fakeapi.kinds.customresource.embedded import validate_embedded
from fakeapi.kinds.strategy import Strategy
from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.jsonpath import JsonPath
from fakeapi.machinery.jsonschema.defaulting import apply_defaults, has_defaults, prune_nulls
from fakeapi.machinery.jsonschema.listtypes import validate_list_types
from fakeapi.machinery.jsonschema.schema import Schema
from fakeapi.machinery.jsonschema.validation import validate as validate_schema
from fakeapi.machinery.jsonvalues import deep_equal
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation import names
from fakeapi.machinery.validation.objectmeta import validate_object_meta

INT32_MAX = 2**31 - 1
BLOCKING = frozenset({fe.NOT_SUPPORTED, fe.REQUIRED, fe.TOO_LONG, fe.TOO_MANY, fe.TYPE_INVALID})
NOT_CHECKED = ("some validation rules were not checked because the object was invalid; correct the existing "
               "errors to complete validation")
_STANDARD_FINALIZERS = frozenset({"orphan", "foregroundDeletion", "kubernetes"})


class Rules:
    """A version's CEL rules (x-kubernetes-validations), compiled: see fakeapi.kinds.customresource.cel."""

    def validate(self, obj: JSON, old: JSON | None) -> list[FieldError]:
        return []


@dataclass(frozen=True)
class ScalePaths:
    spec_replicas: str
    status_replicas: str
    label_selector: str = ""


@dataclass(frozen=True, eq=False)
class CustomResourceType:
    """What the strategy of one served version knows of it."""

    group: str
    version: str
    kind: str
    namespaced: bool
    schema: Schema | None
    status: bool = False
    scale: ScalePaths | None = None
    rules: Rules | None = None

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}"


class CustomResourceStrategy(Strategy):
    validation_covers_object_meta = True  # ObjectMeta is validated here, with DNS subdomain names

    def __init__(self, crt: CustomResourceType) -> None:
        self.crt = crt
        self._defaults = crt.schema is not None and has_defaults(crt.schema)

    def reset_fields(self) -> tuple[str, ...]:
        return ("status",) if self.crt.status else ()

    def default(self, obj: JSON) -> None:
        if self._defaults:
            apply_defaults(obj, self.crt.schema)
            prune_nulls(obj, self.crt.schema)

    def prepare_for_create(self, obj: JSON) -> None:
        if self.crt.status:
            obj.pop("status", None)
        obj["metadata"]["generation"] = 1

    def validate(self, obj: JSON) -> list[FieldError]:
        type_errors = self._type_meta(obj)
        if type_errors:
            return type_errors
        crt = self.crt
        errors = validate_object_meta(obj["metadata"], crt.namespaced, "metadata", names.name_is_dns_subdomain,
                                      kube_finalizers=False)
        if crt.schema is not None:
            errors += validate_schema(crt.schema, obj)
        errors += self._scale_spec(obj) + self._scale_status(obj)
        if crt.schema is not None:
            errors += validate_embedded(crt.schema, obj)
            errors += validate_list_types(crt.schema, obj)
        return errors + self._rules(errors, obj, None)

    def warnings_on_create(self, obj: JSON) -> list[str]:
        return _finalizer_warnings(obj, None)

    def prepare_for_update(self, new: JSON, old: JSON) -> None:
        if self.crt.status:
            if "status" in old:
                new["status"] = old["status"]
            else:
                new.pop("status", None)
        if _content(new) != _content(old):
            new["metadata"]["generation"] = old["metadata"].get("generation", 0) + 1

    def validate_update(self, new: JSON, old: JSON) -> list[FieldError]:
        type_errors = self._type_meta(new)
        if type_errors:
            return type_errors
        crt = self.crt
        errors: list[FieldError] = []
        if crt.schema is not None:
            errors += ratcheted(validate_schema(crt.schema, new), new, old, crt.schema)
        errors += self._scale_spec(new) + self._scale_status(new)
        if crt.schema is not None:
            errors += validate_embedded(crt.schema, new)
            if not validate_list_types(crt.schema, old):
                errors += validate_list_types(crt.schema, new)
        return errors + self._rules(errors, new, old)

    def warnings_on_update(self, new: JSON, old: JSON) -> list[str]:
        return _finalizer_warnings(new, old)

    def allow_unconditional_update(self) -> bool:
        return False

    # ---- parts

    def _type_meta(self, obj: JSON) -> list[FieldError]:
        errors = []
        if obj.get("kind") != self.crt.kind:
            errors.append(fe.invalid("kind", obj.get("kind"), f"must be {self.crt.kind}"))
        if obj.get("apiVersion") != self.crt.api_version:
            errors.append(fe.invalid("apiVersion", obj.get("apiVersion"), f"must be {self.crt.api_version}"))
        return errors

    def _scale_spec(self, obj: JSON) -> list[FieldError]:
        scale = self.crt.scale
        return [] if scale is None else _replicas(obj, scale.spec_replicas)

    def _scale_status(self, obj: JSON) -> list[FieldError]:
        scale = self.crt.scale
        if scale is None:
            return []
        errors = _replicas(obj, scale.status_replicas)
        if scale.label_selector:
            found = JsonPath(scale.label_selector).first(obj)
            if found is not None and not isinstance(found, str):
                errors.append(fe.invalid(scale.label_selector, "", _not_a("string", found, scale.label_selector)))
        return errors

    def _rules(self, errors: list[FieldError], obj: JSON, old: JSON | None) -> list[FieldError]:
        if self.crt.rules is None:
            return []
        if any(error.reason in BLOCKING for error in errors):
            return [fe.invalid("<nil>", None, NOT_CHECKED)]
        return self.crt.rules.validate(obj, old)


class CustomResourceStatusStrategy(CustomResourceStrategy):
    """/status: the stored object with the new status (and managedFields); validated as upstream's
    statusStrategy: ObjectMeta update, the status against its schema, the scale status paths, rules."""

    def reset_fields(self) -> tuple[str, ...]:
        return ("spec",)

    def prepare_for_update(self, new: JSON, old: JSON) -> None:
        status = new.get("status")
        has_status = "status" in new
        managed = new["metadata"].get("managedFields")
        new.clear()
        new.update(_copy(old))
        if managed is not None:
            new["metadata"]["managedFields"] = managed
        else:
            new["metadata"].pop("managedFields", None)
        if has_status:
            new["status"] = status
        else:
            new.pop("status", None)

    def validate_update(self, new: JSON, old: JSON) -> list[FieldError]:
        type_errors = self._type_meta(new)
        if type_errors:
            return type_errors
        crt = self.crt
        errors: list[FieldError] = []
        status_schema = crt.schema.properties.get("status") if crt.schema is not None else None
        if "status" in new and status_schema is not None:
            errors += ratcheted(validate_schema(status_schema, new["status"], "", "status"), new.get("status"),
                                old.get("status", _MISSING), status_schema, "status")
        errors += self._scale_status(new)
        if crt.schema is not None:
            found = validate_list_types(crt.schema, new)
            if found and not validate_list_types(crt.schema, old):
                errors += found
        return errors + self._rules(errors, new, old)

    def warnings_on_update(self, new: JSON, old: JSON) -> list[str]:
        return []


def _copy(obj: JSON) -> JSON:
    from fakeapi.machinery.jsonvalues import copy_json

    copied: JSON = copy_json(obj)
    return copied


def _content(obj: JSON) -> JSON:
    return {key: value for key, value in obj.items() if key != "metadata"}


def _not_a(kind: str, value: Any, path: str) -> str:
    from fakeapi.machinery.jsonschema.validation import json_type

    go_types = {"integer": "int64", "number": "float64", "boolean": "bool", "string": "string",
                "array": "[]interface {}", "object": "map[string]interface {}"}
    wanted = {"string": "string", "int64": "int64"}.get(kind, kind)
    return f"{path} accessor error: {_go_repr(value)} is of the type " \
           f"{go_types.get(json_type(value), 'interface {}')}, expected {wanted}"


def _go_repr(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _replicas(obj: JSON, path: str) -> list[FieldError]:
    found = JsonPath(path).first(obj)
    if found is None:
        return []
    if isinstance(found, bool) or not isinstance(found, int):
        if isinstance(found, float) and found.is_integer():
            found = int(found)
        else:
            return [fe.invalid(path, 0, _not_a("int64", found, path))]
    if found < 0:
        return [fe.invalid(path, found, "should be a non-negative integer")]
    if found > INT32_MAX:
        return [fe.invalid(path, found, f"should be less than or equal to {INT32_MAX}")]
    return []


def ratcheted(errors: list[FieldError], new: Any, old: Any, schema: Schema, base: str = "") -> list[FieldError]:
    """Validation ratcheting (CRDValidationRatcheting, on in v1.32): an error is not reported when the nearest
    value on its path that can be matched with a stored one (through object keys and map-list keys; not
    through items of other lists) is unchanged, so objects stored under an older schema can still be updated.
    `base` is where `new` and `old` sit in the object (`status` for the status subresource)."""
    return [error for error in errors if not _unchanged(error, new, old, schema, base)]


_MISSING = object()


def _unchanged(error: FieldError, new: Any, old: Any, schema: Schema, base: str) -> bool:
    path = error.field
    if error.reason == fe.REQUIRED:
        path = path.rsplit(".", 1)[0] if "." in path else ""
    if path in ("", "<nil>"):
        steps: list[str | int] = []
    else:
        found = _steps(path)
        if found is None:
            return False
        steps = found
    if base:
        if steps[:1] != [base]:
            return False
        steps = steps[1:]
    nearest: tuple[Any, Any] = (new, old)
    node: Schema | None = schema
    for depth, step in enumerate(steps):
        if node is None:
            break
        if isinstance(step, int):
            if not isinstance(new, list) or step >= len(new):
                break
            item = new[step]
            stored = _stored_item(node, item, old)
            node, new, old = node.items, item, stored
        else:
            if not isinstance(new, dict) or step not in new:
                break
            stored = old.get(step, _MISSING) if isinstance(old, dict) else _MISSING
            if not base and depth == 0 and step in ("apiVersion", "kind"):
                stored = _MISSING
            node, new, old = node.child(step), new[step], stored
        if old is _MISSING:
            break
        nearest = (new, old)
    return deep_equal(nearest[0], nearest[1])


def _stored_item(schema: Schema, item: Any, old: Any) -> Any:
    """The stored item an item of a map list is matched with (by its keys); none in other lists."""
    if schema.list_type != "map" or not isinstance(old, list) or not isinstance(item, dict):
        return _MISSING
    keys = schema.list_map_keys
    wanted = tuple(item.get(key) for key in keys)
    for stored in old:
        if isinstance(stored, dict) and tuple(stored.get(key) for key in keys) == wanted:
            return stored
    return _MISSING


def _steps(path: str) -> list[str | int] | None:
    steps: list[str | int] = []
    for part in path.split("."):
        name, _, rest = part.partition("[")
        if name:
            steps.append(name)
        while rest:
            index, _, rest = rest.partition("]")
            if not index.isdigit():
                return None
            steps.append(int(index))
            rest = rest.removeprefix("[")
    return steps


def _finalizer_warnings(obj: JSON, old: JSON | None) -> list[str]:
    """Upstream's warnings for finalizer names that are not domain-qualified."""
    added = set(obj["metadata"].get("finalizers") or ())
    if old is not None:
        added -= set(old["metadata"].get("finalizers") or ())
    warnings: list[str] = []
    for name in sorted(name for name in added if isinstance(name, str)):
        quoted = f'"{name}"'
        warnings += [f"metadata.finalizers: {quoted}: {message}" for message in names.is_qualified_name(name)]
        if "/" not in name and name not in _STANDARD_FINALIZERS:
            qualified = "a domain-qualified finalizer name including a path (/)" if "." in name \
                else "a domain-qualified finalizer name"
            warnings.append(f"metadata.finalizers: {quoted}: prefer {qualified} to avoid accidental conflicts with "
                            "other finalizer writers")
    return warnings
