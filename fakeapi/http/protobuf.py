"""Decoding the Kubernetes protobuf envelope kubectl sends for `create namespace`, Namespace bodies only."""

from __future__ import annotations

from collections.abc import Iterator

from fakeapi.machinery.errors import UnsupportedMediaType
from fakeapi.machinery.types import JSON

PROTOBUF = "application/vnd.kubernetes.protobuf"
MAGIC = b"k8s\x00"
_ACCEPTED = ("application/json", "application/yaml", PROTOBUF)

# wire types
_VARINT, _FIXED64, _BYTES, _FIXED32 = 0, 1, 2, 5


class _Malformed(Exception):
    pass


def unsupported_body() -> UnsupportedMediaType:
    """apiserver's answer to a body it cannot decode in the given media type."""
    return UnsupportedMediaType(
        "the body of the request was in an unknown format - accepted media types include: "
        + ", ".join(_ACCEPTED)
    )


def decode_k8s_protobuf(body: bytes) -> JSON:
    """`k8s\\x00` + runtime.Unknown{typeMeta, raw} holding a v1 Namespace -> its wire-shaped JSON.

    Decodes TypeMeta, the Namespace's ObjectMeta (name, generateName, namespace, uid, resourceVersion,
    labels, annotations, finalizers) and spec.finalizers; every other field is skipped. Any other kind,
    an encoded (e.g. gzip) payload or a malformed body raises UnsupportedMediaType.
    """
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
    if api_version != "v1" or kind != "Namespace" or encoding:
        raise _Malformed
    namespace: JSON = {"apiVersion": api_version, "kind": kind, "metadata": {}}
    for number, _, value in _fields(raw):
        if number == 1:
            namespace["metadata"] = _object_meta(_bytes(value))
        elif number == 2:
            finalizers = [_text(v) for n, _, v in _fields(_bytes(value)) if n == 1]
            if finalizers:
                namespace["spec"] = {"finalizers": finalizers}
    return namespace


_META_STRINGS = {1: "name", 2: "generateName", 3: "namespace", 5: "uid", 6: "resourceVersion"}
_META_MAPS = {11: "labels", 12: "annotations"}


def _object_meta(buf: memoryview) -> JSON:
    meta: JSON = {}
    for number, _, value in _fields(buf):
        if number in _META_STRINGS:
            text = _text(value)
            if text:  # gogo writes every string field, empty ones included
                meta[_META_STRINGS[number]] = text
        elif number in _META_MAPS:
            key = entry_value = ""
            for inner, _, part in _fields(_bytes(value)):
                if inner == 1:
                    key = _text(part)
                elif inner == 2:
                    entry_value = _text(part)
            meta.setdefault(_META_MAPS[number], {})[key] = entry_value
        elif number == 14:
            meta.setdefault("finalizers", []).append(_text(value))
    return meta


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


def _bytes(value: int | memoryview) -> memoryview:
    if isinstance(value, int):
        raise _Malformed
    return value


def _text(value: int | memoryview) -> str:
    try:
        return str(_bytes(value), "utf-8")
    except UnicodeDecodeError:
        raise _Malformed from None
