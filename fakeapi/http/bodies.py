"""Reading request bodies: JSON (also with no Content-Type), YAML, protobuf envelopes and patch documents.

Every body is held to the limits of `fakeapi.machinery.limits` (size, nesting), YAML also to the alias
rule of `fakeapi.machinery.yamlload`. `Content-Encoding` is ignored, as upstream ignores it: the app
reads bodies as sent (`auto_decompress=False`), so a gzip body is a JSON parse error, not a 500.

YAML is parsed with libyaml where PyYAML has it, and a YAML body over OFF_LOOP_BYTES in a worker thread:
a 3 MiB document takes about a second to parse, and other requests are answered meanwhile.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import orjson
from aiohttp import web

from fakeapi.http.keys import config_key
from fakeapi.machinery.decode import BodyDecoder, parse_keeping_repeats
from fakeapi.machinery.errors import BadRequest, UnsupportedMediaType
from fakeapi.machinery.limits import load_json
from fakeapi.machinery.patch import APPLY_PATCH, PATCH_TYPES
from fakeapi.machinery.yamlload import load_yaml

if TYPE_CHECKING:
    import yaml

PROTOBUF = "application/vnd.kubernetes.protobuf"
_BODY_TYPES = ("application/json", "application/yaml", PROTOBUF)
OFF_LOOP_BYTES = 64 * 1024  # YAML bodies larger than this are parsed off the event loop
T = TypeVar("T")


async def parse_yaml(raw: bytes, parse: Callable[[bytes], T]) -> T:
    """`parse(raw)`: at once for a small body, in a worker thread for a large one (the loop carries on)."""
    if len(raw) > OFF_LOOP_BYTES:
        return await asyncio.to_thread(parse, raw)
    return parse(raw)


def media_type(request: web.Request) -> str:
    """The Content-Type without parameters; empty when the client sent none."""
    header = request.headers.get("Content-Type", "")
    return header.split(";", 1)[0].strip().lower()


async def read_object(request: web.Request) -> Any:
    """The decoded body of a create or update: JSON, YAML, or protobuf (of a kind the server serves)."""
    kind = media_type(request)
    raw = await request.read()
    if kind in ("", "application/json", "*/*"):
        return parse_json(raw)
    if kind == "application/yaml":
        return await _load_yaml(request, raw)
    if kind == PROTOBUF:
        return _protobuf(request, raw)
    raise unsupported(_BODY_TYPES)


def _protobuf(request: web.Request, raw: bytes) -> Any:
    from fakeapi.http.protobuf import decode_k8s_protobuf, served_kind  # on first use: most clients send JSON

    return decode_k8s_protobuf(raw, served_kind(request.app))


async def repeated_key_errors(request: web.Request, decoder: BodyDecoder) -> list[str] | None:
    """Upstream's strict decoding errors of a create or update body (read, and held to the limits,
    already) that repeats a key in an object: they replace the unknown fields the decode finds, in
    upstream's order. None when no key repeats, the usual case (then decode's unknown fields are all
    there is). For JSON the duplicate and unknown fields come in document order; for YAML go-yaml's
    error comes first."""
    raw = await request.read()  # aiohttp keeps the body: this reads no more
    kind = media_type(request)
    if kind in ("", "application/json", "*/*"):
        tree = parse_keeping_repeats(raw)
        return None if tree is None else decoder.strict_errors(tree)
    if kind == "application/yaml":
        repeated = await parse_yaml(raw, yaml_repeated_keys)
        return None if repeated is None else [repeated, *decoder.strict_errors(await _load_yaml(request, raw))]
    return None


def yaml_repeated_keys(raw: bytes) -> str | None:
    """go-yaml's strict error for keys repeated in a YAML mapping (`yaml: unmarshal errors:` then
    `line 4: key "name" already set in map` per key, at the value's line), or None."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)(raw)  # libyaml composes the nodes, where it is there
    lines: list[str] = []
    try:
        root = loader.get_single_node()
        if root is not None:
            _repeated_yaml_keys(loader, root, lines)
    except yaml.YAMLError:
        return None  # the main parse reports it
    finally:
        loader.dispose()
    return "yaml: unmarshal errors:\n  " + "\n  ".join(lines) if lines else None


def _repeated_yaml_keys(loader: yaml.SafeLoader | yaml.CSafeLoader, node: yaml.Node, lines: list[str]) -> None:
    import yaml

    if isinstance(node, yaml.MappingNode):
        seen: set[tuple[type, Any]] = set()
        for key_node, value_node in node.value:
            _repeated_yaml_keys(loader, value_node, lines)  # go-yaml decodes a value before it sets its key
            key = loader.construct_object(key_node, deep=True)
            try:
                if (type(key), key) in seen:
                    lines.append(f"line {value_node.start_mark.line + 1}: key {_go_value(key)} already set in map")
                seen.add((type(key), key))
            except TypeError:  # an unhashable key: the main parse rejects the body
                continue
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            _repeated_yaml_keys(loader, item, lines)


def _go_value(key: Any) -> str:
    """A map key as Go's %#v prints it."""
    if isinstance(key, str):
        return orjson.dumps(key).decode()
    if isinstance(key, bool):
        return "true" if key else "false"
    return "<nil>" if key is None else str(key)


async def read_patch(request: web.Request, accepted: tuple[str, ...] = PATCH_TYPES) -> tuple[str, Any]:
    """A PATCH body of one of the `accepted` content types (custom resources take no strategic merge patch)."""
    kind = media_type(request)
    if kind not in accepted:
        raise unsupported(accepted)
    raw = await request.read()
    return kind, await _load_yaml(request, raw) if kind == APPLY_PATCH else parse_json(raw)


async def read_optional_object(request: web.Request) -> Any:
    """DeleteOptions: JSON, YAML or protobuf (typed clients send it so); an empty body means none."""
    raw = await request.read()
    if not raw.strip():
        return None
    kind = media_type(request)
    if kind == "application/yaml":
        return await _load_yaml(request, raw)
    if kind == PROTOBUF:
        return _protobuf(request, raw)
    return parse_json(raw)


def parse_json(raw: bytes) -> Any:
    if not raw.strip():
        raise BadRequest("couldn't get version/kind; json parse error: unexpected end of JSON input")
    try:
        return load_json(raw)
    except ValueError as error:
        raise BadRequest(f"couldn't get version/kind; json parse error: {error}") from None


async def _load_yaml(request: web.Request, raw: bytes) -> Any:
    max_bytes = _max_bytes(request)
    return await parse_yaml(raw, lambda text: load_yaml(text, max_bytes))


def _max_bytes(request: web.Request) -> int:
    """The body limit, which also bounds a decoded YAML document (aliases expanded)."""
    return request.app[config_key].max_body_bytes


def unsupported(accepted: tuple[str, ...]) -> UnsupportedMediaType:
    return UnsupportedMediaType(
        "the body of the request was in an unknown format - accepted media types include: " + ", ".join(accepted)
    )
