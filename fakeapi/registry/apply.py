"""Server-side apply (`application/apply-patch+yaml`): merge a manager's configuration into the object.

As upstream's structured-merge-diff `Updater.Apply`: the configuration is merged into the live object
with the schema's list keys; fields this manager applied last time and no longer applies are removed
unless someone else owns them; fields owned by another manager with a different value are conflicts
(409) unless `force=true`, which takes them over. The merged object then runs the registry's create
or update pipeline, so defaulting, validation, dry run and the no-op check are the usual ones.
"""

from __future__ import annotations

import copy
from typing import Any

import orjson

from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.decode import Decoder
from fakeapi.machinery.errors import BadRequest, Conflict, Invalid, UnknownError
from fakeapi.machinery.jsonvalues import json_type_name
from fakeapi.machinery.managedfields.fieldpath import (
    EMPTY,
    MEMBER,
    Trie,
    difference,
    field_element,
    intersection,
    keyed_items,
    list_keys,
    list_kind,
    path_string,
    paths,
    union,
    without_subtrees,
)
from fakeapi.machinery.managedfields.fieldsets import STRIPPED, compare, fields_of
from fakeapi.machinery.managedfields.manager import (
    APPLY,
    ApplyConflict,
    FieldManager,
    ManagerId,
    Managers,
    Owned,
    conflict_causes,
    conflict_message,
    decode_managers,
    encode_managers,
    without_managed_fields,
)
from fakeapi.machinery.types import JSON
from fakeapi.registry.generic import Registry
from fakeapi.registry.options import WriteOptions

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


def server_side_apply(
    registry: Registry, namespace: str, name: str, patch_body: Any, options: WriteOptions
) -> tuple[JSON, bool]:
    """Apply `patch_body` (a partial object) as `options.field_manager`. Returns the object and
    whether it was created."""
    if not options.field_manager:
        raise Invalid("PatchOptions", "", [fe.required("fieldManager", "is required for apply patch")],
                      group="meta.k8s.io")
    manager = registry.field_manager
    assert isinstance(manager, FieldManager)
    config = _checked_config(registry, namespace, name, patch_body, manager.tree)
    config = _drop_nulls(config)
    config_set = without_subtrees(difference(fields_of(config, manager.tree), STRIPPED), manager.ignored)
    config = _without_ignored(config, manager.ignored)

    # only the resource itself is created by an apply; a subresource of a missing object is NotFound
    exists = bool(manager.subresource) or registry.store.exists(registry.key(namespace, name))
    live: JSON = (registry.get(namespace, name) if exists
                  else {"apiVersion": registry.info.api_version, "kind": registry.info.kind, "metadata": {}})
    stored_entries = live["metadata"].get("managedFields")
    managers = decode_managers(stored_entries)
    if managers is None:
        raise UnknownError("failed to decode managed fields: invalid managedFields")
    live = without_managed_fields(live)
    ident = ManagerId(options.field_manager, APPLY, "", manager.subresource)

    merged = merge(live, config, manager.tree)
    previous = managers.get(ident)
    others = {other: owned for other, owned in managers.items() if other != ident}
    if previous is not None:
        owned_by_anyone = config_set
        for owned in others.values():
            owned_by_anyone = union(owned_by_anyone, owned.fields)
        merged = prune(merged, difference(previous.fields, owned_by_anyone), owned_by_anyone, manager.tree)

    managers = _take_ownership(live, merged, manager, others, options.force)
    if ident.manager == "kubectl":
        _sync_last_applied(merged, patch_body)
    if config_set:
        managers[ident] = Owned(config_set, manager.clock.timestamp())

    applying = copy.copy(registry)
    applying.field_manager = AppliedFields(encode_managers(managers, registry.info.api_version), stored_entries)
    if exists:
        return applying.update(namespace, name, merged, options), False
    return applying.create(namespace, merged, options), True


class AppliedFields:
    """The field tracker of one apply: installs the managedFields the apply computed.

    When the write changes nothing but the apply's timestamp, the stored managedFields stay, so
    applying the same configuration twice is a no-op (upstream's IgnoreManagedFieldsTimestampsTransformer).
    """

    def __init__(self, entries: list[JSON], stored: Any) -> None:
        self.entries = entries
        self.stored = stored

    def update(self, new: JSON, old: JSON | None, manager: str | None) -> None:
        meta: JSON = new["metadata"]
        if (old is not None and self.stored and _without_times(self.entries) == _without_times(self.stored)
                and without_managed_fields(new) == without_managed_fields(old)):
            meta["managedFields"] = self.stored
        elif self.entries:
            meta["managedFields"] = self.entries
        else:
            meta.pop("managedFields", None)


def _sync_last_applied(merged: JSON, applied: JSON) -> None:
    """kubectl's server-side apply keeps an existing client-side apply annotation up to date, so a
    later client-side apply diffs against what was applied (upstream's lastAppliedUpdater)."""
    annotations = merged["metadata"].get("annotations") or {}
    if not annotations.get(LAST_APPLIED):
        return
    config = dict(applied)
    meta = dict(config.get("metadata") or {})
    if isinstance(meta.get("annotations"), dict):
        meta["annotations"] = {k: v for k, v in meta["annotations"].items() if k != LAST_APPLIED}
    config["metadata"] = meta
    text = orjson.dumps(config, option=orjson.OPT_SORT_KEYS).decode() + "\n"
    merged["metadata"] = {**merged["metadata"], "annotations": {**annotations, LAST_APPLIED: text}}


def _without_times(entries: Any) -> list[bytes]:
    """Entries as comparable without their times (which also decide their order)."""
    if not isinstance(entries, list):
        return []
    return sorted(orjson.dumps({k: v for k, v in entry.items() if k != "time"} if isinstance(entry, dict)
                               else entry, option=orjson.OPT_SORT_KEYS) for entry in entries)


# ---- the configuration


def _checked_config(registry: Registry, namespace: str, name: str, body: Any, tree: JSON) -> JSON:
    kind, api_version_served = registry.info.kind, registry.info.api_version
    gvk_prefix = f"{registry.info.group}/{registry.info.version}, Kind="
    if not isinstance(body, dict):
        raise BadRequest("error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot "
                         f"unmarshal {json_type_name(body)} into Go value of type map[string]interface {{}}")
    api_version = body.get("apiVersion")
    if api_version != api_version_served:
        raise BadRequest("Incorrect version specified in apply patch. "
                         f"Specified patch version: {api_version or ''}, expected: {api_version_served}")
    sent_kind = body.get("kind")
    if sent_kind != kind:
        gvk = gvk_prefix + (sent_kind or "")
        raise UnknownError(f"failed to create typed patch object ({namespace}/{name}; {gvk}): "
                           f"no corresponding type for {gvk}")
    meta = body.get("metadata")
    if meta is not None and not isinstance(meta, dict):
        raise BadRequest(f"error decoding YAML: metadata must be an object, got {json_type_name(meta)}")
    meta = meta or {}
    if meta.get("managedFields") is not None:
        raise BadRequest("metadata.managedFields must be nil")
    if meta.get("name", "") != name:
        raise BadRequest(f"the name of the object ({meta.get('name', '')}) does not match "
                         f"the name on the URL ({name})")
    decoded = Decoder(registry.kind.apply_plan).decode(body, kind, registry.info.version)
    if decoded.unknown:
        path = _first_unknown(body, decoded.obj, tree)
        raise UnknownError(f"failed to create typed patch object ({namespace}/{name}; {gvk_prefix}{kind}): "
                           f"{path}: field not declared in schema")
    config: JSON = decoded.obj
    config["apiVersion"] = api_version_served
    config["kind"] = kind
    return config


def _first_unknown(sent: Any, kept: Any, node: JSON | None, prefix: str = "") -> str:
    """Where the first field the schema dropped sits, as upstream's typed conversion names it."""
    if isinstance(sent, dict) and isinstance(kept, dict):
        for key, value in sent.items():
            if key not in kept:
                if value is not None:
                    return f"{prefix}.{key}"
                continue
            found = _first_unknown(value, kept[key], node.get(key) if node else None, f"{prefix}.{key}")
            if found:
                return found
    elif isinstance(sent, list) and isinstance(kept, list):
        kind = list_kind(node, kept)
        keys = list_keys(node) if node is not None and kind == "map" else []
        for index, (item, kept_item) in enumerate(zip(sent, kept, strict=False)):
            element = keyed_items([kept_item], kind, keys) if kind != "atomic" else {}
            label = path_string((next(iter(element)),)) if element else f"[{index}]"
            found = _first_unknown(item, kept_item, node if kind == "map" else None, prefix + label)
            if found:
                return found
    return ""


def _drop_nulls(value: Any) -> Any:
    """A null in an applied configuration sets nothing (it is dropped as the typed conversion drops it)."""
    if isinstance(value, dict):
        return {k: _drop_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_drop_nulls(item) for item in value]
    return value


def _without_ignored(config: JSON, ignored: Trie) -> JSON:
    """The configuration without what this endpoint resets (status on the resource, spec on /status)."""
    drop = [key[2:] for key, node in ignored.items() if key != MEMBER and MEMBER in node]
    return {k: v for k, v in config.items() if k not in drop} if drop else config


# ---- merge and prune


def merge(live: Any, config: Any, node: JSON | None) -> Any:
    """`config` merged into `live`: maps key by key, keyed and set lists item by item, the rest replaced."""
    if isinstance(live, dict) and isinstance(config, dict):
        merged = dict(live)
        for key, value in config.items():
            merged[key] = merge(live[key], value, node.get(key) if node else None) if key in live else value
        return merged
    if isinstance(live, list) and isinstance(config, list):
        kind = list_kind(node, live + config)
        if kind == "atomic":
            return config
        keys = list_keys(node) if node is not None else []
        item_node = node if kind == "map" else None
        return _merge_items(keyed_items(live, kind, keys), keyed_items(config, kind, keys), item_node)
    return config


def _merge_items(live: dict[str, Any], config: dict[str, Any], node: JSON | None) -> list[Any]:
    """Items in structured-merge-diff's order: the configuration's order for the items it names, with
    items only the live object has kept where they were relative to them."""
    live_order = list(live)
    config_order = list(config)
    shared = [element for element in config_order if element in live]
    merged: list[Any] = []
    next_shared = 0
    i = j = 0
    while i < len(live_order) or j < len(config_order):
        if i < len(live_order) and j < len(config_order):
            element = live_order[i]
            if element == config_order[j]:
                merged.append(merge(live[element], config[element], node))
                i += 1
                j += 1
                next_shared += 1
                continue
            if element in config and next_shared < len(shared) and shared[next_shared] != element:
                i += 1  # shared, but the configuration puts it later: it is merged when reached there
                continue
        if i < len(live_order) and live_order[i] not in config:
            merged.append(live[live_order[i]])
            i += 1
            continue
        if j < len(config_order):
            element = config_order[j]
            merged.append(merge(live[element], config[element], node) if element in live else config[element])
            j += 1
            if next_shared < len(shared) and shared[next_shared] == element:
                next_shared += 1
        else:
            i += 1
    return merged


def prune(value: Any, remove: Trie, keep: Trie, node: JSON | None) -> Any:
    """`value` without the members of `remove`, except where `keep` still owns something beneath."""
    if isinstance(value, dict):
        pruned = dict(value)
        for key in value:
            element = field_element(key)
            sub = remove.get(element)
            if sub is None:
                continue
            kept = keep.get(element, EMPTY)
            if MEMBER in sub and not kept:
                del pruned[key]
                continue
            child = prune(value[key], sub, kept, node.get(key) if node else None)
            if child in ({}, []) and value[key] not in ({}, []):
                del pruned[key]  # emptied here: omitted, as Go omits empty maps and lists
            else:
                pruned[key] = child
        return pruned
    if isinstance(value, list):
        kind = list_kind(node, value)
        if kind == "atomic":
            return value
        keys = list_keys(node) if node is not None else []
        items: list[Any] = []
        for element, item in keyed_items(value, kind, keys).items():
            sub = remove.get(element)
            if sub is None:
                items.append(item)
                continue
            kept = keep.get(element, EMPTY)
            if MEMBER in sub and not kept:
                continue
            items.append(prune(item, sub, kept, node if kind == "map" else None))
        return items
    return value


def _take_ownership(live: JSON, merged: JSON, manager: FieldManager, others: Managers,
                    force: bool) -> Managers:
    """Other managers' sets after the apply: conflicts are raised, or taken over with `force`."""
    changes = compare(live, merged, manager.tree)
    changed = changes.changed
    conflicts: list[ApplyConflict] = []
    result: Managers = {}
    for other, owned in sorted(others.items(), key=lambda pair: pair[0]):
        clash = intersection(owned.fields, changed)
        conflicts.extend(ApplyConflict(other, path_string(path)) for path in paths(clash))
        kept = difference(difference(owned.fields, clash), changes.removed)
        if kept:
            result[other] = owned if kept is owned.fields else Owned(kept, owned.time)
    if conflicts and not force:
        raise Conflict(conflict_message(conflicts), {"causes": conflict_causes(conflicts)})
    return result

