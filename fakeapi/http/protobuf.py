"""Decoding the Kubernetes protobuf envelope, for the bodies kubectl's typed clients send as protobuf.

`k8s\\x00` + runtime.Unknown{1: TypeMeta{1: apiVersion, 2: kind}, 2: raw, 3: contentEncoding} wraps the
object's message. The kinds decoded are the ones kubectl sends this way to what fakeapi serves:
Namespace (`create namespace`), ConfigMap, Secret and ServiceAccount (`create configmap/secret/
serviceaccount`), the access and identity reviews (`auth can-i`, `auth can-i --list`,
`auth whoami`) and Eviction (`drain`). Each is read through its layout (field number -> JSON name and
how to read the value); fields a layout does not name are skipped. Any other kind, an encoded (e.g.
gzip) payload or a malformed body raises UnsupportedMediaType.

Go decodes into structs, so an empty string, a false or a zero is the field's zero value: those are
left out of the JSON, as an absent field means the same (a `*bool` is kept even when false: gogo writes
it only when it is set). A message field that is present is kept,
even when empty (a pointer to an empty struct is not a nil pointer).
"""

from __future__ import annotations

import base64
from collections.abc import Iterator, Mapping
from typing import NamedTuple, Union

from fakeapi.machinery.errors import UnsupportedMediaType
from fakeapi.machinery.types import JSON

PROTOBUF = "application/vnd.kubernetes.protobuf"
MAGIC = b"k8s\x00"
_ACCEPTED = ("application/json", "application/yaml", PROTOBUF)

# wire types
_VARINT, _FIXED64, _BYTES, _FIXED32 = 0, 1, 2, 5

# how a field's value is read: a scalar reader, a nested message's layout, or a repeated message
STRING, STRINGS, BOOL, INT64, STRING_MAP, STRINGS_MAP = "string", "strings", "bool", "int64", "map", "strings_map"
OPTIONAL_BOOL, BYTES_MAP = "optional_bool", "bytes_map"


class Repeated(NamedTuple):
    layout: Layout


Layout = Mapping[int, tuple[str, Union[str, "Layout", Repeated]]]


_OBJECT_META: Layout = {
    1: ("name", STRING), 2: ("generateName", STRING), 3: ("namespace", STRING), 5: ("uid", STRING),
    6: ("resourceVersion", STRING), 11: ("labels", STRING_MAP), 12: ("annotations", STRING_MAP),
    14: ("finalizers", STRINGS),
}
_OBJECT_REFERENCE: Layout = {
    1: ("kind", STRING), 2: ("namespace", STRING), 3: ("name", STRING), 4: ("uid", STRING),
    5: ("apiVersion", STRING), 6: ("resourceVersion", STRING), 7: ("fieldPath", STRING),
}
_SELECTOR_REQUIREMENT: Layout = {1: ("key", STRING), 2: ("operator", STRING), 3: ("values", STRINGS)}
_SELECTOR_ATTRIBUTES: Layout = {1: ("rawSelector", STRING), 2: ("requirements", Repeated(_SELECTOR_REQUIREMENT))}
_RESOURCE_ATTRIBUTES: Layout = {
    1: ("namespace", STRING), 2: ("verb", STRING), 3: ("group", STRING), 4: ("version", STRING),
    5: ("resource", STRING), 6: ("subresource", STRING), 7: ("name", STRING),
    8: ("fieldSelector", _SELECTOR_ATTRIBUTES), 9: ("labelSelector", _SELECTOR_ATTRIBUTES),
}
_NON_RESOURCE_ATTRIBUTES: Layout = {1: ("path", STRING), 2: ("verb", STRING)}
_ACCESS_REVIEW_STATUS: Layout = {
    1: ("allowed", BOOL), 2: ("reason", STRING), 3: ("evaluationError", STRING), 4: ("denied", BOOL),
}
_SELF_ACCESS_SPEC: Layout = {
    1: ("resourceAttributes", _RESOURCE_ATTRIBUTES), 2: ("nonResourceAttributes", _NON_RESOURCE_ATTRIBUTES),
}
_ACCESS_SPEC: Layout = {
    **_SELF_ACCESS_SPEC, 3: ("user", STRING), 4: ("groups", STRINGS), 5: ("extra", STRINGS_MAP), 6: ("uid", STRING),
}
_DELETE_OPTIONS: Layout = {
    1: ("gracePeriodSeconds", INT64), 2: ("preconditions", {1: ("uid", STRING), 2: ("resourceVersion", STRING)}),
    3: ("orphanDependents", BOOL), 4: ("propagationPolicy", STRING), 5: ("dryRun", STRINGS),
}
# the top-level messages, by (apiVersion, kind); a status the server fills in is not read
LAYOUTS: dict[tuple[str, str], Layout] = {
    ("v1", "Namespace"): {1: ("metadata", _OBJECT_META), 2: ("spec", {1: ("finalizers", STRINGS)})},
    ("v1", "ConfigMap"): {
        1: ("metadata", _OBJECT_META), 2: ("data", STRING_MAP), 3: ("binaryData", BYTES_MAP),
        4: ("immutable", OPTIONAL_BOOL),
    },
    ("v1", "Secret"): {
        1: ("metadata", _OBJECT_META), 2: ("data", BYTES_MAP), 3: ("type", STRING), 4: ("stringData", STRING_MAP),
        5: ("immutable", OPTIONAL_BOOL),
    },
    ("v1", "ServiceAccount"): {
        1: ("metadata", _OBJECT_META), 2: ("secrets", Repeated(_OBJECT_REFERENCE)),
        3: ("imagePullSecrets", Repeated({1: ("name", STRING)})), 4: ("automountServiceAccountToken", OPTIONAL_BOOL),
    },
    ("authorization.k8s.io/v1", "SelfSubjectAccessReview"): {
        1: ("metadata", _OBJECT_META), 2: ("spec", _SELF_ACCESS_SPEC), 3: ("status", _ACCESS_REVIEW_STATUS),
    },
    ("authorization.k8s.io/v1", "SubjectAccessReview"): {
        1: ("metadata", _OBJECT_META), 2: ("spec", _ACCESS_SPEC), 3: ("status", _ACCESS_REVIEW_STATUS),
    },
    ("authorization.k8s.io/v1", "SelfSubjectRulesReview"): {
        1: ("metadata", _OBJECT_META), 2: ("spec", {1: ("namespace", STRING)}),
    },
    ("authentication.k8s.io/v1", "SelfSubjectReview"): {1: ("metadata", _OBJECT_META)},
    ("policy/v1", "Eviction"): {1: ("metadata", _OBJECT_META), 2: ("deleteOptions", _DELETE_OPTIONS)},
}


class _Malformed(Exception):
    pass


def unsupported_body() -> UnsupportedMediaType:
    """apiserver's answer to a body it cannot decode in the given media type."""
    return UnsupportedMediaType(
        "the body of the request was in an unknown format - accepted media types include: "
        + ", ".join(_ACCEPTED)
    )


def decode_k8s_protobuf(body: bytes) -> JSON:
    """The envelope's object as wire-shaped JSON (apiVersion and kind first, then its fields)."""
    if not body.startswith(MAGIC):
        raise unsupported_body()
    try:
        return _decode_unknown(memoryview(body)[len(MAGIC):])
    except _Malformed:
        raise unsupported_body() from None


def _decode_unknown(buf: memoryview) -> JSON:
    api_version = kind = encoding = ""
    raw = memoryview(b"")
    for number, _, value in _fields(buf):
        if number == 1:
            for inner, _, text in _fields(_bytes(value)):
                if inner == 1:
                    api_version = _text(text)
                elif inner == 2:
                    kind = _text(text)
        elif number == 2:
            raw = _bytes(value)
        elif number == 3:
            encoding = _text(value)
    layout = LAYOUTS.get((api_version, kind))
    if layout is None or encoding:
        raise _Malformed
    obj: JSON = {"apiVersion": api_version, "kind": kind, "metadata": {}}
    obj.update(_message(raw, layout))
    return obj


def _message(buf: memoryview, layout: Layout) -> JSON:
    out: JSON = {}
    for number, _, value in _fields(buf):
        field = layout.get(number)
        if field is None:
            continue
        name, reader = field
        if isinstance(reader, Repeated):
            out.setdefault(name, []).append(_message(_bytes(value), reader.layout))
        elif not isinstance(reader, str):
            out[name] = _message(_bytes(value), reader)
        else:
            _read_scalar(out, name, reader, value)
    return out


def _read_scalar(out: JSON, name: str, reader: str, value: int | memoryview) -> None:
    if reader == STRING:
        text = _text(value)
        if text:  # gogo writes every string field, empty ones included
            out[name] = text
    elif reader == STRINGS:
        out.setdefault(name, []).append(_text(value))
    elif reader == BOOL:
        if _number(value):
            out[name] = True
    elif reader == OPTIONAL_BOOL:
        out[name] = bool(_number(value))
    elif reader == INT64:
        number = _number(value)
        out[name] = number - (1 << 64) if number >= 1 << 63 else number
    elif reader == STRING_MAP:
        key, entry = _map_entry(value)
        out.setdefault(name, {})[key] = _text(entry) if entry is not None else ""
    elif reader == BYTES_MAP:  # bytes travel as base64 in JSON
        key, entry = _map_entry(value)
        out.setdefault(name, {})[key] = base64.b64encode(entry if entry is not None else b"").decode("ascii")
    else:  # STRINGS_MAP: map<string, ExtraValue{1: items}>
        key, entry = _map_entry(value)
        items = [_text(item) for number, _, item in _fields(entry)] if entry is not None else []
        out.setdefault(name, {})[key] = items


def _map_entry(value: int | memoryview) -> tuple[str, memoryview | None]:
    key, entry = "", None
    for inner, _, part in _fields(_bytes(value)):
        if inner == 1:
            key = _text(part)
        elif inner == 2:
            entry = _bytes(part)
    return key, entry


def _fields(buf: memoryview) -> Iterator[tuple[int, int, int | memoryview]]:
    """(field number, wire type, value) for each field; varints as ints, everything else as bytes."""
    pos, end = 0, len(buf)
    while pos < end:
        key, pos = _varint(buf, pos)
        number, wire = key >> 3, key & 7
        if number == 0:
            raise _Malformed
        if wire == _VARINT:
            number_value, pos = _varint(buf, pos)
            yield number, wire, number_value
            continue
        if wire == _BYTES:
            size, pos = _varint(buf, pos)
        elif wire == _FIXED64:
            size = 8
        elif wire == _FIXED32:
            size = 4
        else:  # groups (3, 4) are not used by Kubernetes types
            raise _Malformed
        if pos + size > end:
            raise _Malformed
        yield number, wire, buf[pos:pos + size]
        pos += size


def _varint(buf: memoryview, pos: int) -> tuple[int, int]:
    result = shift = 0
    for index in range(pos, min(pos + 10, len(buf))):
        byte = buf[index]
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, index + 1
        shift += 7
    raise _Malformed


def _number(value: int | memoryview) -> int:
    if not isinstance(value, int):
        raise _Malformed
    return value


def _bytes(value: int | memoryview) -> memoryview:
    if isinstance(value, int):
        raise _Malformed
    return value


def _text(value: int | memoryview) -> str:
    try:
        return str(_bytes(value), "utf-8")
    except UnicodeDecodeError:
        raise _Malformed from None

