"""A protobuf message walked by its compiled schema: the JSON object a Go client would have sent.

Each property's `protobuf` number (`Structural.protobuf_fields`) says which field carries it; a struct
inlined in JSON but nested in protobuf (`Structural.protobuf_inline`: Volume's VolumeSource, Probe's
ProbeHandler) is a message whose fields land in the enclosing object. A repeated field comes one value
per field, or packed (numbers and bools); a map is a repeated entry message {1: key, 2: value}, and a map
of lists wraps each list in a message whose field 1 holds the items (UserInfo's ExtraValue). Fields the
schema does not name are skipped, as Go skips them.

The Go types with a protobuf form of their own become the JSON they marshal to: Time and MicroTime
(Timestamp{1: seconds, 2: nanos}; a Time keeps whole seconds, as upstream's does, a MicroTime
microseconds; an empty Timestamp is the zero time, null), Quantity ({1: string}; "0" without one),
IntOrString ({1: type, 2: intVal, 3: strVal}), RawExtension, FieldsV1 and apiextensions' JSON ({1: raw},
the JSON itself), and the unions of a CustomResourceDefinition's schema: JSONSchemaPropsOrArray ({1:
schema, 2: schemas}), OrBool ({1: allows, 2: schema}) and OrStringArray ({1: schema, 2: property}). No
definition of the stable groups has a Duration. []byte is base64 in JSON.

Go decodes into structs, so a scalar that is its zero value (an empty string, a false or a zero) is left
out of the JSON, as an absent field means the same; a pointer scalar is kept even when zero (gogo writes
it only when it is set: `immutable: false`), and a message that is present is kept even when empty (a
pointer to an empty struct is not a nil pointer). As in Go's decoder, a message field sent twice is
merged, a scalar sent twice keeps the last value, and a map entry sent again replaces its key's value.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from fakeapi.machinery.limits import MAX_DEPTH, load_json
from fakeapi.machinery.protobuf.wire import (
    BYTES,
    VARINT,
    Malformed,
    Value,
    as_bytes,
    as_double,
    as_number,
    as_signed,
    as_text,
    fields,
    packed_varints,
)
from fakeapi.machinery.schema.definitions import KUBERNETES_1_32
from fakeapi.machinery.schema.structural import (
    FIELDS_V1,
    INT_OR_STRING,
    MICRO_TIME,
    QUANTITY,
    RAW_EXTENSION,
    TIME,
    Field,
    Structural,
)
from fakeapi.machinery.types import JSON

_APIEXTENSIONS = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1."
_EMPTY = memoryview(b"")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_ZERO_TIME = datetime(1, 1, 1, tzinfo=UTC)


def decode_message(buf: memoryview, schema: Structural, depth: int = 0) -> JSON:
    """The message's JSON object; Malformed when the bytes are not such a message."""
    out: JSON = {}
    _read(out, buf, schema, schema.protobuf_fields, schema.protobuf_inline, depth)
    return out


def _read(out: JSON, buf: memoryview, schema: Structural, numbers: Mapping[int, str],
          inline: Mapping[int, tuple[str, ...]], depth: int) -> None:
    if depth > MAX_DEPTH:
        raise Malformed
    properties = schema.properties
    for number, wire, value in fields(buf):
        name = numbers.get(number)
        if name is not None:
            _field(out, name, properties[name], wire, value, depth)
        elif number in inline:  # the fields of an inlined struct, by that struct's own numbers
            nested = {properties[name].protobuf: name for name in inline[number] if name in properties}
            _read(out, as_bytes(wire, value), schema, nested, {}, depth + 1)


def _field(out: JSON, name: str, prop: Field, wire: int, value: Value, depth: int) -> None:
    schema = prop.schema
    if schema.name:  # a message, or a Go type with a protobuf form of its own
        special = _SPECIAL.get(schema.name)
        if special is None:  # a message sent again merges into the first, as Go's decoder does
            target = out.get(name)
            if target is None:
                out[name] = target = {}
            _read(target, as_bytes(wire, value), schema, schema.protobuf_fields, schema.protobuf_inline, depth + 1)
        elif (decoded := special(as_bytes(wire, value), depth + 1)) is None:
            out.pop(name, None)  # the zero Time, a nil RawExtension: null in Go's JSON
        else:
            out[name] = decoded
    elif schema.items is not None:
        item, items = schema.items, out.setdefault(name, [])
        if wire == BYTES and item.type in ("integer", "boolean"):  # packed
            items.extend(_scalar(item, VARINT, number) for number in packed_varints(as_bytes(wire, value)))
        else:
            items.append(_value(item, wire, value, depth))
    elif schema.additional is not None:
        key, entry = _map_entry(wire, value)
        out.setdefault(name, {})[key] = _map_value(schema.additional, entry, depth)
    elif (decoded := _scalar(schema, wire, value)) or (prop.go is not None and prop.go.shape == "pointer"):
        out[name] = decoded
    else:
        out.pop(name, None)  # a zero value: Go's struct holds no more than if it were absent


def _value(schema: Structural, wire: int, value: Value, depth: int) -> Any:
    """One item of a list or value of a map."""
    if schema.name:
        special = _SPECIAL.get(schema.name)
        if special is None:
            return decode_message(as_bytes(wire, value), schema, depth + 1)
        return special(as_bytes(wire, value), depth + 1)
    return _scalar(schema, wire, value)


def _scalar(schema: Structural, wire: int, value: Value) -> Any:
    kind = schema.type
    if kind == "string":
        if schema.format == "byte":
            return base64.b64encode(as_bytes(wire, value)).decode("ascii")
        return as_text(wire, value)
    if kind == "integer":
        return as_signed(wire, value, 32 if schema.format == "int32" else 64)
    if kind == "boolean":
        return as_number(wire, value) != 0
    if kind == "number":
        return as_double(wire, value)
    raise Malformed  # a list of lists, which no Kubernetes type has


def _map_entry(wire: int, value: Value) -> tuple[str, tuple[int, Value] | None]:
    key, entry = "", None
    for number, entry_wire, part in fields(as_bytes(wire, value)):
        if number == 1:
            key = as_text(entry_wire, part)
        elif number == 2:
            entry = entry_wire, part
    return key, entry


def _map_value(schema: Structural, entry: tuple[int, Value] | None, depth: int) -> Any:
    """A map entry's value; an absent one is the type's zero value, as in Go."""
    if schema.type == "array" and schema.items is not None:  # a list travels in a message: {1: items}
        buf = _EMPTY if entry is None else as_bytes(*entry)
        return [_value(schema.items, wire, item, depth) for number, wire, item in fields(buf) if number == 1]
    if entry is None:
        entry = (VARINT, 0) if schema.type in ("integer", "boolean") and not schema.name else (BYTES, _EMPTY)
    return _value(schema, *entry, depth)


# --- the Go types with a protobuf form of their own


def _time(buf: memoryview, depth: int) -> str | None:
    return _timestamp(buf, "seconds")


def _micro_time(buf: memoryview, depth: int) -> str | None:
    return _timestamp(buf, "microseconds")


def _timestamp(buf: memoryview, precision: str) -> str | None:
    """time.Unix(seconds, nanos) as metav1's Unmarshal makes it (Time drops the nanos), in RFC 3339 as its
    MarshalJSON writes it; None for the zero time, which Go writes as null."""
    if not buf:
        return None
    seconds = nanos = 0
    for number, wire, value in fields(buf):
        if number == 1:
            seconds = as_signed(wire, value, 64)
        elif number == 2:
            nanos = as_signed(wire, value, 32)
    micros = int(nanos / 1000) if precision == "microseconds" else 0  # toward zero, as Duration.Truncate
    try:
        moment = _EPOCH + timedelta(seconds=seconds, microseconds=micros)
    except OverflowError:  # beyond the years Go's JSON encoder writes
        raise Malformed from None
    return None if moment == _ZERO_TIME else moment.isoformat(timespec=precision).replace("+00:00", "Z")


def _quantity(buf: memoryview, depth: int) -> str:
    text = "0"  # the zero Quantity
    for number, wire, value in fields(buf):
        if number == 1:
            text = as_text(wire, value)
    return text


def _int_or_string(buf: memoryview, depth: int) -> int | str:
    kind, number_value, text = 0, 0, ""
    for number, wire, value in fields(buf):
        if number == 1:
            kind = as_signed(wire, value, 64)
        elif number == 2:
            number_value = as_signed(wire, value, 32)
        elif number == 3:
            text = as_text(wire, value)
    if kind not in (0, 1):  # Go's encoder refuses it: impossible IntOrString.Type
        raise Malformed
    return text if kind == 1 else number_value


def _raw_json(buf: memoryview, depth: int) -> Any:
    raw = None
    for number, wire, value in fields(buf):
        if number == 1:
            raw = as_bytes(wire, value)
    if not raw:
        return None  # no Raw, written as null
    try:
        return load_json(bytes(raw))
    except ValueError:
        raise Malformed from None


def _schema_or_array(buf: memoryview, depth: int) -> Any:
    """JSONSchemaPropsOrArray: its schemas when it has some, else its schema (null without one)."""
    schema, schemas = None, []
    for number, wire, value in fields(buf):
        if number == 1:
            schema = _schema_props(wire, value, depth)
        elif number == 2:
            schemas.append(_schema_props(wire, value, depth))
    return schemas or schema


def _schema_or_bool(buf: memoryview, depth: int) -> Any:
    """JSONSchemaPropsOrBool: its schema, else its bool."""
    allows, schema = False, None
    for number, wire, value in fields(buf):
        if number == 1:
            allows = as_number(wire, value) != 0
        elif number == 2:
            schema = _schema_props(wire, value, depth)
    return allows if schema is None else schema


def _schema_or_strings(buf: memoryview, depth: int) -> Any:
    """JSONSchemaPropsOrStringArray: its strings when it has some, else its schema (null without one)."""
    schema, strings = None, []
    for number, wire, value in fields(buf):
        if number == 1:
            schema = _schema_props(wire, value, depth)
        elif number == 2:
            strings.append(as_text(wire, value))
    return strings or schema


def _schema_props(wire: int, value: Value, depth: int) -> JSON:
    props = KUBERNETES_1_32.schema(_APIEXTENSIONS + "JSONSchemaProps")
    return decode_message(as_bytes(wire, value), props, depth)


_SPECIAL: dict[str, Callable[[memoryview, int], Any]] = {
    TIME: _time,
    MICRO_TIME: _micro_time,
    QUANTITY: _quantity,
    INT_OR_STRING: _int_or_string,
    RAW_EXTENSION: _raw_json,
    FIELDS_V1: _raw_json,
    _APIEXTENSIONS + "JSON": _raw_json,
    _APIEXTENSIONS + "JSONSchemaPropsOrArray": _schema_or_array,
    _APIEXTENSIONS + "JSONSchemaPropsOrBool": _schema_or_bool,
    _APIEXTENSIONS + "JSONSchemaPropsOrStringArray": _schema_or_strings,
}
