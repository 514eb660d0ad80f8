"""Validating a CRD version's schema (upstream's validateCustomResourceDefinitionValidation and
ValidateCustomResourceDefinitionOpenAPISchema): the root restrictions of the status subresource, structural
schema rules, defaults that validate and are pruned, what OpenAPI v3 features CRDs refuse, list and map
types, and the x-kubernetes-validations rules (their CEL is compiled by `compile_rules`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from fakeapi.kinds.customresourcedefinition.structural import key, validate_structural
from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.jsonschema.pruning import prune
from fakeapi.machinery.jsonschema.schema import compile_schema
from fakeapi.machinery.jsonschema.validation import validate as validate_value
from fakeapi.machinery.types import JSON

OPENAPI_V3_TYPES = ["array", "boolean", "integer", "number", "object", "string"]
ALLOWED_AT_ROOT_WITH_STATUS = (
    "description", "type", "format", "title", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
    "maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "multipleOf", "required", "items",
    "properties", "externalDocs", "example", "x-kubernetes-preserve-unknown-fields", "x-kubernetes-validations")
_ALLOWED_AT_ROOT_GO = ["Description", "Type", "Format", "Title", "Maximum", "ExclusiveMaximum", "Minimum",
                       "ExclusiveMinimum", "MaxLength", "MinLength", "Pattern", "MaxItems", "MinItems", "UniqueItems",
                       "MultipleOf", "Required", "Items", "Properties", "ExternalDocs", "Example",
                       "XPreserveUnknownFields", "XValidations"]
META_FIELDS = ("metadata", "kind", "apiVersion")
SUPPORTED_REASONS = ["FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"]

RuleCompiler = Callable[[JSON, str, "RuleContext"], list[FieldError]]
"""Compiles the CEL rules of one schema node (at a path), given what the node's place in the schema allows."""


STATIC_ESTIMATED_COST_LIMIT = 10_000_000  # per expression
STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000  # the rules of a whole schema
MAX_UINT64 = 2**64 - 1


class TotalCost:
    """The estimated cost of every rule of a schema, and the (at most 4) rules that weigh 1% of the limit or
    more, most expensive first."""

    def __init__(self) -> None:
        self.total = 0
        self.most_expensive: list[tuple[str, int]] = []

    def observe(self, path: str, cost: int) -> None:
        self.total = min(self.total + cost, MAX_UINT64)
        if cost < STATIC_ESTIMATED_CRD_COST_LIMIT // 100:
            return
        self.most_expensive.append((path, cost))
        self.most_expensive.sort(key=lambda entry: -entry[1])
        del self.most_expensive[4:]


def cost_error_message(name: str, cost: int, limit: int) -> str:
    factor = cost / limit
    if factor > 100.0:
        shown = "more than 100x"
    elif factor < 1.5:
        shown = f"{factor:f}x"
    else:
        shown = f"{factor:.1f}x"
    return f"{name} exceeds budget by factor of {shown} (try simplifying the rule, or adding maxItems, " \
           "maxProperties, and maxLength where arrays, maps, and strings are declared)"


def multiply(cost: int, cardinality: int) -> int:
    return 0 if cost == 0 else min(cost * cardinality, MAX_UINT64)


class RuleContext:
    """What the validation of a node's rules knows of where it sits."""

    def __init__(self, uncorrelatable: str | None = None, cardinality: int | None = 1, root: bool = False,
                 total: TotalCost | None = None, suppress_cost: bool = False) -> None:
        self.uncorrelatable = uncorrelatable  # the first ancestor whose items oldSelf cannot follow
        self.cardinality = cardinality  # how many times the node can occur (maxItems... above it); None: unbounded
        self.root = root
        self.total = total if total is not None else TotalCost()
        self.suppress_cost = suppress_cost  # an update that left this version's schema as it was


def validate_version_schema(schema: JSON, status_enabled: bool, path: str,
                            compile_rules: RuleCompiler | None = None, suppress_cost: bool = False) -> list[FieldError]:
    """The errors of `openAPIV3Schema` at `path` (`spec.validation` or `spec.versions[i].schema`)."""
    errors: list[FieldError] = []
    root = f"{path}.openAPIV3Schema"
    if status_enabled:
        kind = schema.get("type")
        for field in schema:
            value = schema[field]
            if value in (None, "", [], {}, False, 0):
                continue
            if field == "type":
                if kind != "object":
                    errors.append(fe.invalid(f"{root}.type", kind, 'only "object" is allowed as the type at the '
                                                                  "root of the schema if the status subresource is "
                                                                  "enabled"))
                    break
                continue
            if field not in ALLOWED_AT_ROOT_WITH_STATUS:
                errors.append(fe.invalid(root, _go_schema(schema), f"only {_go_list(_ALLOWED_AT_ROOT_GO)} fields "
                                                                   "are allowed at the root of the schema if the "
                                                                   "status subresource is enabled"))
                break
    if schema.get("nullable") is True:
        errors.append(fe.forbidden(f"{root}.nullable", "nullable cannot be true at the root"))
    structural = validate_structural(schema, root)
    if structural:
        errors += structural
    else:
        errors += validate_defaults(schema, root)
    schema_errors: list[FieldError] = []
    rule_errors: list[FieldError] = []
    total = TotalCost()
    _openapi(schema, root, True, schema_errors, rule_errors, _Walk(True, "", False, None, 1, total, suppress_cost),
             compile_rules if not errors else None)
    errors += schema_errors + rule_errors
    if compile_rules is not None and total.total > STATIC_ESTIMATED_CRD_COST_LIMIT:
        errors += [fe.forbidden(expensive, "contributed to estimated rule cost total exceeding cost limit for entire "
                                           "OpenAPIv3 schema") for expensive, _cost in total.most_expensive]
        errors.append(fe.forbidden(root, cost_error_message(
            "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema", total.total,
            STATIC_ESTIMATED_CRD_COST_LIMIT)))
    return errors


class _Walk:
    def __init__(self, allow_defaults: bool, reason: str, inside_meta: bool, uncorrelatable: str | None,
                 cardinality: int | None, total: TotalCost, suppress_cost: bool) -> None:
        self.allow_defaults = allow_defaults
        self.reason = reason
        self.inside_meta = inside_meta
        self.uncorrelatable = uncorrelatable
        self.cardinality = cardinality
        self.total = total
        self.suppress_cost = suppress_cost

    def _with(self, **changes: Any) -> _Walk:
        walk = _Walk(self.allow_defaults, self.reason, self.inside_meta, self.uncorrelatable, self.cardinality,
                     self.total, self.suppress_cost)
        walk.__dict__.update(changes)
        return walk

    def forbid_defaults(self, reason: str) -> _Walk:
        return self._with(allow_defaults=False, reason=reason)

    def in_meta(self) -> _Walk:
        return self._with(inside_meta=True)

    def uncorrelatable_at(self, path: str) -> _Walk:
        if self.uncorrelatable is not None:
            return self
        return self._with(uncorrelatable=path)

    def times(self, elements: int | None) -> _Walk:
        """Below a node that holds at most `elements` of its children (None: unbounded)."""
        if self.cardinality is None or elements is None:
            return self._with(cardinality=None)
        return self._with(cardinality=min(self.cardinality * elements, MAX_UINT64))


def _max_elements(s: JSON, child: str) -> int | None:
    """How many of a node's children there can be: 1 for properties, maxProperties or maxItems (None: no
    bound) for additionalProperties and items."""
    bound = s.get("maxProperties") if child == "additionalProperties" else s.get("maxItems") if child == "items" \
        else 1
    if isinstance(bound, bool) or not isinstance(bound, int):
        return None
    return max(bound, 0)


def _openapi(s: Any, path: str, is_root: bool, errors: list[FieldError], rule_errors: list[FieldError],
             walk: _Walk, compile_rules: RuleCompiler | None) -> None:
    if not isinstance(s, dict):
        return
    start = len(errors)
    errors += _standard(s, path, walk)
    if s.get("uniqueItems") is True:
        errors.append(fe.forbidden(f"{path}.uniqueItems",
                                   "uniqueItems cannot be set to true since the runtime complexity becomes quadratic"))
    properties = _properties(s)
    additional = s.get("additionalProperties")
    if additional is not None:
        if properties and (additional is False or isinstance(additional, dict)):
            errors.append(fe.forbidden(f"{path}.additionalProperties",
                                       "additionalProperties and properties are mutual exclusive"))
        sub = walk.forbid_defaults("inside additionalProperties applying to object metadata") \
            if walk.inside_meta else walk
        sub = sub.times(_max_elements(s, "additionalProperties"))
        _openapi(additional, f"{path}.additionalProperties", False, errors, rule_errors, sub, compile_rules)
    for name, prop in properties.items():
        sub = walk.times(1 if s.get("type") != "array" else _max_elements(s, "items"))
        if s.get("x-kubernetes-map-type") == "atomic":
            sub = sub.uncorrelatable_at(path)
        if (is_root or s.get("x-kubernetes-embedded-resource") is True) and name in META_FIELDS:
            sub = sub.in_meta()
            if is_root:
                sub = sub.forbid_defaults(f"in top-level {name}")
        _openapi(prop, key(path, name), False, errors, rule_errors, sub, compile_rules)
    _openapi(s.get("not"), f"{path}.not", False, errors, rule_errors, walk, None)
    for combinator in ("allOf", "oneOf", "anyOf"):
        for index, sub_schema in enumerate(s.get(combinator) or []):
            _openapi(sub_schema, f"{path}.{combinator}[{index}]", False, errors, rule_errors, walk, None)
    if isinstance(s.get("items"), dict):
        sub = walk if s.get("x-kubernetes-list-type") == "map" else walk.uncorrelatable_at(path)
        sub = sub.times(_max_elements(s, "items"))
        _openapi(s["items"], f"{path}.items", False, errors, rule_errors, sub, compile_rules)
    kind = s.get("type") or ""
    if s.get("x-kubernetes-preserve-unknown-fields") is False:
        errors.append(fe.invalid(f"{path}.x-kubernetes-preserve-unknown-fields", False, "must be true or undefined"))
    map_type = s.get("x-kubernetes-map-type")
    if map_type is not None and kind != "object":
        errors.append(_type_must_be(path, kind, "must be object if x-kubernetes-map-type is specified"))
    if map_type is not None and map_type not in ("atomic", "granular"):
        errors.append(fe.not_supported(f"{path}.x-kubernetes-map-type", map_type, ["atomic", "granular"]))
    list_type = s.get("x-kubernetes-list-type")
    items = s.get("items") if isinstance(s.get("items"), dict) else None
    if list_type is not None and kind != "array":
        errors.append(_type_must_be(path, kind, "must be array if x-kubernetes-list-type is specified"))
    elif list_type == "set" and items is not None:
        if items.get("type") == "array" and items.get("x-kubernetes-list-type") not in (None, "atomic"):
            errors.append(fe.invalid(f"{path}.items.x-kubernetes-list-type", items.get("x-kubernetes-list-type"),
                                     "must be atomic as item of a list with x-kubernetes-list-type=set"))
        if items.get("type") == "object" and items.get("x-kubernetes-map-type") != "atomic":
            errors.append(fe.invalid(f"{path}.items.x-kubernetes-map-type", list_type,
                                     "must be atomic as item of a list with x-kubernetes-list-type=set"))
    if list_type is not None and list_type not in ("atomic", "set", "map"):
        errors.append(fe.not_supported(f"{path}.x-kubernetes-list-type", list_type, ["atomic", "set", "map"]))
    map_keys = s.get("x-kubernetes-list-map-keys") or []
    if map_keys:
        if list_type is None:
            errors.append(fe.required(f"{path}.x-kubernetes-list-type",
                                      "must be map if x-kubernetes-list-map-keys is non-empty"))
        elif list_type != "map":
            errors.append(fe.invalid(f"{path}.x-kubernetes-list-type", list_type,
                                     "must be map if x-kubernetes-list-map-keys is non-empty"))
    if list_type == "map":
        errors += _map_list(s, path, items, map_keys)
    errors += _map_set_keys(s, path, items, list_type)
    rules = s.get("x-kubernetes-validations")
    if isinstance(rules, list) and rules:
        errors += _rule_statics(s, rules, path)
        if len(errors) == start and compile_rules is not None:
            rule_errors += compile_rules(s, path, RuleContext(walk.uncorrelatable, walk.cardinality, is_root,
                                                              walk.total, walk.suppress_cost))


def _type_must_be(path: str, kind: str, detail: str) -> FieldError:
    return fe.required(f"{path}.type", detail) if not kind else fe.invalid(f"{path}.type", kind, detail)


def _standard(s: JSON, path: str, walk: _Walk) -> list[FieldError]:
    errors: list[FieldError] = []
    kind = s.get("type")
    if isinstance(kind, str) and kind and kind not in OPENAPI_V3_TYPES:
        errors.append(fe.not_supported(f"{path}.type", kind, OPENAPI_V3_TYPES))
    if "default" in s and not walk.allow_defaults:
        detail = "must not be set" + (f" {walk.reason}" if walk.reason else "")
        errors.append(fe.forbidden(f"{path}.default", detail))
    for name, detail in (("id", "id is not supported"), ("additionalItems", "additionalItems is not supported"),
                         ("patternProperties", "patternProperties is not supported"),
                         ("definitions", "definitions is not supported"),
                         ("dependencies", "dependencies is not supported"), ("$ref", "$ref is not supported")):
        if s.get(name) not in (None, "", {}):
            errors.append(fe.forbidden(f"{path}.{name}", detail))
    if kind == "null":
        errors.append(fe.forbidden(f"{path}.type", "type cannot be set to null, use nullable as an alternative"))
    if isinstance(s.get("items"), list):
        errors.append(fe.forbidden(f"{path}.items", "items must be a schema object and not an array"))
    if walk.inside_meta and s.get("x-kubernetes-embedded-resource") is True:
        errors.append(fe.forbidden(f"{path}.x-kubernetes-embedded-resource",
                                   "must not be used inside of resource meta"))
    return errors


def _map_list(s: JSON, path: str, items: JSON | None, map_keys: list[Any]) -> list[FieldError]:
    errors: list[FieldError] = []
    if not map_keys:
        errors.append(fe.required(f"{path}.x-kubernetes-list-map-keys",
                                  "must not be empty if x-kubernetes-list-type is map"))
    if "items" not in s:
        errors.append(fe.required(f"{path}.items", "must have a schema if x-kubernetes-list-type is map"))
    if items is not None and items.get("type") != "object":
        errors.append(fe.invalid(f"{path}.items.type", items.get("type") or "",
                                 "must be object if parent array's x-kubernetes-list-type is map"))
    if items is not None and items.get("type") == "object":
        seen: set[str] = set()
        properties = _properties(items)
        for map_key in map_keys:
            prop = properties.get(map_key)
            if isinstance(prop, dict):
                if prop.get("type") in ("array", "object"):
                    errors.append(fe.invalid(f"{key(path + '.items', map_key)}.type", items.get("type"),
                                             "must be a scalar type if parent array's x-kubernetes-list-type is map"))
            else:
                errors.append(fe.invalid(f"{path}.x-kubernetes-list-map-keys", _go_strings(map_keys),
                                         "entries must all be names of item properties"))
            if map_key in seen:
                errors.append(fe.invalid(f"{path}.x-kubernetes-list-map-keys", _go_strings(map_keys),
                                         "must not contain duplicate entries"))
            seen.add(map_key)
    return errors


def _map_set_keys(s: JSON, path: str, items: JSON | None, list_type: Any) -> list[FieldError]:
    if items is None or list_type not in ("set", "map"):
        return []
    errors: list[FieldError] = []
    if items.get("nullable") is True:
        errors.append(fe.forbidden(f"{path}.items.nullable", f"cannot be nullable when x-kubernetes-list-type is "
                                                             f"{list_type}"))
    if list_type == "map":
        required = set(items.get("required") or ())
        properties = _properties(items)
        for map_key in s.get("x-kubernetes-list-map-keys") or []:
            prop = properties.get(map_key)
            if not isinstance(prop, dict):
                continue
            if map_key not in required and "default" not in prop:
                errors.append(fe.required(f"{key(path + '.items', map_key)}.default",
                                          "this property is in x-kubernetes-list-map-keys, so it must have a default "
                                          "or be a required property"))
            if prop.get("nullable") is True:
                errors.append(fe.forbidden(f"{key(path + '.items', map_key)}.nullable",
                                           "this property is in x-kubernetes-list-map-keys, so it cannot be nullable"))
    return errors


def _rule_statics(s: JSON, rules: list[Any], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    for index, rule in enumerate(rules):
        if not isinstance(rule, dict):
            continue
        at = f"{path}.x-kubernetes-validations[{index}]"
        text = str(rule.get("rule") or "").strip()
        message = str(rule.get("message") or "")
        if not text:
            errors.append(fe.required(f"{at}.rule", "rule is not specified"))
        elif message and not message.strip():
            errors.append(fe.invalid(f"{at}.message", message, "message must be non-empty if specified"))
        elif "\n" in message.strip() or "\r" in message.strip():
            errors.append(fe.invalid(f"{at}.message", message, "message must not contain line breaks"))
        elif ("\n" in text or "\r" in text) and not message.strip():
            errors.append(fe.required(f"{at}.message", "message must be specified if rule contains line breaks"))
        expression = rule.get("messageExpression")
        if isinstance(expression, str) and expression and not expression.strip():
            errors.append(fe.required(f"{at}.messageExpression", "messageExpression must be non-empty if specified"))
        reason = rule.get("reason")
        if reason is not None and reason not in SUPPORTED_REASONS:
            errors.append(fe.not_supported(f"{at}.reason", reason, SUPPORTED_REASONS))
        field_path = rule.get("fieldPath")
        if isinstance(field_path, str) and field_path:
            if not field_path.strip():
                errors.append(fe.invalid(f"{at}.fieldPath", field_path, "fieldPath must be non-empty if specified"))
            if "\n" in field_path or "\r" in field_path:
                errors.append(fe.invalid(f"{at}.fieldPath", field_path, "fieldPath must not contain line breaks"))
            if not valid_field_path(s, field_path):
                errors.append(fe.invalid(f"{at}.fieldPath", field_path, "fieldPath must be a valid path"))
    return errors


def valid_field_path(s: JSON, path: str) -> bool:
    """Whether a rule's fieldPath names a field of the node's schema (`.a.b`, `.a['b']`, `.list[0]`)."""
    from fakeapi.machinery.jsonpath import JsonPath, JsonPathError

    try:
        steps = JsonPath(path).field_steps()
    except JsonPathError:
        return False
    if steps is None or not path.startswith("."):
        return False
    node: Any = s
    for step in steps:
        if isinstance(step, str):
            name = step
            if not isinstance(node, dict):
                return False
            properties = node.get("properties") or {}
            if name in properties:
                node = properties[name]
            elif isinstance(node.get("additionalProperties"), dict):
                node = node["additionalProperties"]
            else:
                return False
        else:
            if not isinstance(node, dict) or not isinstance(node.get("items"), dict):
                return False
            node = node["items"]
    return True


def validate_defaults(schema: JSON, path: str) -> list[FieldError]:
    """Defaults must be pruned (no unknown fields) and valid against their own schema."""
    errors: list[FieldError] = []
    _defaults(schema, path, errors, False)
    return errors


def _defaults(s: Any, path: str, errors: list[FieldError], inside_meta: bool) -> None:
    if not isinstance(s, dict):
        return
    if "default" in s and not inside_meta:
        node = compile_schema(s)
        value = s["default"]
        pruned = orjson.loads(orjson.dumps(value))
        prune(pruned, node, node.embedded)
        if pruned != value:
            errors.append(fe.invalid(f"{path}.default", value, "must not have unknown fields"))
        found = validate_value(node, value, "", f"{path}.default")
        errors += found
    if isinstance(s.get("items"), dict):
        _defaults(s["items"], f"{path}.items", errors, inside_meta)
    for name, prop in _properties(s).items():
        meta = inside_meta or (s.get("x-kubernetes-embedded-resource") is True and name in META_FIELDS)
        _defaults(prop, key(path, name), errors, meta)


def _go_strings(values: list[Any]) -> Any:
    from fakeapi.machinery.validation.values import go_string_slice

    return go_string_slice(str(value) for value in values)


def _go_list(values: list[str]) -> str:
    return "[" + " ".join(values) + "]"


def _go_schema(schema: JSON) -> Any:
    """The whole root schema as the bad value (upstream prints the Go struct; fakeapi its JSON)."""
    return schema


def _properties(s: Any) -> dict[str, Any]:
    found = s.get("properties") if isinstance(s, dict) else None
    return found if isinstance(found, dict) else {}
