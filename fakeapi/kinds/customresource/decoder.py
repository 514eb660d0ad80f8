"""Decoding a custom resource's request body, as apiextensions-apiserver's codec does: the body stays
unstructured (no Go types, so no Go zero values and no 400 for a value of the wrong type: the schema's
validation answers those with a 422); `metadata` is read as an ObjectMeta, its malformed fields dropped;
what the schema does not declare is pruned and reported for `fieldValidation`."""

from __future__ import annotations

from typing import Any

import orjson

from fakeapi.machinery.decode import Decoded, Pairs
from fakeapi.machinery.errors import BadRequest
from fakeapi.machinery.jsonschema.pruning import prune
from fakeapi.machinery.jsonschema.schema import Schema
from fakeapi.machinery.jsonvalues import copy_json, json_type_name
from fakeapi.machinery.schema.definitions import KUBERNETES_1_32
from fakeapi.machinery.types import JSON

OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"


class CustomResourceDecoder:
    def __init__(self, schema: Schema | None) -> None:
        self.schema = schema
        self._meta = KUBERNETES_1_32.compiled(OBJECT_META).decoder()

    def decode(self, data: Any, kind: str, version: str = "v1", stored: JSON | None = None) -> Decoded:
        if data is None:
            data = {}
        if not isinstance(data, dict):
            raise BadRequest(f"Object '{kind}' is missing in '{_summary(data)}'")
        for key in ("apiVersion", "kind"):
            value = data.get(key)
            if value is not None and not isinstance(value, str):
                raise BadRequest(f'{kind} in version "{version}" cannot be handled as a {kind}: unable to decode '
                                 f"{_summary(data)}: json: cannot unmarshal {json_type_name(value)} into Go "
                                 f"struct field .{key} of type string")
        obj: JSON = copy_json(data)
        unknown = prune(obj, self.schema) if self.schema is not None else []
        meta = obj.get("metadata")
        if meta is not None or "metadata" in obj:
            decoded_meta, unknown_meta = self._metadata(meta)
            obj["metadata"] = decoded_meta
            unknown += unknown_meta
        return Decoded(obj, [f'unknown field "{path}"' for path in unknown])

    def _metadata(self, meta: Any) -> tuple[JSON, list[str]]:
        """ObjectMeta as upstream's GetObjectMeta reads it for custom resources: malformed fields dropped."""
        if not isinstance(meta, dict):
            return {}, []
        try:
            decoded = self._meta.decode(meta, "ObjectMeta")
        except BadRequest:
            kept = {}
            for key, value in meta.items():
                try:
                    self._meta.decode({key: value}, "ObjectMeta")
                except BadRequest:
                    continue
                kept[key] = value
            decoded = self._meta.decode(kept, "ObjectMeta")
        unknown = [f"metadata.{text.split(chr(34))[1]}" for text in decoded.unknown]
        return decoded.obj, unknown

    def strict_errors(self, body: Any) -> list[str]:
        """Repeated fields of a body parsed with its repeats kept, then the fields the schema prunes."""
        found: dict[str, None] = {}
        _repeats(body, "", found)
        plain = _plain(body)
        if isinstance(plain, dict) and self.schema is not None:
            for path in prune(plain, self.schema):
                found[f'unknown field "{path}"'] = None
        return list(found)[:100]


def _repeats(node: Any, path: str, found: dict[str, None]) -> None:
    if isinstance(node, Pairs):
        seen: set[str] = set()
        for key, value in node:
            at = f"{path}.{key}" if path else key
            if key in seen:
                found[f'duplicate field "{at}"'] = None
            seen.add(key)
            _repeats(value, at, found)
    elif isinstance(node, dict):
        for key, value in node.items():
            _repeats(value, f"{path}.{key}" if path else key, found)
    elif isinstance(node, list):
        for index, item in enumerate(node):
            _repeats(item, f"{path}[{index}]", found)


def _plain(node: Any) -> Any:
    if isinstance(node, Pairs):
        return {key: _plain(value) for key, value in node}
    if isinstance(node, dict):
        return {key: _plain(value) for key, value in node.items()}
    if isinstance(node, list):
        return [_plain(item) for item in node]
    return node


def _summary(data: Any) -> str:
    raw = orjson.dumps(data)
    return raw[:30].decode(errors="replace") + (" ..." if len(raw) > 30 else "")


