"""The CEL type a schema node gives `self` (upstream's SchemaDeclType in k8s.io/apiserver/pkg/cel/common): objects
with their (escaped) properties, lists, maps, int-or-string as dyn, date and date-time strings as timestamps,
durations and bytes, each with the most elements it can hold (maxLength, maxItems, maxProperties, or what fits
in a 3 MiB request), which the cost estimator reads.

Object types become protobuf messages, the one way the runtime's checker knows of fields; their names are
upstream's (`selfType123.spec`, `...items.@idx`) once printed in an error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from cel_expr_python import cel
from google.protobuf import descriptor_pb2, descriptor_pool, duration_pb2, struct_pb2, timestamp_pb2

from fakeapi.machinery.cel.types import PACKAGE, TYPE_NAMES
from fakeapi.machinery.jsonschema.schema import NO_DEFAULT, Schema

MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024
MAX_DURATION_SIZE_JSON = 32
MAX_DATETIME_SIZE_JSON = 32
MIN_DURATION_SIZE_JSON = 3
JSON_DATE_SIZE = 12
MIN_DATETIME_SIZE_JSON = 21
MIN_STRING_SIZE = 2
MIN_BOOL_SIZE = 4
MIN_NUMBER_SIZE = 1

_RESERVED = frozenset({"true", "false", "null", "in", "as", "break", "const", "continue", "else", "for", "function",
                       "if", "import", "let", "loop", "package", "namespace", "return", "var", "void", "while"})
_PLAIN = re.compile(r"^[a-zA-Z0-9_]*$")
_EXPAND = re.compile(r"__|[-./]|[^a-zA-Z0-9\-./_]")
_ESCAPES = {"__": "__underscores__", ".": "__dot__", "-": "__dash__", "/": "__slash__"}


def escape(name: str) -> str | None:
    """A property name as a CEL identifier (`foo-bar` -> `foo__dash__bar`, `namespace` -> `__namespace__`), or
    None when it cannot be one."""
    if not name or name[0].isdigit():
        return None
    if name in _RESERVED:
        return f"__{name}__"
    if _PLAIN.match(name) and "__" not in name:
        return name
    if not all(char in "-./" or char.isascii() and (char.isalnum() or char == "_") for char in name):
        return None
    return _EXPAND.sub(lambda found: _ESCAPES[found.group(0)], name)


@dataclass(eq=False)
class DeclField:
    name: str  # the property's own name (the escaped one is its key)
    type: DeclType


@dataclass(eq=False)
class DeclType:
    """`kind`: object, list, map, string, bytes, timestamp, duration, bool, int, double or dyn."""

    kind: str
    max_elements: int = 0
    min_serialized_size: int = 1
    fields: dict[str, DeclField] = field(default_factory=dict)  # by escaped name
    elem: DeclType | None = None  # a list's items, a map's values
    date_only: bool = False  # a timestamp written as a date

    @property
    def is_object(self) -> bool:
        return self.kind == "object"


def _simple(kind: str, min_size: int, max_elements: int = 0) -> DeclType:
    return DeclType(kind, max_elements, min_size)


def schema_decl_type(schema: Schema, resource_root: bool) -> DeclType | None:
    """The declared type of a node, or None when rules cannot see it (no type, or items that have none)."""
    if schema.int_or_string:
        return _simple("dyn", 1, MAX_REQUEST_SIZE_BYTES - 2)
    kind = schema.type
    if kind == "array":
        if schema.items is None:
            return None
        items = schema_decl_type(schema.items, schema.items.embedded)
        if items is None:
            return None
        max_items = max(schema.max_items, 0) if schema.max_items is not None \
            else (MAX_REQUEST_SIZE_BYTES - 2) // (items.min_serialized_size + 1)
        return DeclType("list", max_items, 2, elem=items)
    if kind == "object":
        if schema.additional is not None:
            values = schema_decl_type(schema.additional, schema.additional.embedded)
            if values is None:
                return None
            max_properties = max(schema.max_properties, 0) if schema.max_properties is not None \
                else (MAX_REQUEST_SIZE_BYTES - 2) // (values.min_serialized_size + 6)
            return DeclType("map", max_properties, 2, elem=values)
        return _object(schema, resource_root)
    if kind == "string":
        return _string(schema)
    if kind == "boolean":
        return _simple("bool", MIN_BOOL_SIZE)
    if kind == "number":
        return _simple("double", MIN_NUMBER_SIZE)
    if kind == "integer":
        return _simple("int", MIN_NUMBER_SIZE)
    return None


_META_STRING = Schema({"type": "string"}, types=("string",))


def _object(schema: Schema, resource_root: bool) -> DeclType:
    properties = dict(schema.properties)
    required = set(schema.required)
    if resource_root:
        properties["apiVersion"] = properties["kind"] = _META_STRING
        properties["metadata"] = Schema({"type": "object"}, types=("object",),
                                        properties={"name": _META_STRING, "generateName": _META_STRING})
    declared = DeclType("object", min_serialized_size=2)
    for name, prop in properties.items():
        prop_type = schema_decl_type(prop, prop.embedded)
        if prop_type is None:
            continue
        escaped = escape(name)
        if escaped is not None:
            declared.fields[escaped] = DeclField(name, prop_type)
        if name in required and prop.default is NO_DEFAULT:
            declared.min_serialized_size += len(name) + prop_type.min_serialized_size + 4
    return declared


def _string(schema: Schema) -> DeclType:
    fmt = schema.raw.get("format")
    per_request = MAX_REQUEST_SIZE_BYTES - 2
    if fmt == "byte":
        return _simple("bytes", MIN_STRING_SIZE,
                       max(schema.max_length, 0) if schema.max_length is not None else per_request)
    if fmt == "duration":
        return _simple("duration", MIN_DURATION_SIZE_JSON, MAX_DURATION_SIZE_JSON)
    if fmt == "date":
        return DeclType("timestamp", JSON_DATE_SIZE, JSON_DATE_SIZE, date_only=True)
    if fmt == "date-time":
        return _simple("timestamp", MIN_DATETIME_SIZE_JSON, MAX_DATETIME_SIZE_JSON)
    if schema.max_length is not None:
        # maxLength counts characters, the request size bytes: a character takes up to 4
        return _simple("string", MIN_STRING_SIZE, max(schema.max_length, 0) * 4)
    if schema.enum:
        return _simple("string", MIN_STRING_SIZE,
                       max((len(value) for value in schema.enum if isinstance(value, str)), default=0))
    return _simple("string", MIN_STRING_SIZE, per_request)


# ---- the types declared to the checker

_F = descriptor_pb2.FieldDescriptorProto
_SCALARS = {"string": _F.TYPE_STRING, "bytes": _F.TYPE_BYTES, "bool": _F.TYPE_BOOL, "int": _F.TYPE_INT64,
            "double": _F.TYPE_DOUBLE}
_WELL_KNOWN = {"timestamp": ".google.protobuf.Timestamp", "duration": ".google.protobuf.Duration",
               "dyn": ".google.protobuf.Value"}
_BASE_FILES = tuple(_file.SerializeToString() for _file in (
    descriptor_pb2.FileDescriptorProto.FromString(module.DESCRIPTOR.serialized_pb)
    for module in (struct_pb2, timestamp_pb2, duration_pb2)))


def _kubernetes_types() -> bytes:
    file = descriptor_pb2.FileDescriptorProto(name="fakeapi/kubernetes_cel.proto", package=PACKAGE, syntax="proto3")
    for name in TYPE_NAMES:
        message = file.message_type.add(name=name)
        message.field.add(name="text", number=1, type=_F.TYPE_STRING, label=_F.LABEL_OPTIONAL)
    serialized: bytes = file.SerializeToString()
    return serialized


_KUBERNETES_FILE = _kubernetes_types()


@dataclass
class DeclaredTypes:
    """The checker's view of one node's `self`: its type, the pool of its messages, and the upstream name of
    each message (for error texts)."""

    self_type: Any
    pool: descriptor_pool.DescriptorPool
    display_names: dict[str, str]


def declare(decl: DeclType, name: str) -> DeclaredTypes:
    """The checker types of `decl`, its objects named after `name` (upstream's `selfType<n>`)."""
    builder = _Messages(name)
    self_type = builder.type_of(decl, name)
    pool = descriptor_pool.DescriptorPool()
    for serialized in (*_BASE_FILES, _KUBERNETES_FILE):
        pool.Add(descriptor_pb2.FileDescriptorProto.FromString(serialized))
    pool.Add(builder.file)
    return DeclaredTypes(self_type, pool, builder.display)


class _Messages:
    """One message per object type, top-level, named `<root>`, `<root>_1`, `<root>_2`...; `display` gives
    each the name upstream's type would have."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.file = descriptor_pb2.FileDescriptorProto(
            name=f"fakeapi/{root}.proto", syntax="proto3",
            dependency=["google/protobuf/struct.proto", "google/protobuf/timestamp.proto",
                        "google/protobuf/duration.proto"])
        self.display: dict[str, str] = {}

    def type_of(self, decl: DeclType, shown: str) -> Any:
        if decl.kind == "object":
            return cel.Type(self._message(decl, shown))
        if decl.kind in ("list", "map"):
            assert decl.elem is not None
            if decl.kind == "list":
                return cel.Type.List(self.type_of(decl.elem, f"{shown}.@idx"))
            return cel.Type.Map(cel.Type.STRING, self.type_of(decl.elem, f"{shown}.@elem"))
        return {"string": cel.Type.STRING, "bytes": cel.Type.BYTES, "bool": cel.Type.BOOL, "int": cel.Type.INT,
                "double": cel.Type.DOUBLE, "timestamp": cel.Type.TIMESTAMP, "duration": cel.Type.DURATION}.get(
            decl.kind, cel.Type.DYN)

    def _message(self, decl: DeclType, shown: str) -> str:
        name = self.root if not self.display else f"{self.root}_{len(self.display)}"
        self.display[name] = shown
        message = self.file.message_type.add(name=name)
        for number, (escaped, declared) in enumerate(decl.fields.items(), start=1):
            self._field(message, name, escaped, number, declared.type, f"{shown}.{escaped}")
        return name

    def _field(self, message: Any, holder: str, escaped: str, number: int, decl: DeclType, shown: str) -> None:
        if decl.kind == "map":
            assert decl.elem is not None
            entry_name = "".join(part.capitalize() for part in escaped.split("_")) + "Entry"
            entry = message.nested_type.add(name=entry_name)
            entry.options.map_entry = True
            entry.field.add(name="key", number=1, label=_F.LABEL_OPTIONAL, type=_F.TYPE_STRING)
            self._typed(entry.field.add(name="value", number=2, label=_F.LABEL_OPTIONAL), decl.elem,
                        f"{shown}.@elem")
            message.field.add(name=escaped, number=number, label=_F.LABEL_REPEATED, type=_F.TYPE_MESSAGE,
                              type_name=f".{holder}.{entry_name}")
        elif decl.kind == "list":
            assert decl.elem is not None
            self._typed(message.field.add(name=escaped, number=number, label=_F.LABEL_REPEATED), decl.elem,
                        f"{shown}.@idx")
        else:
            self._typed(message.field.add(name=escaped, number=number, label=_F.LABEL_OPTIONAL), decl, shown)

    def _typed(self, declared: Any, decl: DeclType, shown: str) -> None:
        """A field (or a repeated field's item) of type `decl`; lists and maps nested in lists or maps are dyn
        lists and maps (protobuf nests no repeated fields)."""
        if decl.kind in _SCALARS:
            declared.type = _SCALARS[decl.kind]
            return
        declared.type = _F.TYPE_MESSAGE
        if decl.kind == "object":
            declared.type_name = "." + self._message(decl, shown)
        elif decl.kind == "list":
            declared.type_name = ".google.protobuf.ListValue"
        elif decl.kind == "map":
            declared.type_name = ".google.protobuf.Struct"
        else:
            declared.type_name = _WELL_KNOWN.get(decl.kind, ".google.protobuf.Value")
