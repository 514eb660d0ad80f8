"""metadata.managedFields: which manager set which field, kept as upstream's field manager keeps it.

Update operations (create, PUT, and non-apply PATCH) give their manager the fields they added or
changed and take those from every other manager (structured-merge-diff's `Updater.Update`); the Apply
operation is `fakeapi.apply`. Field sets are `fakeapi.fieldpath` tries; entries are read and written
in upstream's wire form and order.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, NamedTuple, Protocol

import orjson

from fakeapi.machinery.clock import Clock
from fakeapi.machinery.managedfields.fieldpath import (
    Trie,
    decode_fields,
    difference,
    encode_fields,
    go_json,
    union,
    wire_difference,
    wire_union,
    without_subtrees,
)
from fakeapi.machinery.managedfields.fieldsets import (
    STRIPPED,
    STRIPPED_META,
    AddedFields,
    compare,
    created_fields,
    reset_fields,
)
from fakeapi.machinery.schema.compiled import CompiledSchema
from fakeapi.machinery.types import JSON

APPLY = "Apply"
UPDATE = "Update"
FIELDS_V1 = "FieldsV1"


class ManagerId(NamedTuple):
    """Upstream's manager identifier: an Apply entry is one per manager whatever its apiVersion."""

    manager: str
    operation: str
    api_version: str
    subresource: str


@dataclass(frozen=True, slots=True)
class Owned:
    fields: Trie
    time: str | None


Managers = dict[ManagerId, Owned]


class ApplyConflict(NamedTuple):
    manager: ManagerId
    path: str


def decode_managers(entries: Any) -> Managers | None:
    """The managedFields of an object by manager; None when they cannot be read (upstream then
    falls back to the live object's, or to none)."""
    managers: Managers = {}
    if not isinstance(entries, list):
        return managers if entries is None else None
    try:
        for entry in entries:
            operation = entry.get("operation")
            if operation not in (APPLY, UPDATE) or not entry.get("apiVersion"):
                return None
            if entry.get("fieldsType") != FIELDS_V1:
                return None
            ident = ManagerId(str(entry.get("manager") or ""), operation,
                              "" if operation == APPLY else str(entry["apiVersion"]),
                              str(entry.get("subresource") or ""))
            managers[ident] = Owned(decode_fields(entry.get("fieldsV1") or {}), entry.get("time"))
    except (AttributeError, ValueError, orjson.JSONDecodeError):
        return None
    return managers


def encode_managers(managers: Managers, api_version: str = "v1") -> list[JSON]:
    entries: list[tuple[tuple[Any, ...], JSON]] = []
    for ident, owned in managers.items():
        entry: JSON = {}
        if ident.manager:
            entry["manager"] = ident.manager
        entry["operation"] = ident.operation
        entry["apiVersion"] = ident.api_version or api_version
        if owned.time:
            entry["time"] = owned.time
        entry["fieldsType"] = FIELDS_V1
        entry["fieldsV1"] = encode_fields(owned.fields)
        if ident.subresource:
            entry["subresource"] = ident.subresource
        order = (ident.operation, owned.time or "", ident.manager, entry["apiVersion"], ident.subresource)
        entries.append((order, entry))
    entries.sort(key=lambda pair: pair[0])
    return [entry for _order, entry in entries]


# ---- conflicts


def describe_manager(ident: ManagerId) -> str:
    """How upstream names a manager in conflict messages."""
    text = go_json(ident.manager)
    if ident.subresource:
        text += f" with subresource {go_json(ident.subresource)}"
    if ident.operation == UPDATE:
        text += f" using {ident.api_version}"
    return text


def conflict_message(conflicts: list[ApplyConflict]) -> str:
    if len(conflicts) == 1:
        only = conflicts[0]
        return f"Apply failed with 1 conflict: conflict with {describe_manager(only.manager)}: {only.path}"
    lines: list[str] = []
    by_manager: dict[str, list[str]] = {}
    for conflict in conflicts:
        by_manager.setdefault(describe_manager(conflict.manager), []).append(conflict.path)
    for manager in sorted(by_manager):
        lines.append(f"conflicts with {manager}:")
        lines.extend(f"- {path}" for path in by_manager[manager])
    return f"Apply failed with {len(conflicts)} conflicts: " + "\n".join(lines)


def conflict_causes(conflicts: list[ApplyConflict]) -> list[JSON]:
    return [{"reason": "FieldManagerConflict", "message": f"conflict with {describe_manager(c.manager)}",
             "field": c.path} for c in conflicts]


# ---- the Update operation


def without_managed_fields(obj: JSON) -> JSON:
    meta = obj.get("metadata")
    if not isinstance(meta, dict) or "managedFields" not in meta:
        return obj
    return {**obj, "metadata": {k: v for k, v in meta.items() if k != "managedFields"}}


class FieldTracker(Protocol):
    """What the registry calls on every create and update, after the strategy ran (old is None on create)."""

    def update(self, new: JSON, old: JSON | None, manager: str | None) -> None: ...


class FieldManager:
    """Keeps metadata.managedFields on every write of one endpoint (a resource or a subresource)."""

    def __init__(self, schema: CompiledSchema, clock: Clock, subresource: str = "", api_version: str = "v1",
                 reset: tuple[str, ...] = ("status",)) -> None:
        self.tree = schema.patch_tree  # which lists are keyed, sets or atomic
        # what a create is compared against: the kind's Go zero value, as encoding/json writes it, less
        # the system metadata no manager owns (a zero ObjectMeta's creationTimestamp: null)
        self.zero: JSON = {**schema.zero, "metadata": {
            k: v for k, v in schema.zero.get("metadata", {}).items() if k not in STRIPPED_META}}
        self.api_version = api_version
        self.clock = clock
        self.subresource = subresource
        self.ignored = reset_fields(reset)  # the fields the endpoint's strategy resets
        # pods made from one template differ only in what a manager never owns (name, uid...): the
        # walk that finds a create's fields is done once per template
        self._created_wire = lru_cache(maxsize=256)(self._created_wire_of)
        self._added = AddedFields()  # the fields of alike statuses, found once

    def update(self, new: JSON, old: JSON | None, manager: str | None) -> None:
        """Record an Update by `manager` in `new` (old is None on create). Mutates `new`."""
        meta: JSON = new["metadata"]
        ident = ManagerId(manager or "", UPDATE, self.api_version, self.subresource)
        sent = meta.get("managedFields")
        if old is None and sent is None:
            # the common create: everything set is new, so the wire form is built in one walk
            created = self._created_fields(new)
            _set_entries(meta, [_entry(ident, created, self.clock.timestamp())] if created else None)
            return
        stored = old["metadata"].get("managedFields") if old is not None else None
        # upstream's decodeLiveOrNew: a client may send managedFields on the main resource, never on a
        # subresource; sent ones that cannot be read fall back to the stored ones
        explicit = not self.subresource and sent is not None and sent != stored
        # managedFields are compared too (shared with the stored ones, unless sent): STRIPPED drops them
        changes = compare(old if old is not None else self.zero, new, self.tree, self._added)
        changed = difference(changes.changed, STRIPPED)
        if old is None:
            # on update the strategy has already put back what this endpoint may not change
            changed = without_subtrees(changed, self.ignored)
        removed = difference(changes.removed, STRIPPED)
        if not changed and not removed and not explicit:
            _set_entries(meta, stored)  # a no-op write leaves managedFields exactly as they were
            return
        if not explicit and isinstance(stored, list) and _readable(stored):
            _set_entries(meta, self._updated_entries(stored, ident, changed, removed))
            return
        if explicit and sent in ([], [{}]):
            managers: Managers = {}  # an explicit reset
        elif explicit:
            managers = decode_managers(sent) or decode_managers(stored) or {}
        else:
            managers = decode_managers(stored) or {}
        for other, owned in list(managers.items()):
            kept = difference(difference(owned.fields, changed), removed)
            if not kept:
                del managers[other]
            elif kept is not owned.fields:
                managers[other] = Owned(kept, owned.time)
        if changed:
            previous = managers.get(ident)
            managers[ident] = Owned(union(previous.fields, changed) if previous else changed,
                                    self.clock.timestamp())
        _set_entries(meta, encode_managers(managers, self.api_version))

    def _created_fields(self, obj: JSON) -> JSON:
        """The FieldsV1 (wire form) a create gives its manager. Shared by every create of one template:
        like all wire sets it is never mutated (a later write builds new nodes where it changes)."""
        meta: JSON = obj["metadata"]
        owned = {**obj, "metadata": {k: v for k, v in meta.items() if k not in STRIPPED_META}}
        return self._created_wire(orjson.dumps(owned))

    def _created_wire_of(self, owned_json: bytes) -> JSON:
        owned: JSON = orjson.loads(owned_json)
        return created_fields(owned, self.tree, self.zero, self.ignored)

    def _updated_entries(self, stored: list[JSON], ident: ManagerId, changed: Trie,
                         removed: Trie) -> list[JSON]:
        """The stored entries after an Update, worked on in wire form: only the nodes the change
        reaches are copied (the hot path of status writes)."""
        entries: list[JSON] = []
        previous: JSON = {}
        previous_entry: JSON | None = None
        others_kept = True
        for entry in stored:
            wire = entry["fieldsV1"]
            if _is_entry_of(entry, ident):
                # what changed is added back below: only what was removed goes
                previous, previous_entry = wire_difference(wire, removed) if removed else wire, entry
                continue
            kept = wire_difference(wire, changed) if changed else wire
            if removed:
                kept = wire_difference(kept, removed)
            if kept is wire:
                entries.append(entry)
                continue
            others_kept = False
            if kept:
                entries.append({**entry, "fieldsV1": kept})
        own: JSON | None = None
        if changed:
            wire, time = wire_union(previous, changed), self.clock.timestamp()
            if previous_entry is not None and wire is previous_entry["fieldsV1"] and previous_entry.get("time") == time:
                own = previous_entry  # the manager rewrote fields it owns within the same second
            else:
                own = _entry(ident, wire, time)
        elif previous and previous_entry is not None:
            own = previous_entry if previous is previous_entry["fieldsV1"] else {**previous_entry, "fieldsV1": previous}
        if others_kept and own is previous_entry:
            return stored  # nothing changed hands: the stored entries as they are (and in order)
        if own is not None:
            entries.append(own)
        entries.sort(key=_entry_order)
        return entries


def _entry(ident: ManagerId, wire: JSON, time: str) -> JSON:
    """A managedFields entry of an Update, with its FieldsV1 already in wire form."""
    entry: JSON = {}
    if ident.manager:
        entry["manager"] = ident.manager
    entry["operation"] = ident.operation
    entry["apiVersion"] = ident.api_version or "v1"
    entry["time"] = time
    entry["fieldsType"] = FIELDS_V1
    entry["fieldsV1"] = wire
    if ident.subresource:
        entry["subresource"] = ident.subresource
    return entry


def _is_entry_of(entry: JSON, ident: ManagerId) -> bool:
    """Whether a stored entry is this manager's (compared field by field: it runs for every entry of
    every write, and building a ManagerId for each costs more)."""
    return ((entry.get("manager") or "") == ident.manager and entry.get("operation", "") == ident.operation
            and (entry.get("subresource") or "") == ident.subresource
            and ("" if ident.operation == APPLY else entry.get("apiVersion", "")) == ident.api_version)


def _entry_order(entry: JSON) -> tuple[str, ...]:
    return (entry.get("operation", ""), entry.get("time") or "", entry.get("manager") or "",
            entry.get("apiVersion", ""), entry.get("subresource") or "")


def _readable(entries: list[Any]) -> bool:
    """Stored entries this module wrote or validated: dicts each with a FieldsV1 object."""
    return all(isinstance(e, dict) and e.get("fieldsType") == FIELDS_V1
               and isinstance(e.get("fieldsV1"), dict) and e.get("operation") in (APPLY, UPDATE)
               and e.get("apiVersion") for e in entries)


def _set_entries(meta: JSON, entries: Any) -> None:
    if entries:
        meta["managedFields"] = entries
    else:
        meta.pop("managedFields", None)
