"""The namespace controller: empties a terminating namespace, then finalizes it, which removes it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import orjson

from fakeapi.kinds.namespace.strategy import KUBERNETES_FINALIZER
from fakeapi.machinery.errors import NotFound, StatusError
from fakeapi.machinery.types import JSON
from fakeapi.registry.generic import Registry
from fakeapi.registry.options import DeleteOptions, WriteOptions
from fakeapi.storage.store import Event

MANAGER = "kube-controller-manager"


class NamespaceController:
    def __init__(self, namespaces: Registry, namespaced: Callable[[], list[Registry]]) -> None:
        self.namespaces = namespaces
        self.finalize = namespaces.subresource("finalize")
        self.namespaced = namespaced
        self._pending: set[str] = set()
        # namespaces being deleted (a restarted server's come from its store)
        stored = [orjson.loads(data) for data in namespaces.list_all()]
        self._terminating = {namespace["metadata"]["name"] for namespace in stored if _deleting(namespace)}

    def resume(self) -> None:
        """Work on the namespaces that were terminating when the server stopped."""
        for name in self._terminating:
            self._schedule(name)

    def on_event(self, event: Event) -> None:
        """Store listener: runs inside a write, so the work is deferred to the event loop."""
        if event.key.resource == "namespaces":
            name = event.key.name
            deleting = event.type != "DELETED" and _deleting(orjson.loads(event.data))
            (self._terminating.add if deleting else self._terminating.discard)(name)
        else:
            name = event.key.namespace
        if name in self._terminating:
            self._schedule(name)

    def _schedule(self, name: str) -> None:
        if name not in self._pending:
            self._pending.add(name)
            asyncio.get_running_loop().call_soon(self.sync, name)

    def sync(self, name: str) -> None:
        self._pending.discard(name)
        namespace = self.namespaces.find("", name)
        if namespace is None or not _deleting(namespace):
            return
        remaining = 0
        for registry in self.namespaced():
            for data in registry.list_all(name):
                obj_name = orjson.loads(data)["metadata"]["name"]
                # (upstream's deleter asks for background propagation: dependents go whatever their kind)
                options = DeleteOptions(grace_period_seconds=0, propagation_policy="Background")
                try:
                    _obj, gone = registry.delete(name, obj_name, options)
                except NotFound:
                    continue
                except StatusError:  # (refused, by an admission policy say: the namespace waits, as upstream's)
                    remaining += 1
                    continue
                remaining += not gone
        if remaining:
            return  # objects with finalizers hold the namespace; their removal triggers another sync
        finalizers = (namespace.get("spec") or {}).get("finalizers") or []
        if KUBERNETES_FINALIZER in finalizers:
            namespace["spec"]["finalizers"] = [f for f in finalizers if f != KUBERNETES_FINALIZER]
            try:
                self.finalize.update("", name, namespace, WriteOptions(field_manager=MANAGER))
            except StatusError:
                pass  # (refused: the namespace stays Terminating until a change brings it back here)


def _deleting(namespace: JSON) -> bool:
    return bool((namespace.get("metadata") or {}).get("deletionTimestamp"))
