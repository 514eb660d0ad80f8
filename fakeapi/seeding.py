"""Seeding: objects from dicts, YAML text or files, each created through the normal registry pipeline."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TypeAlias

import orjson

from fakeapi.cluster import NAMESPACE_CONTENT, SERVER_OBJECTS, Api
from fakeapi.machinery.errors import BadRequest
from fakeapi.machinery.jsonvalues import copy_json
from fakeapi.machinery.types import JSON
from fakeapi.machinery.yamlload import load_yaml_all
from fakeapi.registry.generic import Registry
from fakeapi.registry.options import WriteOptions

Seed: TypeAlias = "str | bytes | os.PathLike[str] | JSON | Iterable[JSON]"
"""What `seed` accepts: YAML/JSON text (many documents), a file path, one object, a List, or objects."""


def load_objects(source: Seed) -> list[JSON]:
    """The objects in `source`, with `kind: List` documents flattened and empty documents skipped.
    Only `source` itself may name a file: text inside it never does."""
    if isinstance(source, os.PathLike) or (isinstance(source, str) and _names_file(source)):
        source = Path(source).read_bytes()
    if isinstance(source, str | bytes):
        documents = load_yaml_all(source, None)  # a seed file may be larger than a request body
    elif isinstance(source, dict):
        documents = [source]
    else:
        documents = list(source)
    return _flatten(documents)


def _flatten(documents: Iterable[Any]) -> list[JSON]:
    objects: list[JSON] = []
    for document in documents:
        if document is None:
            continue
        if not isinstance(document, dict):
            raise BadRequest(f"a seed document must be an object, not {type(document).__name__}")
        if document.get("kind") == "List" or (not document.get("kind") and "items" in document):
            items = document.get("items") or []
            if not isinstance(items, list):
                raise BadRequest(f"the items of a List must be an array, not {type(items).__name__}")
            objects.extend(_flatten(items))
        else:
            objects.append(document)
    return objects


def _names_file(text: str) -> bool:
    return "\n" not in text and len(text) < 4096 and os.path.isfile(text)


def registry_for_kind(api: Api, api_version: str, kind: str) -> Registry:
    for registry in api.kinds.registries():
        if registry.info.kind == kind and api_version in (registry.info.api_version, ""):
            return registry
    raise BadRequest(f'no matches for kind "{kind}" in version "{api_version}"')


def seed(api: Api, source: Seed) -> list[JSON]:
    """Create every object (namespaces first, otherwise in order) and return them as stored.

    Namespaces that exist already are kept as they are, what the controllers made in every namespace (its
    `default` ServiceAccount, `kube-root-ca.crt`) and the server's `kubernetes` Service and endpoints are
    replaced by the seeded object, and `metadata.resourceVersion` is dropped, so a dump seeds back into a
    fresh server. A `status` in a seeded object is written afterwards through the status subresource, as a
    controller or the kubelet would write it (the create pipeline alone resets it). Not atomic: objects
    created before a failing one stay.
    """
    objects = load_objects(source)
    ordered = [o for o in objects if o.get("kind") == "Namespace"] + \
              [o for o in objects if o.get("kind") != "Namespace"]
    return [seed_one(api, obj) for obj in ordered]


def seed_one(api: Api, obj: JSON) -> JSON:
    registry = registry_for_kind(api, str(obj.get("apiVersion") or ""), str(obj.get("kind") or ""))
    body: JSON = orjson.loads(orjson.dumps(obj))  # the caller's dicts stay untouched
    status = body.pop("status", None)
    meta = body.get("metadata") or {}
    if isinstance(meta, dict):
        meta.pop("resourceVersion", None)  # so a dump seeds back (uid and timestamps are renewed anyway)
    namespace = str(meta.get("namespace") or "default") if registry.info.namespaced else ""
    name = str(meta.get("name") or "")
    exists = bool(name) and registry.store.exists(registry.key(namespace, name))
    if exists and registry.info.resource == "namespaces":
        return registry.get("", name)  # default, kube-system...: already there
    if exists and ((registry.info.resource, name) in NAMESPACE_CONTENT
                   or (registry.info.resource, namespace, name) in SERVER_OBJECTS):
        if isinstance(meta, dict):
            meta.pop("uid", None)  # the object made here keeps its own
        return copy_json(registry.update(namespace, name, body, WriteOptions()))  # type: ignore[no-any-return]
    created = registry.create(namespace, body, WriteOptions())
    info = registry.info
    status_registry = api.kinds.subresource(info.resource, "status", info.group, info.version)
    if status and status_registry is not None:
        created["status"] = {**(created.get("status") or {}), **status}
        created = status_registry.update(namespace, created["metadata"]["name"], created, WriteOptions())
    # a copy: the caller owns it, and a write may share parts with the server's memos
    return copy_json(created)  # type: ignore[no-any-return]
