"""The garbage collector (garbage-collector-controller, user generic-garbage-collector), after upstream's
pkg/controller/garbagecollector.

It keeps a graph of owner references from every change in the store: which objects exist (by uid) and which
depend on which. What it does is upstream's:
- an object whose owners are all gone (an owner is gone when no object of its kind has its name and uid in
  the dependent's namespace, or cluster-wide for a cluster-scoped owner) is deleted, with the propagation its
  own finalizers ask for (Background otherwise): background propagation, and dangling references;
- an owner being deleted in the foreground (`foregroundDeletion`) has its dependents deleted; once none of
  those whose reference sets `blockOwnerDeletion` is left, the finalizer is removed and the owner goes. A
  dependent that has dependents itself and another owner waiting is deleted in the foreground too;
- an owner being deleted with the `orphan` finalizer has its reference removed from each dependent, then the
  finalizer;
- a dependent with a live owner besides one that is gone or waiting keeps living: the other references are
  removed from it;
- a cluster-scoped object naming a namespaced owner is left alone; a namespaced object naming an owner that
  lives in another namespace sees it as gone (`OwnerRefInvalidNamespace` event).
"""

from __future__ import annotations

from dataclasses import dataclass

import orjson

from fakeapi.machinery.errors import NotFound
from fakeapi.machinery.types import JSON, ObjectKey
from fakeapi.registry.generic import Registry
from fakeapi.registry.propagation import BACKGROUND, FOREGROUND, FOREGROUND_FINALIZER, ORPHAN, ORPHAN_FINALIZER
from fakeapi.simulation.controllers.context import Context
from fakeapi.storage.store import Event

SERVICE_ACCOUNT = "generic-garbage-collector"
COMPONENT = "garbage-collector-controller"
SOLID, DANGLING, WAITING = "solid", "dangling", "waiting"


@dataclass(slots=True, eq=False)
class Dependent:
    """An object with owner references, as the graph knows it."""

    uid: str
    owners: list[JSON]
    deleting: bool  # being deleted
    deleting_dependents: bool  # being deleted in the foreground (its foregroundDeletion finalizer)

    def blocks(self, owner_uid: str) -> bool:
        return any(ref.get("uid") == owner_uid and ref.get("blockOwnerDeletion") for ref in self.owners)


class GarbageCollector:
    def __init__(self, context: Context) -> None:
        self.context = context
        self.api = context.api
        self.work = context.work
        self.client = context.client(SERVICE_ACCOUNT)
        self.events = context.recorder(self.client, COMPONENT)
        self.uids: dict[ObjectKey, str] = {}  # every object
        self.keys: dict[str, ObjectKey] = {}  # uid -> object
        self.dependents: dict[str, set[ObjectKey]] = {}  # owner uid -> objects naming it
        self.nodes: dict[ObjectKey, Dependent] = {}  # objects with owners
        # objects being deleted: (whether in the foreground, whether orphaning), from their finalizers
        self.finalizing: dict[ObjectKey, tuple[bool, bool]] = {}
        self._reported: set[tuple[str, str]] = set()  # (dependent, owner) uids told OwnerRefInvalidNamespace
        context.informers.every_change(self.changed)

    # ---- the graph

    def start(self) -> None:
        """Take in every stored object, then check each that has owners or is being deleted with a
        propagation finalizer."""
        store = self.api.store
        for registry in self.api.stored_registries():
            for key, data in store.items(registry.storage_resource):
                self.changed(Event("ADDED", key, 0, data, None), orjson.loads(data))

    def stop(self) -> None:
        self.uids.clear()
        self.keys.clear()
        self.dependents.clear()
        self.nodes.clear()
        self.finalizing.clear()

    def changed(self, event: Event, obj: JSON | None) -> None:
        """A store change: update the graph, queue what it calls for."""
        key = event.key
        if obj is None:
            self._forget(key)
            return
        meta: JSON = obj["metadata"]
        uid = str(meta.get("uid", ""))
        if self.uids.get(key, uid) != uid:
            self._forget(key)  # deleted and made again between two changes seen
        old = self.nodes.get(key)
        node = self._observe(key, uid, meta)
        if node is not None and (old is None or old.owners != node.owners):
            self._attempt_soon(key)  # owners to check
        for ref in old.owners if old is not None else ():
            if node is None or all(ref.get("uid") != new.get("uid") for new in node.owners):
                self._owner_changed(str(ref.get("uid", "")))  # released: an owner waiting on it looks again
        was = self.finalizing.pop(key, (False, False))
        if meta.get("deletionTimestamp"):
            finalizers = meta.get("finalizers") or []
            now = self.finalizing[key] = (FOREGROUND_FINALIZER in finalizers, ORPHAN_FINALIZER in finalizers)
            if now[0] and not was[0]:
                self._attempt_soon(key)
                for dependent in self.dependents.get(uid, ()):
                    self._attempt_soon(dependent)
            if now[1] and not was[1]:
                self._orphan_soon(key)

    def _observe(self, key: ObjectKey, uid: str, meta: JSON) -> Dependent | None:
        self.uids[key] = uid
        self.keys[uid] = key
        old = self.nodes.pop(key, None)
        if old is not None:
            for ref in old.owners:
                self._unlink(str(ref.get("uid", "")), key)
        owners: list[JSON] = meta.get("ownerReferences") or []
        if not owners:
            return None
        deleting = bool(meta.get("deletionTimestamp"))
        node = Dependent(uid, owners, deleting, deleting and FOREGROUND_FINALIZER in (meta.get("finalizers") or []))
        self.nodes[key] = node
        for ref in owners:
            self.dependents.setdefault(str(ref.get("uid", "")), set()).add(key)
        return node

    def _forget(self, key: ObjectKey) -> None:
        """The object is gone: its dependents are checked, and owners waiting for it look again."""
        uid = self.uids.pop(key, None)
        self.finalizing.pop(key, None)
        if uid is None:
            return
        if self.keys.get(uid) == key:
            del self.keys[uid]
        node = self.nodes.pop(key, None)
        if node is not None:
            for ref in node.owners:
                owner_uid = str(ref.get("uid", ""))
                self._unlink(owner_uid, key)
                self._owner_changed(owner_uid)
        for dependent in self.dependents.get(uid, ()):
            self._attempt_soon(dependent)

    def _unlink(self, owner_uid: str, key: ObjectKey) -> None:
        dependents = self.dependents.get(owner_uid)
        if dependents is not None:
            dependents.discard(key)
            if not dependents:
                del self.dependents[owner_uid]

    def _owner_changed(self, owner_uid: str) -> None:
        """A dependent of this owner went or let it go: an owner deleting its dependents looks again."""
        owner = self.keys.get(owner_uid)
        if owner is not None and self.finalizing.get(owner, (False, False))[0]:
            self._attempt_soon(owner)

    def _attempt_soon(self, key: ObjectKey) -> None:
        self.work.soon(("garbage-collector", "delete", key), lambda: self.attempt_to_delete(key))

    def _orphan_soon(self, key: ObjectKey) -> None:
        self.work.soon(("garbage-collector", "orphan", key), lambda: self.attempt_to_orphan(key))

    # ---- attemptToDelete

    def attempt_to_delete(self, key: ObjectKey) -> None:
        registry = self._registry(key.resource)
        obj = registry.find(key.namespace, key.name) if registry is not None else None
        if registry is None or obj is None:
            return
        meta: JSON = obj["metadata"]
        finalizers = meta.get("finalizers") or []
        if meta.get("deletionTimestamp"):
            if FOREGROUND_FINALIZER in finalizers:
                self._process_deleting_dependents(registry, key, obj)
            return  # being deleted: its dependents are looked at once it is gone
        owners: list[JSON] = meta.get("ownerReferences") or []
        if not owners:
            return
        classified = self._classify(key, meta, owners)
        if classified is None:
            return
        solid, dangling, waiting = classified
        uid = str(meta.get("uid", ""))
        if solid:
            if dangling or waiting:
                self._patch(registry, key, {"metadata": {
                    "ownerReferences": [{"$patch": "delete", "uid": ref["uid"]} for ref in dangling + waiting],
                    "uid": uid}})
            return
        if waiting and self.dependents.get(uid):
            if any(self._deleting_dependents(dependent) for dependent in self.dependents[uid]):
                self._unblock_owner_references(registry, key, uid, owners)
            self._delete(registry, key, meta, FOREGROUND)
            return
        if ORPHAN_FINALIZER in finalizers:
            policy = ORPHAN
        elif FOREGROUND_FINALIZER in finalizers:
            policy = FOREGROUND
        else:
            policy = BACKGROUND
        self._delete(registry, key, meta, policy)

    def _deleting_dependents(self, key: ObjectKey) -> bool:
        node = self.nodes.get(key)
        return node is not None and node.deleting_dependents

    def _classify(self, key: ObjectKey, meta: JSON,
                  owners: list[JSON]) -> tuple[list[JSON], list[JSON], list[JSON]] | None:
        """The references whose owner lives, is gone, or is being deleted in the foreground; None when a
        reference cannot be told (a kind not served, a namespaced owner of a cluster-scoped object): the
        object is left alone."""
        solid: list[JSON] = []
        dangling: list[JSON] = []
        waiting: list[JSON] = []
        for ref in owners:
            registry = self._owner_registry(str(ref.get("apiVersion", "")), str(ref.get("kind", "")))
            if registry is None:
                return None
            if registry.info.namespaced and not key.namespace:
                return None
            owner = registry.find(key.namespace if registry.info.namespaced else "", str(ref.get("name", "")))
            if owner is None or owner["metadata"].get("uid") != ref.get("uid"):
                if registry.info.namespaced:
                    self._report_other_namespace(key, meta, ref)
                dangling.append(ref)
            elif _deleting(owner) and FOREGROUND_FINALIZER in (owner["metadata"].get("finalizers") or []):
                waiting.append(ref)
            else:
                solid.append(ref)
        return solid, dangling, waiting

    def _report_other_namespace(self, key: ObjectKey, meta: JSON, ref: JSON) -> None:
        """A namespaced owner known to live in another namespace: upstream's graph builder says so once."""
        owner_uid = str(ref.get("uid", ""))
        elsewhere = self.keys.get(owner_uid)
        dependent_uid = str(meta.get("uid", ""))
        if elsewhere is None or elsewhere.namespace == key.namespace or (dependent_uid, owner_uid) in self._reported:
            return
        self._reported.add((dependent_uid, owner_uid))
        registry = self._registry(key.resource)
        if registry is None:
            return
        involved: JSON = {"kind": registry.info.kind, "namespace": key.namespace, "name": key.name,
                          "uid": dependent_uid, "apiVersion": registry.info.api_version}
        self.events.warning(involved, "OwnerRefInvalidNamespace",
                            f"ownerRef [{ref.get('apiVersion', '')}/{ref.get('kind', '')}, namespace: "
                            f"{key.namespace}, name: {ref.get('name', '')}, uid: {owner_uid}] does not exist in "
                            f'namespace "{key.namespace}"')

    def _process_deleting_dependents(self, registry: Registry, key: ObjectKey, obj: JSON) -> None:
        """An owner deleted in the foreground: remove its finalizer once no blocking dependent is left, else
        make sure each of them is being deleted."""
        uid = str(obj["metadata"].get("uid", ""))
        blocking = [dependent for dependent in self.dependents.get(uid, ())
                    if (node := self.nodes.get(dependent)) is not None and node.blocks(uid)]
        if not blocking:
            self._remove_finalizer(registry, key, FOREGROUND_FINALIZER)
            return
        for dependent in blocking:
            node = self.nodes[dependent]
            if not node.deleting:
                self._attempt_soon(dependent)

    def _unblock_owner_references(self, registry: Registry, key: ObjectKey, uid: str, owners: list[JSON]) -> None:
        """Break a possible cycle of foreground deletions: the object stops blocking its owners."""
        refs = [{**ref, "blockOwnerDeletion": False} for ref in owners if ref.get("blockOwnerDeletion")]
        if refs:
            self._patch(registry, key, {"metadata": {"ownerReferences": refs, "uid": uid}})

    def _delete(self, registry: Registry, key: ObjectKey, meta: JSON, policy: str) -> None:
        info = registry.info
        self.client.delete(info.resource, key.namespace, key.name, uid=str(meta.get("uid", "")),
                           resource_version=str(meta.get("resourceVersion", "")), propagation=policy,
                           group=info.group, version=info.version)

    def _patch(self, registry: Registry, key: ObjectKey, patch: JSON) -> None:
        info = registry.info
        self.client.patch(info.resource, key.namespace, key.name, patch, group=info.group, version=info.version)

    # ---- attemptToOrphan

    def attempt_to_orphan(self, key: ObjectKey) -> None:
        registry = self._registry(key.resource)
        obj = registry.find(key.namespace, key.name) if registry is not None else None
        if registry is None or obj is None:
            return
        meta: JSON = obj["metadata"]
        if not meta.get("deletionTimestamp") or ORPHAN_FINALIZER not in (meta.get("finalizers") or []):
            return
        uid = str(meta.get("uid", ""))
        for dependent in sorted(self.dependents.get(uid, ())):
            node = self.nodes.get(dependent)
            dependent_registry = self._registry(dependent.resource)
            if node is None or dependent_registry is None:
                continue
            try:
                self._patch(dependent_registry, dependent, {"metadata": {
                    "ownerReferences": [{"$patch": "delete", "uid": uid}], "uid": node.uid}})
            except NotFound:
                pass
        self._remove_finalizer(registry, key, ORPHAN_FINALIZER)

    # ---- writes

    def _remove_finalizer(self, registry: Registry, key: ObjectKey, finalizer: str) -> None:
        """A JSON merge patch of the finalizers, with the resourceVersion read (upstream's removeFinalizer)."""
        obj = registry.find(key.namespace, key.name)
        if obj is None:
            return
        meta: JSON = obj["metadata"]
        finalizers: list[str] = meta.get("finalizers") or []
        if finalizer not in finalizers:
            return
        rest = [name for name in finalizers if name != finalizer]
        patch: JSON = {"metadata": {"resourceVersion": meta.get("resourceVersion", ""), "finalizers": rest or None}}
        info = registry.info
        self.client.merge_patch(info.resource, key.namespace, key.name, patch, group=info.group,
                                version=info.version)

    def _registry(self, storage_resource: str) -> Registry | None:
        """The registry that serves a stored resource's objects as themselves."""
        for registry in self.api.stored_registries():
            if registry.storage_resource == storage_resource:
                return registry
        return None

    def _owner_registry(self, api_version: str, kind: str) -> Registry | None:
        """The registry serving an owner reference's kind (its group, any version served: the REST mapper)."""
        group = api_version.rpartition("/")[0] if "/" in api_version else ""
        for registry in self.api.stored_registries():
            if registry.info.kind == kind and registry.info.group == group:
                return registry
        return None


def _deleting(obj: JSON) -> bool:
    return bool(obj["metadata"].get("deletionTimestamp"))
