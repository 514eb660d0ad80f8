"""Reading request bodies: JSON (also with no Content-Type), YAML, protobuf envelopes and patch documents.

Every body is held to the limits of `fakeapi.machinery.limits` (size, nesting), YAML also to the alias
rule of `fakeapi.machinery.yamlload`. `Content-Encoding` is ignored, as upstream ignores it: the app
reads bodies as sent (`auto_decompress=False`), so a gzip body is a JSON parse error, not a 500.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from fakeapi.http.keys import config_key
from fakeapi.machinery.errors import BadRequest, UnsupportedMediaType
from fakeapi.machinery.limits import load_json
from fakeapi.machinery.patch import APPLY_PATCH, PATCH_TYPES
from fakeapi.machinery.yamlload import load_yaml

PROTOBUF = "application/vnd.kubernetes.protobuf"
_BODY_TYPES = ("application/json", "application/yaml", PROTOBUF)


def media_type(request: web.Request) -> str:
    """The Content-Type without parameters; empty when the client sent none."""
    header = request.headers.get("Content-Type", "")
    return header.split(";", 1)[0].strip().lower()


async def read_object(request: web.Request) -> Any:
    """The decoded body of a create or update: JSON, YAML, or protobuf (for the kinds kubectl sends so)."""
    kind = media_type(request)
    raw = await request.read()
    if kind in ("", "application/json", "*/*"):
        return parse_json(raw)
    if kind == "application/yaml":
        return load_yaml(raw, _max_bytes(request))
    if kind == PROTOBUF:
        from fakeapi.http.protobuf import decode_k8s_protobuf  # on first use: most clients send JSON

        return decode_k8s_protobuf(raw)
    raise unsupported(_BODY_TYPES)


async def read_patch(request: web.Request) -> tuple[str, Any]:
    kind = media_type(request)
    if kind not in PATCH_TYPES:
        raise unsupported(PATCH_TYPES)
    raw = await request.read()
    return kind, load_yaml(raw, _max_bytes(request)) if kind == APPLY_PATCH else parse_json(raw)


async def read_optional_json(request: web.Request) -> Any:
    """DeleteOptions and similar: an empty body means none."""
    raw = await request.read()
    if not raw.strip():
        return None
    if media_type(request) == "application/yaml":
        return load_yaml(raw, _max_bytes(request))
    return parse_json(raw)


def parse_json(raw: bytes) -> Any:
    if not raw.strip():
        raise BadRequest("couldn't get version/kind; json parse error: unexpected end of JSON input")
    try:
        return load_json(raw)
    except ValueError as error:
        raise BadRequest(f"couldn't get version/kind; json parse error: {error}") from None


def _max_bytes(request: web.Request) -> int:
    """The body limit, which also bounds a decoded YAML document (aliases expanded)."""
    return request.app[config_key].max_body_bytes


def unsupported(accepted: tuple[str, ...]) -> UnsupportedMediaType:
    return UnsupportedMediaType(
        "the body of the request was in an unknown format - accepted media types include: " + ", ".join(accepted)
    )
