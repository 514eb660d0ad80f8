"""Build the OpenAPI documents (v3 per group version, and v2 swagger) of what a server serves.

Components are upstream's definitions as fakeapi keeps them (`fakeapi.machinery.schema`): each served
kind's definition and everything it refers to, published as upstream's documents publish them (v3:
references wrapped in `allOf`, the Go zero value of a value field as its `default`; Quantity and
IntOrString as `oneOf` their JSON types). Paths come from fakeapi.openapi.paths. The server builds the
documents it serves from the resources it serves at the time; `fakeapi openapi` writes those of a fresh
server beside this file, and `--check` proves the committed ones are current.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from fakeapi.kinds.kind import PUBLISHED_V2, ResourceInfo
from fakeapi.machinery.schema.structural import INT_OR_STRING, QUANTITY, GoField
from fakeapi.machinery.types import JSON
from fakeapi.openapi import V2_DOCUMENT, v3_document, v3_group_version
from fakeapi.openapi.paths import (
    DELETE_OPTIONS_COMPONENT,
    PATCH_COMPONENT,
    STATUS_COMPONENT,
    operations,
    paths_v2,
    paths_v3,
    subresource_component,
)

TITLE = "Kubernetes"
# upstream's OpenAPIV3OneOfTypes: in v3 these are "one of" JSON types rather than a string
_V3_ONE_OF = {QUANTITY: ("string", "number"), INT_OR_STRING: ("integer", "string")}
# Go types whose zero value is no struct literal: their fields carry no `default`
_SCALAR_STRUCTS = frozenset({QUANTITY, INT_OR_STRING, "io.k8s.apimachinery.pkg.apis.meta.v1.Time",
                             "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime"})
_PRIVATE = ("x-go", "x-protobuf", "x-protobuf-inline", PUBLISHED_V2)
_REF_PREFIX = "#/definitions/"

Lookup = Callable[[str], JSON]
"""A definition by name, in fakeapi's form (`fakeapi.machinery.schema.definitions.Definitions.raw`)."""


def build_v3(infos: Iterable[ResourceInfo], lookup: Lookup, version: str, memo: Memo | None = None,
             fixed: Callable[[str], bool] = lambda name: False) -> JSON:
    """The document of one group version: its paths, and the components they refer to."""
    infos = list(infos)
    return {
        "openapi": "3.0.0",
        "info": {"title": TITLE, "version": version},
        "paths": paths_v3(operations(infos), lambda name: {"$ref": "#/components/schemas/" + name}),
        "components": {"schemas": components(_roots(infos), lookup, 3, memo, fixed)},
    }


PathsMemo = dict[ResourceInfo, JSON]
"""The v2 path items of each resource, built once (a server with many resources rebuilds its v2 document from
them when one changes)."""


def build_v2(infos: Iterable[ResourceInfo], lookup: Lookup, version: str, memo: Memo | None = None,
             fixed: Callable[[str], bool] = lambda name: False, paths_memo: PathsMemo | None = None) -> JSON:
    infos = list(infos)
    paths: JSON = {}
    for info in infos:
        items = paths_memo.get(info) if paths_memo is not None else None
        if items is None:
            items = paths_v2(operations([info]), lambda name: {"$ref": "#/definitions/" + name})
            if paths_memo is not None:
                paths_memo[info] = items
        paths.update(items)
    return {
        "swagger": "2.0",
        "info": {"title": TITLE, "version": version},
        "paths": paths,
        "definitions": components(_roots(infos), lookup, 2, memo, fixed),
    }


def build_documents(infos: Iterable[ResourceInfo], lookup: Lookup, version: str,
                    only: Path | None = None, memo: Memo | None = None,
                    fixed: Callable[[str], bool] = lambda name: False,
                    paths_memo: PathsMemo | None = None) -> dict[Path, JSON]:
    """Every document of these resources (or `only` the one at that path), by its path under the documents'
    directory."""
    by_group_version: dict[tuple[str, str], list[ResourceInfo]] = {}
    for info in infos:
        by_group_version.setdefault((info.group, info.version), []).append(info)
    documents = {v3_document(v3_group_version(group, group_version)): build_v3(group_infos, lookup, version, memo,
                                                                                fixed)
                 for (group, group_version), group_infos in by_group_version.items()
                 if only is None or only == v3_document(v3_group_version(group, group_version))}
    if only is None or only == V2_DOCUMENT:
        documents[V2_DOCUMENT] = build_v2([info for infos in by_group_version.values() for info in infos], lookup,
                                          version, memo, fixed, paths_memo)
    return documents


def _roots(infos: list[ResourceInfo]) -> list[str]:
    """The definitions the paths of these resources name."""
    roots = [STATUS_COMPONENT, DELETE_OPTIONS_COMPONENT, PATCH_COMPONENT]
    for info in infos:
        roots.append(info.definition)
        if "list" in info.verbs:
            roots.append(info.list_definition)
        roots += [subresource_component(info, sub) for sub in info.subresources]
    return roots


Memo = dict[tuple[str, int], tuple[JSON, tuple[str, ...], JSON]]
"""Definitions already published (name, major) -> (the schema, what it refers to, the definition it was built
from): upstream's, which never change, and those served kinds publish, reused while the kind publishes the
same definition, so a server with many documents builds each once."""


def components(roots: Iterable[str], lookup: Lookup, major: int, memo: Memo | None = None,
               fixed: Callable[[str], bool] = lambda name: False) -> dict[str, JSON]:
    """The roots and every definition they refer to, as documents of this OpenAPI major version
    publish them, sorted by name. Definitions `fixed` says never change are kept in `memo` (read-only)."""
    published: dict[str, JSON] = {}
    pending = list(roots)
    while pending:
        name = pending.pop()
        if name in published:
            continue
        remembered = memo.get((name, major)) if memo is not None else None
        if remembered is not None and not fixed(name) and remembered[2] is not lookup(name):
            remembered = None  # the kind publishes another definition now
        if remembered is None:
            refs: list[str] = []
            raw = lookup(name)
            remembered = (_definition(name, raw, major, refs), tuple(refs), raw)
            if memo is not None:
                memo[(name, major)] = remembered
        published[name] = remembered[0]
        pending.extend(remembered[1])
    return dict(sorted(published.items()))


def _definition(name: str, raw: JSON, major: int, refs: list[str]) -> JSON:
    if major < 3 and PUBLISHED_V2 in raw:
        raw = raw[PUBLISHED_V2]
    schema = _schema(raw, major, refs)
    if major >= 3 and name in _V3_ONE_OF:
        # v3 names the JSON types a value may take, so `kubectl explain` shows e.g. map[string]Quantity
        schema.pop("type", None)
        schema["oneOf"] = [{"type": json_type} for json_type in _V3_ONE_OF[name]]
    return schema


def _schema(raw: JSON, major: int, refs: list[str], zero: Any = None) -> JSON:
    """A schema node as published: references in the version's form, with `zero` as the v3 `default`
    of a value (None: none)."""
    ref = raw.get("$ref")
    if ref is not None:
        target = ref.removeprefix(_REF_PREFIX)
        refs.append(target)
        reference = {"$ref": ("#/components/schemas/" if major >= 3 else _REF_PREFIX) + target}
        siblings = {key: value for key, value in raw.items() if key != "$ref" and key not in _PRIVATE}
        if major < 3:
            return {**reference, **siblings}
        out: JSON = {"allOf": [reference], **siblings}
        if zero is not None and target not in _SCALAR_STRUCTS:
            out["default"] = zero
        return out
    out = {}
    for key, value in raw.items():
        if key in _PRIVATE:
            continue
        if key == "properties":
            out[key] = {prop: _property(sub, major, refs) for prop, sub in value.items()}
        elif key in ("items", "additionalProperties") and isinstance(value, dict):
            out[key] = _schema(value, major, refs, _element_zero(value) if major >= 3 else None)
        else:
            out[key] = value
    if major >= 3 and zero is not None and "type" in out:
        out["default"] = zero
    return out


def _property(raw: JSON, major: int, refs: list[str]) -> JSON:
    go = GoField.parse(raw["x-go"]) if "x-go" in raw else None
    zero: Any = None
    if go is not None and major >= 3:
        if go.shape == "struct":
            zero = {}
        elif go.shape == "scalar" and not go.omitempty:
            zero = _scalar_zero(raw)
    return _schema(raw, major, refs, zero)


def _element_zero(raw: JSON) -> Any:
    """The default upstream's v3 documents give a list element or a map value: its Go zero value."""
    if "$ref" in raw:
        return {}
    return _scalar_zero(raw)


def _scalar_zero(raw: JSON) -> Any:
    kind = raw.get("type")
    if kind == "string" and raw.get("format") != "byte":
        return ""
    if kind == "boolean":
        return False
    if kind in ("integer", "number"):
        return 0
    return None


def render(document: JSON) -> str:
    """The committed form: sorted keys, indented, so diffs stay readable."""
    return json.dumps(document, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def write_documents(documents: dict[Path, JSON], output_dir: Path) -> list[Path]:
    written = []
    for relative, document in documents.items():
        target = output_dir / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(render(document), encoding="utf-8")
        written.append(target)
    return written


def stale_documents(documents: dict[Path, JSON], output_dir: Path) -> list[Path]:
    """The files under `output_dir` that differ from `documents` (or are missing)."""
    stale = []
    for relative, document in documents.items():
        target = output_dir / relative
        if not target.is_file() or target.read_text(encoding="utf-8") != render(document):
            stale.append(target)
    return stale
