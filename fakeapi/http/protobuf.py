"""Protobuf request bodies: the Kubernetes envelope read, and the object in it decoded by its kind's schema.

`k8s\\x00` + runtime.Unknown{1: TypeMeta{1: apiVersion, 2: kind}, 2: raw, 3: contentEncoding} wraps the
object's message. Like upstream, which decodes any kind its scheme knows, the envelope's kind is looked
up among those the server serves: its kinds (a custom resource has no protobuf form), the kinds their
subresources take (Binding, Eviction), the create-only reviews, and DeleteOptions. The message is then
walked by that kind's compiled schema (fakeapi.machinery.protobuf.message). A kind not served, an encoded
(e.g. gzip) payload or a malformed body is upstream's 415.
"""

from __future__ import annotations

from collections.abc import Callable

from aiohttp import web

from fakeapi.http.keys import api_key, create_only_key
from fakeapi.machinery.errors import UnsupportedMediaType
from fakeapi.machinery.protobuf.message import decode_message
from fakeapi.machinery.protobuf.wire import Malformed, as_bytes, as_text, fields
from fakeapi.machinery.schema.definitions import KUBERNETES_1_32
from fakeapi.machinery.schema.structural import Structural
from fakeapi.machinery.types import JSON

PROTOBUF = "application/vnd.kubernetes.protobuf"
MAGIC = b"k8s\x00"
_ACCEPTED = ("application/json", "application/yaml", PROTOBUF)

# (apiVersion, kind) -> the compiled schema of the kind's message, or None when it has none
SchemaLookup = Callable[[str, str], Structural | None]


def upstream_kind(api_version: str, kind: str) -> Structural | None:
    """The schema of any kind of upstream's definitions, served or not."""
    definition = KUBERNETES_1_32.of_kind(api_version, kind)
    return None if definition is None else KUBERNETES_1_32.schema(definition)


def served_kind(app: web.Application) -> SchemaLookup:
    """The kinds a server's request bodies can be: what it serves now."""

    def schema_of(api_version: str, kind: str) -> Structural | None:
        for registry in app[api_key].kinds.registries():
            info = registry.info
            if (info.api_version, info.kind) == (api_version, kind):
                schema = registry.kind.schema
                return schema if schema.protobuf_fields else None  # a custom resource's has no numbers
            for sub in info.subresources:
                group = info.group if sub.group is None else sub.group
                version = sub.version or info.version
                if sub.definition and (f"{group}/{version}" if group else version, sub.kind) == (api_version, kind):
                    return registry.kind.definitions.schema(sub.definition)
        for info in app[create_only_key]:
            if (info.api_version, info.kind) == (api_version, kind):
                return KUBERNETES_1_32.schema(info.definition)
        return upstream_kind(api_version, kind) if kind == "DeleteOptions" else None

    return schema_of


def unsupported_body() -> UnsupportedMediaType:
    """apiserver's answer to a body it cannot decode in the given media type."""
    return UnsupportedMediaType(
        "the body of the request was in an unknown format - accepted media types include: "
        + ", ".join(_ACCEPTED)
    )


def decode_k8s_protobuf(body: bytes, schema_of: SchemaLookup = upstream_kind) -> JSON:
    """The envelope's object as wire-shaped JSON (apiVersion and kind first, then its fields)."""
    if not body.startswith(MAGIC):
        raise unsupported_body()
    try:
        return _decode_unknown(memoryview(body)[len(MAGIC):], schema_of)
    except Malformed:
        raise unsupported_body() from None


def _decode_unknown(buf: memoryview, schema_of: SchemaLookup) -> JSON:
    api_version = kind = encoding = ""
    raw = memoryview(b"")
    for number, wire, value in fields(buf):
        if number == 1:
            for inner, inner_wire, text in fields(as_bytes(wire, value)):
                if inner == 1:
                    api_version = as_text(inner_wire, text)
                elif inner == 2:
                    kind = as_text(inner_wire, text)
        elif number == 2:
            raw = as_bytes(wire, value)
        elif number == 3:
            encoding = as_text(wire, value)
    schema = schema_of(api_version, kind) if api_version and kind else None
    if schema is None or encoding:
        raise Malformed
    obj: JSON = {"apiVersion": api_version, "kind": kind}
    if "metadata" in schema.properties:
        obj["metadata"] = {}  # a value struct: Go's JSON always has it
    obj.update(decode_message(raw, schema))
    return obj
