"""The Kubernetes API definitions of one minor, as fakeapi keeps them (data/kubernetes-<minor>.json, made by
scripts/vendor_definitions.py): upstream's OpenAPI definitions of the stable API groups, each property
with the Go facts (`x-go`) and protobuf number (`x-protobuf`) of its struct field.

The data is read on first use and compiled one definition at a time, when a kind asks for it: a server
that serves pods never compiles what only Deployments need. What is read and compiled is package data,
the same for every server (like a module, it is loaded once per process) and never changed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from fakeapi.machinery.schema.compiled import CompiledSchema
from fakeapi.machinery.schema.structural import Field, GoField, Structural
from fakeapi.machinery.types import JSON

DATA = Path(__file__).parent / "data"
_REF_PREFIX = "#/definitions/"


class Definitions:
    """The definitions of one Kubernetes minor (e.g. "1.32")."""

    def __init__(self, minor: str) -> None:
        self.minor = minor
        self._document: JSON | None = None
        self._schemas: dict[str, Structural] = {}
        self._compiled: dict[str, CompiledSchema] = {}
        self._kinds: dict[tuple[str, str], str] | None = None

    @property
    def kubernetes_version(self) -> str:
        """The release the definitions were taken from, e.g. v1.32.0."""
        return str(self._data()["kubernetes"])

    def raw(self, name: str) -> JSON:
        """A definition as published (with fakeapi's `x-go` and `x-protobuf` facts). Do not modify it."""
        definition: JSON = self._data()["definitions"][name]
        return definition

    def names(self) -> list[str]:
        return list(self._data()["definitions"])

    def __contains__(self, name: str) -> bool:
        return name in self._data()["definitions"]

    def of_kind(self, api_version: str, kind: str) -> str | None:
        """The definition of a kind at a group version (`apps/v1`, `Deployment`), as its
        x-kubernetes-group-version-kind says; None for a kind the definitions do not have."""
        if self._kinds is None:
            self._kinds = {
                (f"{gvk['group']}/{gvk['version']}" if gvk["group"] else gvk["version"], gvk["kind"]): name
                for name, raw in self._data()["definitions"].items()
                for gvk in raw.get("x-kubernetes-group-version-kind", ())
            }
        return self._kinds.get((api_version, kind))

    def schema(self, name: str) -> Structural:
        """The compiled schema of a definition (shared: treat it as read-only)."""
        schema = self._schemas.get(name)
        if schema is None:
            schema = self._schemas[name] = Structural(name=name)  # before its fields: they may refer back
            _fill(schema, self.raw(name), self)
        return schema

    def compiled(self, name: str) -> CompiledSchema:
        """A definition compiled for decoding, patching and managedFields (shared: read-only)."""
        compiled = self._compiled.get(name)
        if compiled is None:
            compiled = self._compiled[name] = CompiledSchema.of(self.schema(name))
        return compiled

    def _data(self) -> JSON:
        if self._document is None:
            self._document = orjson.loads((DATA / f"kubernetes-{self.minor}.json").read_bytes())
        return self._document


def compile_schema(raw: JSON, definitions: Definitions | None = None) -> Structural:
    """An inline schema (a CRD's, say), its references resolved against `definitions`."""
    return _node(raw, definitions)


def _node(raw: JSON, definitions: Definitions | None) -> Structural:
    ref = raw.get("$ref")
    if ref is not None:
        if definitions is None or not ref.startswith(_REF_PREFIX):
            raise ValueError(f"cannot resolve {ref}")
        return definitions.schema(ref[len(_REF_PREFIX):])
    node = Structural()
    _fill(node, raw, definitions)
    return node


def _fill(node: Structural, raw: JSON, definitions: Definitions | None) -> None:
    kind = raw.get("type", "")
    node.type = kind if isinstance(kind, str) else ""
    node.format = raw.get("format", "")
    node.description = raw.get("description", "")
    node.extensions = _extensions(raw)
    node.required = tuple(raw.get("required", ()))
    if "items" in raw:
        node.items = _node(raw["items"], definitions)
    additional = raw.get("additionalProperties")
    if isinstance(additional, dict):
        node.additional = _node(additional, definitions)
    elif additional is True:
        node.additional = Structural()
    node.properties = {name: _field(prop, definitions) for name, prop in raw.get("properties", {}).items()}
    node.protobuf_inline = {int(number): tuple(names) for number, names in raw.get("x-protobuf-inline", {}).items()}
    inlined = {name for names in node.protobuf_inline.values() for name in names}
    node.protobuf_fields = {prop.protobuf: name for name, prop in node.properties.items()
                            if prop.protobuf and name not in inlined}


def _field(raw: JSON, definitions: Definitions | None) -> Field:
    go = raw.get("x-go")
    return Field(
        schema=_node(raw, definitions),
        description=raw.get("description", ""),
        go=GoField.parse(go) if go else None,
        protobuf=raw.get("x-protobuf", 0),
        extensions=_extensions(raw) if "$ref" in raw else {},
    )


def _extensions(raw: JSON) -> dict[str, Any]:
    return {key: value for key, value in raw.items() if key.startswith("x-kubernetes-")}


KUBERNETES_1_32 = Definitions("1.32")
