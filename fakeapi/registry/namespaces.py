"""Namespace deletion as upstream: mark Terminating, let the namespace controller empty it, then remove it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from fakeapi.kinds.namespace.strategy import KUBERNETES_FINALIZER
from fakeapi.machinery.jsonvalues import copy_json
from fakeapi.machinery.types import JSON, ObjectKey
from fakeapi.registry.generic import Registry
from fakeapi.registry.options import DeleteOptions
from fakeapi.storage.store import Event


class NamespaceRegistry(Registry):
    def delete(self, namespace: str, name: str, options: DeleteOptions) -> tuple[JSON, bool]:
        key = self.key("", name)
        old = self.store.get(key)
        meta: JSON = old["metadata"]
        self._check_delete_preconditions(key, meta, options)
        if meta.get("deletionTimestamp"):
            return old, False
        new = copy_json(old)
        new["metadata"]["deletionTimestamp"] = self.clock.timestamp()
        new["metadata"]["deletionGracePeriodSeconds"] = 0
        new.setdefault("status", {})["phase"] = "Terminating"
        if options.dry_run:
            return new, False
        self.store.update(key, new, meta["resourceVersion"])
        return new, False


class NamespaceController:
    """Empties terminating namespaces and removes them once nothing holds them (upstream's controller)."""

    def __init__(self, namespaces: Registry, namespaced: Callable[[], list[Registry]]) -> None:
        self.namespaces = namespaces
        self.namespaced = namespaced
        self._pending: set[str] = set()
        self._terminating_names: set[str] = set()

    def on_event(self, event: Event) -> None:
        """Store listener: runs inside a write, so the real work is deferred to the event loop."""
        if event.key.resource == "namespaces":
            name = event.key.name
            if event.type != "DELETED" and b'"deletionTimestamp"' in event.data:
                self._terminating_names.add(name)
            else:
                self._terminating_names.discard(name)
        else:
            name = event.key.namespace
        if name in self._terminating_names and name not in self._pending:
            self._pending.add(name)
            asyncio.get_running_loop().call_soon(self.sync, name)

    def _terminating(self, name: str) -> bool:
        key = ObjectKey("namespaces", "", name)
        if not self.namespaces.store.exists(key):
            return False
        return bool(self.namespaces.store.get(key)["metadata"].get("deletionTimestamp"))

    def sync(self, name: str) -> None:
        self._pending.discard(name)
        store = self.namespaces.store
        key = ObjectKey("namespaces", "", name)
        if not self._terminating(name):
            return
        remaining = 0
        for registry in self.namespaced():
            for object_key, _data in list(store.items(registry.info.resource, name)):
                obj, gone = registry.delete(name, object_key.name, DeleteOptions(grace_period_seconds=0))
                remaining += not gone
        if remaining:
            return  # objects with finalizers hold the namespace; their removal triggers another sync
        namespace = store.get(key)
        spec: JSON = namespace.setdefault("spec", {})
        if KUBERNETES_FINALIZER in spec.get("finalizers", []):
            spec["finalizers"] = [f for f in spec["finalizers"] if f != KUBERNETES_FINALIZER]
            store.update(key, namespace, namespace["metadata"]["resourceVersion"])
            namespace = store.get(key)
        if not namespace["metadata"].get("finalizers") and not spec.get("finalizers"):
            store.delete(key)

