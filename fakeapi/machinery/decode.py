"""Decode a request body against its kind's schema: shape checks, upstream error messages, pruning.

This is what kube-apiserver's JSON decoder (sigs.k8s.io/json, case-sensitive, strict) does before any
strategy runs:

* a value of the wrong JSON type is a 400 whose message matches upstream's, e.g.
  `Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal string into Go struct field
  PodSpec.spec.containers of type []v1.Container` (the Go field path has no list indexes);
* an unknown field is dropped and reported as `unknown field "spec.containers[0].foo"` (with indexes);
  the caller turns these into a 400 (Strict), `Warning` headers (Warn) or nothing (Ignore);
* `null` means absent, as Go leaves a nil pointer / zero value that is omitted on output; a `null`
  list element or map value becomes the Go zero value, since dropping it would shift or lose entries;
* the result is what Go's encoding/json writes for the decoded structs (`fakeapi.machinery.schema.
  structural.GoField`): empty omitempty values are dropped and fields Go always writes are there, unset ones as
  their zero value (`resources: {}`, `lastProbeTime: null`, `port: 0`), so validation sees the zero
  values upstream validates and the stored object is the one upstream stores. A `partial` decode (an
  apply configuration, which upstream never decodes into structs) keeps the body's fields as they are;
* quantities and times are checked as apimachinery parses them; JSON numbers in quantities become
  strings and times are rewritten as upstream writes them back (UTC; seconds, or microseconds).

A `Decoder` walks a plan compiled from the kind's schema (`structural_plan`), which is compiled from
upstream's OpenAPI definitions (`fakeapi.machinery.schema`).

Repeated keys never reach `decode` (JSON parsers keep the last one): `parse_keeping_repeats` re-reads
a body with the stdlib parser, and `Decoder.strict_errors` reports its duplicate and unknown fields in
document order, as upstream's strict decoder (sigs.k8s.io/json) does.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Protocol

import orjson

from fakeapi.machinery import gobase64
from fakeapi.machinery.errors import BadRequest
from fakeapi.machinery.gotime import canonical_time
from fakeapi.machinery.jsonvalues import copy_json, json_type_name
from fakeapi.machinery.quantity import FORMAT_ERROR as QUANTITY_FORMAT_ERROR
from fakeapi.machinery.quantity import number_text, quantity_error
from fakeapi.machinery.schema.structural import (
    FIELDS_V1,
    INT_OR_STRING,
    MICRO_TIME,
    QUANTITY,
    RAW_EXTENSION,
    TIME,
    Structural,
)
from fakeapi.machinery.types import JSON

_STR, _BOOL, _INT32, _INT64, _FLOAT, _QUANTITY, _INTSTR, _TIME, _MICROTIME = range(9)
_STRMAP, _RESOURCES, _FREE, _OBJECT, _LIST, _BYTESMAP = range(9, 15)

_CONTAINER_TYPES = (dict, list)
_INT32_LIMIT = 1 << 31
_INT64_LIMIT = 1 << 63
# the Go zero value a `null` list element or map value decodes to
_ZERO: dict[int, Any] = {_STR: "", _BOOL: False, _INT32: 0, _INT64: 0, _FLOAT: 0, _QUANTITY: "0", _INTSTR: 0}
# the definitions of Go types with a JSON form of their own: how they are decoded
_NAMED_SPECS: dict[str, tuple[int, str]] = {
    QUANTITY: (_QUANTITY, "resource.Quantity"),
    INT_OR_STRING: (_INTSTR, "intstr.IntOrString"),
    TIME: (_TIME, "v1.Time"),
    MICRO_TIME: (_MICROTIME, "v1.MicroTime"),
    FIELDS_V1: (_FREE, ""),
    RAW_EXTENSION: (_FREE, ""),
}
_MAX_STRICT_ERRORS = 100  # upstream's strict decoder stops recording there
_LIST_INDEX = re.compile(r"\[[0-9]+\]")
_TYPE_META = (
    'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }'
)


@dataclass
class Decoded:
    """A decoded body: the object, wire-shaped with unknown fields pruned, and what was pruned."""

    obj: JSON
    unknown: list[str] = field(default_factory=list)


class BodyDecoder(Protocol):
    """What decodes a kind's request bodies: `Decoder` for upstream's Go types, another for custom resources."""

    def decode(self, data: Any, kind: str, version: str = "v1", stored: JSON | None = None) -> Decoded: ...

    def strict_errors(self, body: Any) -> list[str]: ...


@dataclass(slots=True)
class DecodePlan:
    """How to walk the objects of one schema class: its fields by wire name."""

    struct: str  # the Go struct name, e.g. "PodSpec"
    fields: dict[str, _Spec]
    # (field, zero JSON) of the fields Go writes even when unset
    always: tuple[tuple[str, Any], ...] = ()


@dataclass(slots=True, eq=False)  # hashed by identity: a key of Decoder's memo of parts
class _Spec:
    kind: int
    go_type: str  # the Go type named in "cannot unmarshal ... of type X"
    plan: DecodePlan | None = None  # _OBJECT
    item: _Spec | None = None  # _LIST
    drops_empty: bool = False  # an omitempty value: Go leaves out "", 0, false, [] and {}


class _WrongType(Exception):
    """A value that does not fit its field; the enclosing object adds which field it was."""

    def __init__(self, value: str, go_type: str) -> None:
        super().__init__(value)
        self.value = value
        self.go_type = go_type


class _Failure(Exception):
    """A complete decode error message (the part after `... cannot be handled as a Kind: `)."""


# (the part's spec, its path, its JSON) -> (the decoded part's JSON, the unknown fields in it)
_PartDecoder = Callable[["_Spec", str, bytes], tuple[bytes, tuple[str, ...]]]


class Decoder:
    """Decodes the bodies of one kind by its plan.

    With `remember_parts` (a registry's decoder), the decoding of the parts many objects share is
    kept: the `spec` of objects made from one template, the condition and container status lists of
    statuses alike. Walking them is most of a decode (figures in docs/performance.md).
    """

    def __init__(self, plan: DecodePlan, remember_parts: bool = False) -> None:
        self._plan = plan
        self._part: _PartDecoder | None = lru_cache(maxsize=256)(_decode_part) if remember_parts else None

    def decode(self, data: Any, kind: str, version: str = "v1", stored: JSON | None = None) -> Decoded:
        """Check `data` (a parsed JSON body) against the schema; raise BadRequest as upstream would.

        `stored` is the object `data` replaces, as it is stored: a top-level part that `data` resends
        as the very same JSON is parsed afresh from that JSON rather than decoded, since decoding a
        stored part gives it back (an update mostly resends the stored metadata and spec).
        The result shares no containers with `data` or `stored`.
        """
        resent = _resent_parts(data, stored) if stored is not None and type(data) is dict else {}
        if not resent:
            return _decode(self._plan, self._part, data, kind, version)
        rest = _decode(self._plan, self._part, {key: value for key, value in data.items() if key not in resent},
                       kind, version)
        obj = {key: resent[key] if key in resent else rest.obj[key]
               for key in data if key in resent or key in rest.obj}  # in the body's order
        obj.update((key, value) for key, value in rest.obj.items() if key not in obj)
        return Decoded(obj, rest.unknown)

    def strict_errors(self, body: Any) -> list[str]:
        """Upstream's strict decoding errors of a body parsed by `parse_keeping_repeats` (or a plain
        parsed body): `duplicate field "metadata.name"` for a repeated field of an object or a key of
        a map, `unknown field "spec.foo"`, in document order, each once. What is below an unknown
        field is not looked at, as upstream skips it."""
        found: dict[str, None] = {}
        _strict_walk(self._plan, body, "", found)
        return list(found)[:_MAX_STRICT_ERRORS]


def _resent_parts(data: JSON, stored: JSON) -> JSON:
    """The objects and lists of `data` that are the same JSON text as the stored ones, each parsed
    afresh from it. Compared as text, as a strict decoder sees them: Python's == equates `true` with
    `1` and `1` with `1.0`. A part resent with its keys in another order is decoded as any other."""
    resent: JSON = {}
    for key, value in data.items():
        if type(value) not in _CONTAINER_TYPES or key not in stored:
            continue
        try:
            sent = orjson.dumps(value)
        except TypeError:  # not plain JSON (a YAML date, a non-string key): decoded
            continue
        if sent == orjson.dumps(stored[key]):
            resent[key] = orjson.loads(sent)
    return resent


def _decode(plan: DecodePlan, part: _PartDecoder | None, data: Any, kind: str, version: str) -> Decoded:
    if data is None:
        data = {}
    if type(data) is not dict:
        raise BadRequest(
            _unrecognized(
                kind, data, f"json: cannot unmarshal {json_type_name(data)} into Go value of type {_TYPE_META}"
            )
        )
    for key in ("apiVersion", "kind"):
        value = data.get(key)
        if value is not None and type(value) is not str:
            detail = f"json: cannot unmarshal {json_type_name(value)} into Go struct field .{key} of type string"
            raise BadRequest(_unrecognized(kind, data, detail))
    unknown: list[str] = []
    try:
        obj = _object(plan, data, "", unknown, part)
    except _Failure as failure:
        raise BadRequest(f'{kind} in version "{version}" cannot be handled as a {kind}: {failure}') from None
    return Decoded(obj, unknown)


class Pairs(list[tuple[str, Any]]):
    """A JSON object with every key kept, repeated keys included."""


def parse_keeping_repeats(raw: bytes) -> Any:
    """The JSON body `raw` with its objects as `Pairs` when some key repeats in one of them, else
    None (also when it does not parse: the main parse reports that). A second parse, with the stdlib
    `json`: several times the cost of orjson's, see docs/performance.md."""
    repeated = False

    def pairs(items: list[tuple[str, Any]]) -> Pairs:
        nonlocal repeated
        if not repeated and len(dict(items)) != len(items):
            repeated = True
        return Pairs(items)

    try:
        tree = json.loads(raw, object_pairs_hook=pairs)
    except ValueError:
        return None
    return tree if repeated else None


def _strict_walk(plan: DecodePlan, node: Any, path: str, found: dict[str, None]) -> None:
    """One object of `plan`: its repeated and unknown fields, then what is below its known ones."""
    if not isinstance(node, dict | Pairs):
        return  # not an object: decode reports the wrong type
    seen: set[str] = set()
    for key, value in node.items() if isinstance(node, dict) else node:
        spec = plan.fields.get(key)
        if spec is None:
            found[f'unknown field "{path}{key}"'] = None
            continue
        if key in seen:
            found[f'duplicate field "{path}{key}"'] = None
        seen.add(key)
        _strict_value(spec, value, f"{path}{key}", found)


def _strict_value(spec: _Spec, value: Any, path: str, found: dict[str, None]) -> None:
    if spec.kind == _OBJECT:
        _strict_walk(spec.plan, value, path + ".", found)  # type: ignore[arg-type]
    elif spec.kind == _LIST and type(value) is list:
        for index, item in enumerate(value):
            _strict_value(spec.item, item, f"{path}[{index}]", found)  # type: ignore[arg-type]
    elif spec.kind in (_STRMAP, _RESOURCES, _BYTESMAP, _FREE):
        _repeated_map_keys(value, path, found)


def _repeated_map_keys(node: Any, path: str, found: dict[str, None]) -> None:
    """A map (labels, resources) or a free-form part: every key is known, a repeated one is reported."""
    if isinstance(node, Pairs):
        seen: set[str] = set()
        for key, value in node:
            if key in seen:
                found[f'duplicate field "{path}.{key}"'] = None
            seen.add(key)
            _repeated_map_keys(value, f"{path}.{key}", found)
    elif isinstance(node, list):
        for index, item in enumerate(node):
            _repeated_map_keys(item, f"{path}[{index}]", found)


# --- the walk -------------------------------------------------------------------------------------


def _object(plan: DecodePlan, data: JSON, path: str, unknown: list[str], part: _PartDecoder | None = None) -> JSON:
    out: JSON = {}
    specs = plan.fields
    key = ""
    try:
        for key, value in data.items():
            spec = specs.get(key)
            if spec is None:
                unknown.append(f'unknown field "{path}{key}"')
                continue
            if value is None:
                continue
            kind = spec.kind
            if kind == _STR:
                if type(value) is not str:
                    raise _WrongType(json_type_name(value), "string")
            elif kind == _OBJECT:
                if type(value) is not dict:
                    raise _WrongType(json_type_name(value), spec.go_type)
                if not path and key == "spec":
                    value = _shared_part(part, value, spec, "spec.", unknown)
                else:
                    value = _object(spec.plan, value, f"{path}{key}.", unknown, part)  # type: ignore[arg-type]
            elif kind == _LIST:
                if path == "status.":
                    value = _shared_part(part, value, spec, "status." + key, unknown)
                else:
                    value = _list(spec, value, f"{path}{key}", unknown)
            else:
                value = _leaf(spec, value)
            if spec.drops_empty and not value:
                continue
            out[key] = value
    except _WrongType as wrong:
        field_path = _LIST_INDEX.sub("", path) + key
        raise _Failure(
            f"json: cannot unmarshal {wrong.value} into Go struct field {plan.struct}.{field_path}"
            f" of type {wrong.go_type}"
        ) from None
    for key, zero in plan.always:
        if key not in out:
            out[key] = _fresh(zero)
    return out


def _fresh(zero: Any) -> Any:
    """A zero value of its own (zero structs are small dicts of scalars, rarely nested)."""
    if type(zero) is dict:
        return {key: _fresh(value) for key, value in zero.items()}
    return zero


def _shared_part(part: _PartDecoder | None, value: Any, spec: _Spec, path: str, unknown: list[str]) -> Any:
    """A part many objects share (a top-level `spec`, a status's lists), looked up by its JSON in the
    decoder's memo when it has one. The result is a fresh copy: defaulting edits it."""
    if part is None:
        return _walk(spec, value, path, unknown)
    try:
        raw = orjson.dumps(value, option=orjson.OPT_PASSTHROUGH_DATETIME)
    except TypeError:  # not plain JSON (a YAML date, a non-string key): no memo key, walk it
        return _walk(spec, value, path, unknown)
    decoded, pruned = part(spec, path, raw)
    unknown.extend(pruned)
    return orjson.loads(decoded)


def _decode_part(spec: _Spec, path: str, raw: bytes) -> tuple[bytes, tuple[str, ...]]:
    pruned: list[str] = []
    return orjson.dumps(_walk(spec, orjson.loads(raw), path, pruned)), tuple(pruned)


def _walk(spec: _Spec, value: Any, path: str, unknown: list[str]) -> Any:
    if spec.kind == _LIST:
        return _list(spec, value, path, unknown)
    return _object(spec.plan, value, path, unknown)  # type: ignore[arg-type]


def _list(spec: _Spec, value: Any, path: str, unknown: list[str]) -> list[Any]:
    if type(value) is not list:
        raise _WrongType(json_type_name(value), spec.go_type)
    item: _Spec = spec.item  # type: ignore[assignment]
    if item.kind == _OBJECT:
        plan: DecodePlan = item.plan  # type: ignore[assignment]
        objects: list[Any] = []
        for index, element in enumerate(value):
            if element is None:
                element = {}  # the zero struct
            if type(element) is dict:
                objects.append(_object(plan, element, f"{path}[{index}].", unknown))
            else:
                raise _WrongType(json_type_name(element), item.go_type)
        return objects
    if item.kind == _STR and all(type(element) is str for element in value):
        return list(value)
    return [_ZERO.get(item.kind) if element is None else _leaf(item, element) for element in value]


def _leaf(spec: _Spec, value: Any) -> Any:
    kind = spec.kind
    kind_of_value = type(value)
    if kind == _STR:
        if kind_of_value is not str:
            raise _WrongType(json_type_name(value), "string")
        return value
    if kind == _BOOL:
        if kind_of_value is not bool:
            raise _WrongType(json_type_name(value), "bool")
        return value
    if kind == _INT32 or kind == _INT64:
        limit = _INT32_LIMIT if kind == _INT32 else _INT64_LIMIT
        if kind_of_value is int and -limit <= value < limit:
            return value
        raise _WrongType(_number_or_type(value), spec.go_type)
    if kind == _TIME or kind == _MICROTIME:
        if kind_of_value is not str:
            raise _WrongType(json_type_name(value), "string")
        try:
            return canonical_time(value, kind == _MICROTIME)
        except ValueError as error:
            raise _Failure(str(error)) from None
    if kind == _STRMAP:
        if kind_of_value is not dict:
            raise _WrongType(json_type_name(value), spec.go_type)
        strings: dict[str, str] = {}
        for map_key, element in value.items():
            if type(element) is str:
                strings[map_key] = element
            elif element is None:
                strings[map_key] = ""
            else:
                raise _WrongType(json_type_name(element), "string")
        return strings
    if kind == _BYTESMAP:
        if kind_of_value is not dict:
            raise _WrongType(json_type_name(value), spec.go_type)
        return {map_key: _base64(element) for map_key, element in value.items()}
    if kind == _RESOURCES:
        if kind_of_value is not dict:
            raise _WrongType(json_type_name(value), spec.go_type)
        return {name: _quantity(amount) for name, amount in value.items()}
    if kind == _QUANTITY:
        return _quantity(value)
    if kind == _INTSTR:
        if kind_of_value is str or (kind_of_value is int and -_INT32_LIMIT <= value < _INT32_LIMIT):
            return value
        raise _WrongType(_number_or_type(value), "int32")
    if kind == _FLOAT:
        if kind_of_value is int or kind_of_value is float:
            return value
        raise _WrongType(json_type_name(value), "float64")
    return copy_json(value)  # free-form parts (managedFields' fieldsV1) can be large


def _quantity(value: Any) -> str:
    if type(value) is str:
        error = quantity_error(value)
        if error is not None:
            raise _Failure(error)
        return value
    if value is None:
        return "0"
    if type(value) is int or type(value) is float:
        return number_text(value)
    raise _Failure(QUANTITY_FORMAT_ERROR)


def _base64(value: Any) -> str:
    """A []byte value: canonical base64 (Go decodes it, then writes it back); null is no bytes."""
    if value is None:
        return ""
    if type(value) is not str:
        raise _WrongType(json_type_name(value), "[]uint8")
    try:
        return gobase64.canonical(value)
    except gobase64.CorruptInput as error:
        raise _Failure(str(error)) from None


def _number_or_type(value: Any) -> str:
    """How Go's decoder names a value that does not fit an integer: `number 1.5` or its JSON type."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return f"number {value!r}"
    return json_type_name(value)


def _unrecognized(kind: str, data: Any, detail: str) -> str:
    """upstream's transformDecodeError when even apiVersion/kind cannot be read from the body."""
    raw = orjson.dumps(data)
    head = raw[:30]
    if raw.startswith(b"{"):
        summary = head.decode(errors="replace")
    else:
        summary = head.hex()
    if len(raw) > 30:
        summary += " ..."
    return (
        f"the object provided is unrecognized (must be of type {kind}): "
        f"couldn't get version/kind; json parse error: {detail} ({summary})"
    )


# --- plans ------------------------------------------------------------------------------------------


def structural_plan(schema: Structural, *, partial: bool = False) -> DecodePlan:
    """The plan of a compiled schema (a Kind holds its own). With `partial` (an applied configuration),
    fields are neither dropped nor added."""
    return _plan_of(schema, {}, partial)


def _plan_of(schema: Structural, building: dict[int, DecodePlan], partial: bool) -> DecodePlan:
    if id(schema) in building:  # a recursive schema refers back to a plan being built
        return building[id(schema)]
    plan = building[id(schema)] = DecodePlan(schema.go_struct, {})
    always: list[tuple[str, Any]] = []
    for key, prop in schema.properties.items():
        spec = plan.fields[key] = _spec_for(prop.schema, building, partial)
        if not partial and prop.go is not None:
            spec.drops_empty = prop.go.drops_empty
            if prop.go.always_written:
                always.append((key, prop.zero_json()))
    plan.always = tuple(always)
    return plan


def _spec_for(schema: Structural, building: dict[int, DecodePlan], partial: bool) -> _Spec:
    name = schema.name
    if name in _NAMED_SPECS:
        return _Spec(*_NAMED_SPECS[name])
    if schema.type == "array" and schema.items is not None:
        item = _spec_for(schema.items, building, partial)
        return _Spec(_LIST, f"[]{item.go_type}", item=item)
    if schema.type == "object" and schema.properties:
        plan = _plan_of(schema, building, partial)
        return _Spec(_OBJECT, schema.go_type, plan=plan)
    values = schema.additional
    if schema.type == "object" and values is not None:
        if values.name == QUANTITY:
            return _Spec(_RESOURCES, "v1.ResourceList")
        if values.type == "string":
            if values.format == "byte":
                return _Spec(_BYTESMAP, "map[string][]uint8")
            return _Spec(_STRMAP, "map[string]string")
        return _Spec(_FREE, "")
    if schema.type == "string":
        return _Spec(_STR, "string")
    if schema.type == "boolean":
        return _Spec(_BOOL, "bool")
    if schema.type == "integer":
        return _Spec(_INT32, "int32") if schema.format == "int32" else _Spec(_INT64, "int64")
    if schema.type == "number":
        return _Spec(_FLOAT, "float64")
    if schema.type == "object" and schema.name:  # a struct without fields
        return _Spec(_OBJECT, schema.go_type, plan=_plan_of(schema, building, partial))
    return _Spec(_FREE, "")
