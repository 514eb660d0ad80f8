"""The versioned store: one global resourceVersion, objects kept as serialised bytes.

The store is synchronous: no `await` happens inside a call, so on the event loop every call is
atomic and compare-and-swap needs no lock. Objects go in as dicts and are kept only as JSON bytes,
so no caller ever holds a reference to a stored object; reads hand out fresh dicts or the bytes.

The objects are served from memory. A `Journal` (optional) makes them durable: the store loads from
it once, and stores every write in it before the write takes effect, so a write is acknowledged
only once the journal holds it. The change history for watches stays in memory, as upstream's
watch cache does: after a restart, watches from an earlier resourceVersion get 410 Expired.

What callers use, and all that another backend must provide:
- reads: `resource_version`, `get`/`get_bytes`/`exists` of one key, `list_bytes` and `items` (a list
  in storage-key order, without and with keys), `keys_in_order` (the keys, cached, for pages) and
  `objects_at` (a list as it was at an earlier resourceVersion, for consistent pages);
- writes: `create`, `update` (with the expected resourceVersion as precondition), `delete` (with an
  optional one), and `snapshot`/`restore` of everything (the control API's reset and snapshots);
- watch: `events_since` a resourceVersion (or Expired), and `subscribe` to every later change (and
  `unsubscribe`; `after_delivery` runs a listener's reaction once the change has reached every
  listener).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import NamedTuple, Protocol

import orjson

from fakeapi.machinery.errors import AlreadyExists, Conflict, Expired, NotFound
from fakeapi.machinery.types import JSON, ObjectKey

DEFAULT_HISTORY = 10_000
DEFAULT_HISTORY_AGE = 75.0  # seconds, as upstream's watch cache keeps events fresh (eventFreshDuration)
DEFAULT_HISTORY_BYTES = 128 * 1024 * 1024


class Event(NamedTuple):
    """One change: the object's bytes at `resource_version`, and its previous bytes if any.
    (A NamedTuple: made on every write, and a third of the cost of a frozen dataclass.)"""

    type: str  # ADDED | MODIFIED | DELETED
    key: ObjectKey
    resource_version: int
    data: bytes
    previous: bytes | None


Listener = Callable[[Event], None]


def namespace_order(namespace: str) -> str:
    """Sort key of a namespace as upstream orders objects: by storage key `<namespace>/<name>`."""
    return namespace + "/"


# resource -> namespace -> name -> (resourceVersion, bytes)
Objects = dict[str, dict[str, dict[str, tuple[str, bytes]]]]


class Journal(Protocol):
    """Where a durable store keeps its objects. Every call returns only once what it wrote is stored
    (and raises, storing nothing, if it cannot be)."""

    def load(self) -> tuple[Objects, int]:
        """The objects stored, and the last resourceVersion handed out (0 for a new journal)."""
        ...

    def write(self, key: ObjectKey, resource_version: int, data: bytes | None) -> None:
        """One write: the object's bytes at `resource_version`, or None when it was deleted at it."""
        ...

    def replace(self, objects: Objects, resource_version: int) -> None:
        """Every object at once (a reset or a restored snapshot), at `resource_version`."""
        ...

    def close(self) -> None: ...


class StorageError(Exception):
    """A journal that cannot be used (a damaged or foreign file, say): one line naming the cause."""


@dataclass(frozen=True, slots=True)
class StoreSnapshot:
    """Every object at one moment. Stored objects are immutable bytes: this copies the indexes only."""

    objects: Objects
    resource_version: int

    def __len__(self) -> int:
        return sum(len(names) for spaces in self.objects.values() for names in spaces.values())


def _copy_objects(objects: Objects) -> Objects:
    return {resource: {ns: dict(names) for ns, names in spaces.items() if names}
            for resource, spaces in objects.items()}


def encode(obj: JSON) -> bytes:
    # orjson's result sits in an oversized buffer; copying right-sizes it (much less memory per pod)
    return bytes(memoryview(orjson.dumps(obj)))


def event_size(event: Event) -> int:
    """What a change holds in the history: its object's bytes before and after (an object that two changes
    share, as the after of one and the before of the next, counts twice: the bound errs on the safe side)."""
    return len(event.data) + (len(event.previous) if event.previous is not None else 0)


class Store:
    def __init__(self, history: int = DEFAULT_HISTORY, history_age: float | None = DEFAULT_HISTORY_AGE,
                 now: Callable[[], float] = time.monotonic, journal: Journal | None = None,
                 history_bytes: int = DEFAULT_HISTORY_BYTES) -> None:
        """At most `history` changes holding `history_bytes` are kept for watches (the newest always), each
        forgotten after `history_age` seconds (None or 0: whatever its age) on the `now` clock."""
        self._journal = journal
        self._objects, self._rv = journal.load() if journal is not None else ({}, 0)
        self._history: deque[Event] = deque()
        self._recorded: deque[float] = deque()  # when each history event happened
        self._history_limit = max(1, history)
        self._history_bytes_limit = history_bytes
        self._history_bytes = 0
        self._history_age = history_age or None
        self._now = now
        self._compacted_rv = self._rv  # changes up to here are no longer replayable
        self._listeners: list[Listener] = []
        # work listeners asked to run once the change they heard about has reached every listener
        self._after_delivery: deque[Callable[[], None]] = deque()
        self._delivering = False
        self._running_after_delivery = False
        # (resource, namespace or None) -> keys in storage order; dropped when an object comes or goes
        self._key_order: dict[tuple[str, str | None], list[tuple[str, ObjectKey]]] = {}

    # ---- reads

    @property
    def resource_version(self) -> int:
        return self._rv

    def get_bytes(self, key: ObjectKey) -> bytes:
        entry = self._objects.get(key.resource, {}).get(key.namespace, {}).get(key.name)
        if entry is None:
            raise NotFound.for_object(key.resource, key.name)
        return entry[1]

    def get(self, key: ObjectKey) -> JSON:
        obj: JSON = orjson.loads(self.get_bytes(key))
        return obj

    def exists(self, key: ObjectKey) -> bool:
        return key.name in self._objects.get(key.resource, {}).get(key.namespace, {})

    def list_bytes(self, resource: str, namespace: str | None = None) -> list[bytes]:
        """Every object of a resource (in one namespace, or all), in storage-key order (namespace, name)."""
        spaces = self._objects.get(resource, {})
        names = [namespace] if namespace is not None else sorted(spaces, key=namespace_order)
        out: list[bytes] = []
        for ns in names:
            objects = spaces.get(ns)
            if objects:
                out.extend(objects[name][1] for name in sorted(objects))
        return out

    def items(self, resource: str, namespace: str | None = None) -> Iterator[tuple[ObjectKey, bytes]]:
        """As `list_bytes`, with each object's key."""
        spaces = self._objects.get(resource, {})
        for ns in [namespace] if namespace is not None else sorted(spaces, key=namespace_order):
            objects = spaces.get(ns, {})
            for name in sorted(objects):
                yield ObjectKey(resource, ns, name), objects[name][1]

    def keys_in_order(self, resource: str, namespace: str | None) -> list[tuple[str, ObjectKey]]:
        """(relative key, key) of every object, in storage-key order; the relative key is `ns/name`
        across namespaces (`name` for cluster-scoped objects) and `name` inside one. Cached: do not
        modify the list."""
        cached = self._key_order.get((resource, namespace))
        if cached is None:
            across = namespace is None
            cached = [(f"{key.namespace}/{key.name}" if across and key.namespace else key.name, key)
                      for key, _data in self.items(resource, namespace)]
            self._key_order[(resource, namespace)] = cached
        return cached

    def objects_at(self, resource: str, namespace: str | None,
                   resource_version: int) -> dict[ObjectKey, bytes]:
        """The objects as they were at `resource_version` (unordered), rebuilt from today's objects by
        undoing every later change; Expired if some of those changes were forgotten."""
        spaces = self._objects.get(resource, {})
        current: dict[ObjectKey, bytes] = {}
        for ns in [namespace] if namespace is not None else list(spaces):
            for name, (_rv, data) in spaces.get(ns, {}).items():
                current[ObjectKey(resource, ns, name)] = data
        if resource_version >= self._rv:
            return current
        undone: set[ObjectKey] = set()
        for event in self.events_since(resource_version):
            key = event.key
            if key.resource != resource or (namespace is not None and key.namespace != namespace):
                continue
            if key in undone:
                continue
            undone.add(key)  # the first later change holds the state at resource_version
            if event.previous is None:
                current.pop(key, None)
            else:
                current[key] = event.previous
        return current

    # ---- writes

    def create(self, key: ObjectKey, obj: JSON) -> bytes:
        objects = self._objects.setdefault(key.resource, {}).setdefault(key.namespace, {})
        if key.name in objects:
            raise AlreadyExists.for_object(key.resource, key.name)
        rv, data = self._stamp(obj)
        self._commit(key, rv, data)
        objects[key.name] = (str(rv), data)
        self._forget_order(key)
        self._emit(Event("ADDED", key, rv, data, None))
        return data

    def update(self, key: ObjectKey, obj: JSON, expected_rv: str) -> bytes:
        """Replace the object if its resourceVersion is still `expected_rv`, else Conflict."""
        objects = self._objects.get(key.resource, {}).get(key.namespace, {})
        entry = objects.get(key.name)
        if entry is None:
            raise NotFound.for_object(key.resource, key.name)
        if entry[0] != expected_rv:
            raise Conflict.modified(key.resource, key.name)
        rv, data = self._stamp(obj)
        self._commit(key, rv, data)
        objects[key.name] = (str(rv), data)
        self._emit(Event("MODIFIED", key, rv, data, entry[1]))
        return data

    def delete(self, key: ObjectKey, expected_rv: str | None = None) -> bytes:
        """Remove the object; the returned bytes (and the DELETED event) carry a new resourceVersion."""
        objects = self._objects.get(key.resource, {}).get(key.namespace, {})
        entry = objects.get(key.name)
        if entry is None:
            raise NotFound.for_object(key.resource, key.name)
        if expected_rv is not None and entry[0] != expected_rv:
            raise Conflict.modified(key.resource, key.name)
        obj: JSON = orjson.loads(entry[1])
        rv, data = self._stamp(obj)
        self._commit(key, rv, None)
        del objects[key.name]
        self._forget_order(key)
        self._emit(Event("DELETED", key, rv, data, entry[1]))
        return data

    def snapshot(self) -> StoreSnapshot:
        return StoreSnapshot(_copy_objects(self._objects), self._rv)

    def restore(self, snapshot: StoreSnapshot) -> None:
        """Put back the objects of a snapshot. The resourceVersion counts on (never back), and the change
        history is dropped, so a watcher resuming from any earlier version gets 410 Expired and relists."""
        objects = _copy_objects(snapshot.objects)
        rv = self._rv + 1
        if self._journal is not None:
            self._journal.replace(objects, rv)
        self._objects = objects
        self._key_order.clear()
        self._rv = rv
        self._history.clear()
        self._recorded.clear()
        self._history_bytes = 0
        self._compacted_rv = self._rv

    # ---- change history

    def events_since(self, resource_version: int) -> list[Event]:
        """Every change after `resource_version`, oldest first; Expired if some were forgotten.

        The message is the watch cache's: the second number is the oldest version still replayable from.
        """
        self._forget_old()
        if resource_version < self._compacted_rv:
            raise Expired(f"too old resource version: {resource_version} ({self._compacted_rv})")
        if resource_version >= self._rv:
            return []
        return [event for event in self._history if event.resource_version > resource_version]

    def subscribe(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def unsubscribe(self, listener: Listener) -> None:
        self._listeners.remove(listener)

    def after_delivery(self, work: Callable[[], None]) -> None:
        """Run `work` once the change being announced has reached every listener (at once when none is).
        How a listener writes in reaction to a change (a controller) without its own change reaching
        watchers before the one it reacts to."""
        self._after_delivery.append(work)
        if not self._delivering:
            self._run_after_delivery()

    def close(self) -> None:
        if self._journal is not None:
            self._journal.close()

    # ---- internals

    def _stamp(self, obj: JSON) -> tuple[int, bytes]:
        """The object's bytes at the next resourceVersion, which `_commit` takes: a write that fails
        before (its encoding, say) uses up no resourceVersion."""
        rv = self._rv + 1
        obj.setdefault("metadata", {})["resourceVersion"] = str(rv)
        return rv, encode(obj)

    def _commit(self, key: ObjectKey, rv: int, data: bytes | None) -> None:
        """Take `rv` for a write, once the journal (if any) has stored it."""
        if self._journal is not None:
            self._journal.write(key, rv, data)
        self._rv = rv

    def _emit(self, event: Event) -> None:
        history = self._history
        now = self._now()
        history.append(event)
        self._recorded.append(now)
        self._history_bytes += event_size(event)
        while len(history) > self._history_limit or (self._history_bytes > self._history_bytes_limit
                                                    and len(history) > 1):
            self._forget_oldest()
        if self._history_age is not None:
            self._forget_before(now - self._history_age)
        self._delivering = True
        try:
            for listener in self._listeners:
                listener(event)
        finally:
            self._delivering = False
        if self._after_delivery:
            self._run_after_delivery()

    def _run_after_delivery(self) -> None:
        if self._running_after_delivery:
            return  # a write made by queued work: the loop below runs what it queued, in order
        self._running_after_delivery = True
        try:
            while self._after_delivery:
                self._after_delivery.popleft()()
        finally:
            self._running_after_delivery = False

    def _forget_order(self, key: ObjectKey) -> None:
        if self._key_order:
            self._key_order.pop((key.resource, key.namespace), None)
            self._key_order.pop((key.resource, None), None)

    def _forget_old(self) -> None:
        if self._history_age is not None:
            self._forget_before(self._now() - self._history_age)

    def _forget_before(self, horizon: float) -> None:
        recorded = self._recorded
        while len(recorded) > 1 and recorded[0] < horizon:  # the newest change always stays replayable
            self._forget_oldest()

    def _forget_oldest(self) -> None:
        """The oldest change is no longer replayable: a watch from before it gets 410 Expired."""
        self._recorded.popleft()
        event = self._history.popleft()
        self._history_bytes -= event_size(event)
        self._compacted_rv = event.resource_version

    @property
    def history_bytes(self) -> int:
        """What the change history holds now (see `event_size`)."""
        return self._history_bytes

