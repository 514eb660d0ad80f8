"""A CustomResourceDefinition's schema (an `openAPIV3Schema`, JSONSchemaProps on the wire) compiled once into
a tree of `Schema` nodes: what the validator, pruning, defaulting, list-type checks and CEL read.

The raw schema is kept (`raw`) for what is published (OpenAPI) and for messages that print it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from fakeapi.machinery.types import JSON

NO_DEFAULT: Any = object()
"""The default of a node that has none (a default may be null)."""

# the formats upstream's CR validator checks (apiextensions' supportedFormats); any other is ignored, as
# upstream strips it before validating
SUPPORTED_FORMATS = frozenset({
    "bsonobjectid", "uri", "email", "hostname", "ipv4", "ipv6", "cidr", "mac", "uuid", "uuid3", "uuid4", "uuid5",
    "isbn", "isbn10", "isbn13", "creditcard", "ssn", "hexcolor", "rgbcolor", "byte", "password", "date", "duration",
    "datetime",
})


@dataclass(eq=False, slots=True)
class Schema:
    raw: JSON
    types: tuple[str, ...] = ()  # empty: any type; int-or-string: ("integer", "string")
    nullable: bool = False
    format: str = ""  # a supported format, normalised (`date-time` -> `datetime`), else ""
    enum: list[Any] | None = None
    pattern: re.Pattern[str] | None = None
    maximum: float | None = None
    exclusive_maximum: bool = False
    minimum: float | None = None
    exclusive_minimum: bool = False
    multiple_of: float | None = None
    max_length: int | None = None
    min_length: int | None = None
    max_items: int | None = None
    min_items: int | None = None
    unique_items: bool = False
    max_properties: int | None = None
    min_properties: int | None = None
    required: tuple[str, ...] = ()
    properties: dict[str, Schema] = field(default_factory=dict)
    additional: Schema | None = None  # additionalProperties as a schema (a map's values)
    additional_allowed: bool = True  # additionalProperties: false forbids unknown keys
    items: Schema | None = None
    all_of: tuple[Schema, ...] = ()
    any_of: tuple[Schema, ...] = ()
    one_of: tuple[Schema, ...] = ()
    not_: Schema | None = None
    preserve_unknown: bool = False
    embedded: bool = False
    int_or_string: bool = False
    list_type: str = ""
    list_map_keys: tuple[str, ...] = ()
    map_type: str = ""
    default: Any = NO_DEFAULT
    rules: tuple[JSON, ...] = ()  # x-kubernetes-validations

    @property
    def type(self) -> str:
        return self.types[0] if len(self.types) == 1 else ""

    def child(self, key: str) -> Schema | None:
        """The schema of an object's field: its property, or its additionalProperties."""
        prop = self.properties.get(key)
        return prop if prop is not None else self.additional


def compile_schema(raw: JSON) -> Schema:
    """The node tree of a raw schema (which must be a JSON object; parts that are not are ignored)."""
    node = Schema(raw)
    kind = raw.get("type")
    if raw.get("x-kubernetes-int-or-string") is True:
        node.int_or_string = True
        node.types = ("integer", "string")
    elif isinstance(kind, str) and kind:
        node.types = (kind,)
    node.nullable = raw.get("nullable") is True
    fmt = raw.get("format")
    if isinstance(fmt, str) and fmt.replace("-", "") in SUPPORTED_FORMATS:
        node.format = fmt.replace("-", "")
    enum = raw.get("enum")
    if isinstance(enum, list) and enum:
        node.enum = enum
    pattern = raw.get("pattern")
    if isinstance(pattern, str) and pattern:
        try:
            node.pattern = re.compile(go_regexp(pattern))
        except re.error:
            node.pattern = None  # refused when the CRD is written (structural validation)
    node.maximum = _number(raw.get("maximum"))
    node.exclusive_maximum = raw.get("exclusiveMaximum") is True
    node.minimum = _number(raw.get("minimum"))
    node.exclusive_minimum = raw.get("exclusiveMinimum") is True
    node.multiple_of = _number(raw.get("multipleOf"))
    node.max_length = _int(raw.get("maxLength"))
    node.min_length = _int(raw.get("minLength"))
    node.max_items = _int(raw.get("maxItems"))
    node.min_items = _int(raw.get("minItems"))
    node.unique_items = raw.get("uniqueItems") is True
    node.max_properties = _int(raw.get("maxProperties"))
    node.min_properties = _int(raw.get("minProperties"))
    required = raw.get("required")
    if isinstance(required, list):
        node.required = tuple(name for name in required if isinstance(name, str))
    properties = raw.get("properties")
    if isinstance(properties, dict):
        node.properties = {name: compile_schema(sub) for name, sub in properties.items() if isinstance(sub, dict)}
    additional = raw.get("additionalProperties")
    if isinstance(additional, dict):
        node.additional = compile_schema(additional)
    elif additional is False:
        node.additional_allowed = False
    items = raw.get("items")
    if isinstance(items, dict):
        node.items = compile_schema(items)
    node.all_of = _list_of(raw.get("allOf"))
    node.any_of = _list_of(raw.get("anyOf"))
    node.one_of = _list_of(raw.get("oneOf"))
    if isinstance(raw.get("not"), dict):
        node.not_ = compile_schema(raw["not"])
    node.preserve_unknown = raw.get("x-kubernetes-preserve-unknown-fields") is True
    node.embedded = raw.get("x-kubernetes-embedded-resource") is True
    list_type = raw.get("x-kubernetes-list-type")
    node.list_type = list_type if isinstance(list_type, str) else ""
    keys = raw.get("x-kubernetes-list-map-keys")
    if isinstance(keys, list):
        node.list_map_keys = tuple(key for key in keys if isinstance(key, str))
    map_type = raw.get("x-kubernetes-map-type")
    node.map_type = map_type if isinstance(map_type, str) else ""
    if "default" in raw:
        node.default = raw["default"]
    rules = raw.get("x-kubernetes-validations")
    if isinstance(rules, list):
        node.rules = tuple(rule for rule in rules if isinstance(rule, dict))
    return node


def _list_of(value: Any) -> tuple[Schema, ...]:
    if not isinstance(value, list):
        return ()
    return tuple(compile_schema(item) for item in value if isinstance(item, dict))


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value


def _int(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return int(value)


_GO_CLASSES = {r"\z": r"\Z"}


def go_regexp(pattern: str) -> str:
    """A Go (RE2) regular expression as Python's `re` reads it: the syntax the two share is most of what
    schemas use; `\\z` is Python's `\\Z`."""
    for go, python in _GO_CLASSES.items():
        pattern = pattern.replace(go, python)
    return pattern
