"""The controllers' shared informers: per resource, its objects kept current from the store's changes, indexed
by namespace and by the uid of their controller (the owner reference with `controller: true`), with the
handlers that turn each change into queued work.

An informer exists only once a controller asks for it, and is filled from the store when the controllers
start (as informers list before they watch). Pods are kept as `Pod` summaries, other kinds as parsed objects.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

import orjson

from fakeapi.machinery.types import JSON
from fakeapi.simulation.controllers.pods import Pod, controller_uid, summarize
from fakeapi.storage.store import Event, Store

T = TypeVar("T")
Key = tuple[str, str]  # namespace ("" for cluster-scoped objects), name
Handler = Callable[[Any, Any], None]  # (old, new), None for an object that is absent


class Informer(Generic[T]):
    def __init__(self, resource: str, convert: Callable[[JSON, bytes], T], key_of: Callable[[T], Key],
                 controller_of: Callable[[T], str]) -> None:
        self.resource = resource  # the group resource its objects are stored under
        self._convert = convert
        self._key_of = key_of
        self._controller_of = controller_of
        self._objects: dict[Key, T] = {}
        self._by_namespace: dict[str, dict[str, T]] = {}
        self._by_controller: dict[str, dict[Key, T]] = {}
        self._orphans: dict[str, dict[str, T]] = {}  # namespace -> objects without a controller
        self.handlers: list[Handler] = []

    def add_handler(self, handler: Handler) -> None:
        self.handlers.append(handler)

    # ---- reads

    def get(self, namespace: str, name: str) -> T | None:
        return self._objects.get((namespace, name))

    def items(self, namespace: str | None = None) -> list[T]:
        if namespace is None:
            return list(self._objects.values())
        return list(self._by_namespace.get(namespace, {}).values())

    def controlled_by(self, uid: str) -> list[T]:
        """The objects whose controller is the object with this uid."""
        return list(self._by_controller.get(uid, {}).values())

    def orphans(self, namespace: str) -> list[T]:
        """The objects of a namespace that no controller owns."""
        return list(self._orphans.get(namespace, {}).values())

    # ---- keeping current

    def load(self, store: Store) -> None:
        self.clear()
        for _key, data in store.items(self.resource):
            self._put(self._convert(orjson.loads(data), data))

    def clear(self) -> None:
        self._objects.clear()
        self._by_namespace.clear()
        self._by_controller.clear()
        self._orphans.clear()

    def apply(self, event: Event, obj: JSON | None) -> None:
        """Take in a change of one of its objects (`obj`: the parsed object, None for a deletion), then tell the
        handlers."""
        old = self._objects.get((event.key.namespace, event.key.name))
        if old is not None:
            self._drop(old)
        new = None
        if event.type != "DELETED":
            new = self._convert(obj if obj is not None else orjson.loads(event.data), event.data)
            self._put(new)
        for handler in self.handlers:
            handler(old, new)

    def _put(self, item: T) -> None:
        key = self._key_of(item)
        self._objects[key] = item
        self._by_namespace.setdefault(key[0], {})[key[1]] = item
        controller = self._controller_of(item)
        if controller:
            self._by_controller.setdefault(controller, {})[key] = item
        else:
            self._orphans.setdefault(key[0], {})[key[1]] = item

    def _drop(self, item: T) -> None:
        key = self._key_of(item)
        self._objects.pop(key, None)
        names = self._by_namespace.get(key[0])
        if names is not None:
            names.pop(key[1], None)
            if not names:
                del self._by_namespace[key[0]]
        controller = self._controller_of(item)
        if not controller:
            orphans = self._orphans.get(key[0])
            if orphans is not None:
                orphans.pop(key[1], None)
                if not orphans:
                    del self._orphans[key[0]]
            return
        owned = self._by_controller.get(controller)
        if owned is not None:
            owned.pop(key, None)
            if not owned:
                del self._by_controller[controller]


def object_key(obj: JSON) -> Key:
    meta: JSON = obj["metadata"]
    return meta.get("namespace", ""), meta["name"]


def object_controller(obj: JSON) -> str:
    return controller_uid((obj.get("metadata") or {}).get("ownerReferences") or [])


def _keep(obj: JSON, _data: bytes) -> JSON:
    return obj


class Informers:
    """The informers the controllers asked for, by the group resource they store under."""

    def __init__(self) -> None:
        self._informers: dict[str, Informer[Any]] = {}
        self._everything: list[Callable[[Event, JSON | None], None]] = []

    def objects(self, resource: str) -> Informer[JSON]:
        """The informer of a resource's objects, kept whole (`deployments.apps`)."""
        informer = self._informers.get(resource)
        if informer is None:
            informer = self._informers[resource] = Informer(resource, _keep, object_key, object_controller)
        return informer

    def pods(self) -> Informer[Pod]:
        informer = self._informers.get("pods")
        if informer is None:
            informer = self._informers["pods"] = Informer("pods", summarize, _pod_key, _pod_controller)
        return informer

    def every_change(self, listener: Callable[[Event, JSON | None], None]) -> None:
        """Hear of every change of every object (the garbage collector's graph): the event and the parsed
        object (None for a deletion)."""
        self._everything.append(listener)

    def load(self, store: Store) -> None:
        for informer in self._informers.values():
            informer.load(store)

    def clear(self) -> None:
        for informer in self._informers.values():
            informer.clear()

    def apply(self, event: Event, obj: JSON | None) -> None:
        """A change in the store (`obj`: the object parsed already, if it was)."""
        informer = self._informers.get(event.key.resource)
        if informer is None and not self._everything:
            return
        if obj is None and event.type != "DELETED":
            obj = orjson.loads(event.data)
        for listener in self._everything:
            listener(event, obj if event.type != "DELETED" else None)
        if informer is not None:
            informer.apply(event, obj)


def _pod_key(pod: Pod) -> Key:
    return pod.namespace, pod.name


def _pod_controller(pod: Pod) -> str:
    return pod.controller_uid
