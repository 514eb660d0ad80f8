"""The etcd store: objects in etcd, served from a cache of every object, as kube-apiserver's watch cache.

The cache is the in-memory `Store`'s: reads, lists, watches and the change history are served from it. It
is filled once from etcd (a list at one revision) and then only by the watch feed (`feed.py`), on the event
loop's thread, in revision order: a server's own writes reach its cache the same way as every other
server's, so every server applies the same changes in the same order and watchers see no gaps.

Writes are etcd transactions on the object's mod_revision (create: the key is missing; update and delete:
the resourceVersion the caller read), made synchronously on the loop's thread (a round trip on loopback),
so each store call stays atomic as the contract says. A write that passed then applies the feed up to its
own revision before it returns (read your writes): the caller, and the listeners it triggers, see it.
Code run with `machinery.waiting.run_waiting` (the kubelets' lease renewals) waits for etcd, and for the
feed, without holding up the loop: its round trip runs in a thread while the loop goes on. It waits only
outside the delivery of a change, so listeners, and what they write, still see every change in order.
The resourceVersion is etcd's revision; objects are kept in etcd without it, as upstream keeps them.

While etcd is away (a refused or dropped connection, no answer within the timeout) writes and consistent
reads fail at once with the 504 kube-apiserver answers when its storage does not answer in time, and the
readiness check fails; a monitor thread notices when etcd answers again, and the feed watches again from
the revision after its last one (or lists everything again when etcd compacted it meanwhile).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

import orjson

from fakeapi.machinery.errors import AlreadyExists, Conflict, Expired, NotFound, Timeout, UnknownError
from fakeapi.machinery.types import JSON, ObjectKey
from fakeapi.machinery.waiting import can_wait, wait
from fakeapi.storage.etcd.client import (
    EtcdClient,
    EtcdCompacted,
    EtcdError,
    EtcdUnavailable,
    KeyValue,
    TxnResult,
)
from fakeapi.storage.etcd.compactor import Compactor
from fakeapi.storage.etcd.config import EtcdConfig
from fakeapi.storage.etcd.feed import Change, Compacted, Feed
from fakeapi.storage.etcd.layout import KeyLayout
from fakeapi.storage.etcd.reads import QuorumReads
from fakeapi.storage.store import (
    DEFAULT_HISTORY,
    DEFAULT_HISTORY_AGE,
    DEFAULT_HISTORY_BYTES,
    Event,
    StorageError,
    Store,
    StoreSnapshot,
    encode,
)

log = logging.getLogger("fakeapi.storage")

CALL_TIMEOUT = 5.0  # seconds a call to etcd may take before etcd counts as away
CATCH_UP_TIMEOUT = 5.0  # seconds a write waits for the feed to bring its own change
FRESHNESS_WAIT = 3.0  # a consistent read waits this long for the cache (upstream's watch cache: 3 s)
MONITOR_INTERVAL = 1.0  # seconds between health checks while etcd answers (0.25 while it does not)
WAITING_CALLS = 16  # round trips to etcd that code run with run_waiting makes at once, at most
MAX_TXN_OPS = 100  # etcd refuses transactions of more than 128 operations (its --max-txn-ops)
TIMEOUT_MESSAGE = "Timeout: request did not complete within the allotted timeout"

Result = TypeVar("Result")


def storage_timeout() -> Timeout:
    """What kube-apiserver answers when etcd does not (its request deadline passes)."""
    return Timeout(TIMEOUT_MESSAGE)


def stamped(value: bytes, revision: int) -> bytes | None:
    """An object's bytes as served: etcd's value with its resourceVersion (None: not a JSON object)."""
    try:
        obj = orjson.loads(value)
    except orjson.JSONDecodeError:
        return None
    if type(obj) is not dict:
        return None
    meta = obj.get("metadata")
    if type(meta) is not dict:
        return None
    meta["resourceVersion"] = str(revision)
    return encode(obj)


class EtcdStore(Store):
    shared = True

    def __init__(self, config: EtcdConfig, history: int = DEFAULT_HISTORY,
                 history_age: float | None = DEFAULT_HISTORY_AGE, now: Callable[[], float] = time.monotonic,
                 history_bytes: int = DEFAULT_HISTORY_BYTES, timeout: float = CALL_TIMEOUT) -> None:
        """Read every object from etcd (StorageError when etcd cannot be reached) and follow its changes."""
        super().__init__(history, history_age, now, None, history_bytes)
        self.config = config
        self.layout = KeyLayout(config.prefix)
        self._client = EtcdClient(config, timeout)
        try:
            revision = self._load()
        except (EtcdUnavailable, EtcdError) as error:
            self._client.close()
            raise StorageError(f"cannot read from etcd at {config} ({error}); start etcd, or check the "
                               f"endpoints given to --storage and the --etcd-* flags") from None
        self._available = True
        self._problem: str | None = None
        self._silent = False  # apply changes without telling listeners (a restore, a relist)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._drain_scheduled = False
        self._applying = 0  # inside `_apply`: a change being delivered (nothing waits there)
        self._drained: list[asyncio.Future[None]] = []  # waiting for the feed's next changes
        self._calls = ThreadPoolExecutor(WAITING_CALLS, thread_name_prefix="fakeapi-etcd-call")
        # (the watch on a channel of its own: sharing the writes' channel slows both)
        self._feed = Feed(EtcdClient(config, timeout), revision)
        self._stopping = threading.Event()
        self._monitor = threading.Thread(target=self._watch_health, name="fakeapi-etcd-health", daemon=True)
        self._monitor.start()
        self._reads = QuorumReads(EtcdClient(config, timeout))
        self._compactor = Compactor(EtcdClient(config, timeout), config.compaction_interval) \
            if config.compaction_interval > 0 else None

    # ---- life

    def start(self) -> None:
        """Apply the feed on the running loop as soon as it brings changes."""
        self._loop = asyncio.get_running_loop()
        self._feed.set_wake(self._wake)
        self._drain()

    def close(self) -> None:
        self._stopping.set()
        self._feed.stop()
        if self._compactor is not None:
            self._compactor.stop()
        self._reads.close()
        self._calls.shutdown(wait=False, cancel_futures=True)
        self._client.close()

    def problem(self) -> str | None:
        if not self._available:
            return self._problem or "etcd does not answer"
        if not self._feed.connected:
            return "the watch on etcd is not open"
        return None

    async def consistent_read(self) -> None:
        """A quorum read of etcd's revision (batched with the reads arriving meanwhile, off the loop), then the
        cache brought up to it: upstream's consistent reads from the watch cache."""
        if not self._available:
            raise storage_timeout()
        try:
            revision = await self._reads.revision()
        except EtcdUnavailable as error:
            self._went_away(str(error))
            raise storage_timeout() from None
        except EtcdError as error:
            raise UnknownError(f"etcd: {error}") from None
        if not self._catch_up(revision, FRESHNESS_WAIT):
            raise storage_timeout()

    # ---- writes

    def create(self, key: ObjectKey, obj: JSON) -> bytes:
        value = self._value(obj)
        result = self._call(lambda: self._client.put_if(self.layout.key(key), value, 0))
        if not result.succeeded:
            self._catch_up(result.revision)
            raise AlreadyExists.for_object(key.resource, key.name)
        return self._written(key, obj, value, result)

    def update(self, key: ObjectKey, obj: JSON, expected_rv: str) -> bytes:
        try:
            expected = int(expected_rv)
        except ValueError:
            raise Conflict.modified(key.resource, key.name) from None
        value = self._value(obj)
        result = self._call(lambda: self._client.put_if(self.layout.key(key), value, expected))
        if not result.succeeded:
            self._catch_up(result.revision)
            if result.current is None:
                raise NotFound.for_object(key.resource, key.name)
            raise Conflict.modified(key.resource, key.name)
        return self._written(key, obj, value, result)

    def delete(self, key: ObjectKey, expected_rv: str | None = None) -> bytes:
        try:
            expected = int(expected_rv) if expected_rv is not None else None
        except ValueError:
            raise Conflict.modified(key.resource, key.name) from None
        result = self._call(lambda: self._client.delete_if(self.layout.key(key), expected))
        if not result.succeeded:
            self._catch_up(result.revision)
            if result.current is None:
                raise NotFound.for_object(key.resource, key.name)
            raise Conflict.modified(key.resource, key.name)
        self._caught_up_with(Change(self.layout.key(key), None, result.revision))
        previous = result.previous
        data = stamped(previous.value, result.revision) if previous is not None else None
        if data is None:  # (deleted meanwhile by another server: etcd has nothing to tell)
            raise NotFound.for_object(key.resource, key.name)
        return data

    def _value(self, obj: JSON) -> bytes:
        """The bytes etcd keeps: the object without its resourceVersion (the revision says it)."""
        obj.setdefault("metadata", {}).pop("resourceVersion", None)
        return encode(obj)

    def _written(self, key: ObjectKey, obj: JSON, value: bytes, result: TxnResult) -> bytes:
        """A write passed at `result.revision`: stamp the caller's object, and bring the cache up to it."""
        obj["metadata"]["resourceVersion"] = str(result.revision)
        self._caught_up_with(Change(self.layout.key(key), value, result.revision))
        entry = self._objects.get(key.resource, {}).get(key.namespace, {}).get(key.name)
        if entry is not None and entry[0] == str(result.revision):
            return entry[1]
        return encode(obj)

    def restore(self, snapshot: StoreSnapshot) -> None:
        """Put back a snapshot's objects: every key deleted, then the snapshot's written in transactions of
        at most MAX_TXN_OPS. This server's listeners are not told (as the in-memory store's restore); other
        servers see the changes as events. The history is dropped: watchers resuming get 410."""
        puts = [(self.layout.key(ObjectKey(resource, namespace, name)), self._value(orjson.loads(data)))
                for resource, spaces in snapshot.objects.items()
                for namespace, names in spaces.items()
                for name, (_rv, data) in names.items()]
        revision = self._call(lambda: self._client.delete_prefix(self.layout.root))
        for start in range(0, len(puts), MAX_TXN_OPS):
            batch = puts[start:start + MAX_TXN_OPS]
            revision = self._call(lambda batch=batch: self._client.put_all(batch))  # type: ignore[misc]
        self._silent = True
        try:
            self._catch_up(revision)
        finally:
            self._silent = False
        self._history.clear()
        self._recorded.clear()
        self._history_bytes = 0
        self._compacted_rv = self._rv

    # ---- reads at an earlier revision

    def objects_at(self, resource: str, namespace: str | None, resource_version: int) -> dict[ObjectKey, bytes]:
        """From the history while it holds the changes since; else from etcd at that revision (Expired once
        etcd compacted it)."""
        try:
            return super().objects_at(resource, namespace, resource_version)
        except Expired:
            pass
        prefix = self.layout.resource_prefix(resource, namespace)
        try:
            _at, kvs = self._call(lambda: self._client.range_prefix(prefix, resource_version))
            objects: dict[ObjectKey, bytes] = {}
            for kv in kvs:
                key = self.layout.object_key(kv.key)
                data = stamped(kv.value, kv.mod_revision)
                if key is not None and key.resource == resource and data is not None:
                    objects[key] = data
        except EtcdCompacted:
            raise Expired(f"too old resource version: {resource_version}") from None
        return objects

    # ---- etcd calls

    def _call(self, call: Callable[[], Result]) -> Result:
        """Run one call to etcd; while etcd is away, fail at once as kube-apiserver fails when it does not
        answer."""
        if not self._available:
            raise storage_timeout()
        try:
            if self._may_wait():
                assert self._loop is not None
                return wait(self._loop.run_in_executor(self._calls, call))
            return call()
        except EtcdUnavailable as error:
            self._went_away(str(error))
            raise storage_timeout() from None
        except EtcdError as error:
            raise UnknownError(f"etcd: {error}") from None

    def _may_wait(self) -> bool:
        """The caller runs with run_waiting, on the serving loop, and no change is being delivered."""
        return self._loop is not None and self._applying == 0 and can_wait()

    def _went_away(self, reason: str) -> None:
        if self._available:
            self._problem = f"etcd at {self.config} does not answer ({reason})"
            log.error("fakeapi: %s; writes fail until it answers again", self._problem)
        self._available = False

    def _watch_health(self) -> None:
        """The monitor thread: is etcd there? (A failed call says it went away; this says it is back.)"""
        client = EtcdClient(self.config, timeout=2.0)
        try:
            while not self._stopping.wait(MONITOR_INTERVAL if self._available else 0.25):
                healthy = client.healthy()
                if healthy and not self._available:
                    log.warning("fakeapi: etcd at %s answers again", self.config)
                    self._available = True
                elif not healthy:
                    self._went_away("its status does not answer")
        finally:
            client.close()

    # ---- the cache, fed by the watch

    def _load(self) -> int:
        revision, kvs = self._client.range_prefix(self.layout.root)
        for kv in kvs:
            self._put_loaded(kv)
        self._rv = self._compacted_rv = revision
        return revision

    def _put_loaded(self, kv: KeyValue) -> None:
        key = self.layout.object_key(kv.key)
        data = stamped(kv.value, kv.mod_revision) if key is not None else None
        if key is None or data is None:
            return
        self._objects.setdefault(key.resource, {}).setdefault(key.namespace, {})[key.name] = \
            (str(kv.mod_revision), data)

    def _wake(self) -> None:
        """From the feed's thread: changes wait; apply them on the loop."""
        loop = self._loop
        if loop is None or self._drain_scheduled:
            return
        self._drain_scheduled = True
        try:
            loop.call_soon_threadsafe(self._scheduled_drain)
        except RuntimeError:
            pass  # the loop is closed: the server stopped

    def _scheduled_drain(self) -> None:
        self._drain_scheduled = False
        self._drain()
        drained, self._drained = self._drained, []
        for future in drained:
            if not future.done():
                future.set_result(None)

    async def _next_changes(self, timeout: float) -> None:
        """Return once the feed's next changes are applied, or after `timeout`."""
        assert self._loop is not None
        future = self._loop.create_future()
        self._drained.append(future)
        await asyncio.wait([future], timeout=timeout)

    def _catch_up(self, revision: int, timeout: float = CATCH_UP_TIMEOUT) -> bool:
        """Apply the feed until the cache holds `revision` (False if it did not come within `timeout`)."""
        deadline = time.monotonic() + timeout
        while self._rv < revision:
            self._drain()
            if self._rv >= revision:
                break
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                log.warning("fakeapi: the etcd watch did not bring revision %d within %gs", revision, timeout)
                return False
            if self._may_wait():
                wait(self._next_changes(remaining))
            else:
                self._feed.wait(remaining)
        return True

    def _caught_up_with(self, own: Change) -> None:
        """Bring the cache up to this server's own write. When every revision before it is applied already,
        nobody else's change lies between: it is applied at once rather than waited for from the watch
        (which then brings it again, and it is skipped); else the watch brings the changes in order."""
        self._drain()
        if self._rv == own.revision - 1:
            self._apply(own)
        else:
            self._catch_up(own.revision)

    def _drain(self) -> None:
        """Apply every change the feed queued, in order (also from inside a write a listener made: the
        shared queue keeps the order)."""
        feed = self._feed
        while True:
            item = feed.take()
            if item is None:
                return
            if isinstance(item, Compacted):
                self._relist(item)
            elif item.revision > self._rv:  # (else: this server's own write, applied already)
                self._apply(item)

    def _apply(self, change: Change, at: int | None = None) -> None:
        """One change into the cache, told to listeners; `at`: the revision of the event when it is not the
        change's own (a relist tells what changed meanwhile at the relist's revision)."""
        self._applying += 1
        try:
            self._apply_change(change, at)
        finally:
            self._applying -= 1

    def _apply_change(self, change: Change, at: int | None) -> None:
        rv = change.revision if at is None else at
        key = self.layout.object_key(change.key)
        if key is None:  # another key of etcd (the compactor's, another cluster's): only the revision moves
            self._rv = max(self._rv, rv)
            return
        spaces = self._objects.setdefault(key.resource, {})
        objects = spaces.setdefault(key.namespace, {})
        entry = objects.get(key.name)
        if change.value is None:
            self._rv = rv
            if entry is None:
                return
            del objects[key.name]
            self._forget_order(key)
            if not self._silent:
                self._emit(Event("DELETED", key, rv, stamped(entry[1], rv) or entry[1], entry[1]))
            return
        data = stamped(change.value, change.revision)
        self._rv = rv
        if data is None:
            log.warning("fakeapi: %s in etcd is not a JSON object; it is left out", change.key)
            return
        objects[key.name] = (str(change.revision), data)
        if entry is None:
            self._forget_order(key)
        if not self._silent:
            self._emit(Event("ADDED" if entry is None else "MODIFIED", key, rv, data,
                             None if entry is None else entry[1]))

    def _relist(self, compacted: Compacted) -> None:
        """The feed's next revision was compacted away (this server was cut off from etcd for longer than
        the compaction interval): read everything again, tell listeners what changed (at the new revision),
        and drop the history (watchers resuming from before get 410, and re-list)."""
        log.warning("fakeapi: etcd compacted revision %d before this server read it; reading every object "
                    "again", compacted.revision)
        try:
            revision, kvs = self._client.range_prefix(self.layout.root)
            fresh: dict[ObjectKey, KeyValue] = {}
            for kv in kvs:
                key = self.layout.object_key(kv.key)
                if key is not None:
                    fresh[key] = kv
        except (EtcdUnavailable, EtcdError, EtcdCompacted) as error:
            log.error("fakeapi: reading etcd again failed (%s); trying again", error)
            self._feed.restart_from(compacted.revision - 1)
            return
        changes = [Change(self.layout.key(key), None, revision) for key in self._cached_keys() if key not in fresh]
        changes += [Change(kv.key, kv.value, kv.mod_revision) for key, kv in fresh.items()
                    if self._cached_rv(key) != str(kv.mod_revision)]
        for change in changes:
            self._apply(change, at=revision)
        self._rv = revision
        self._history.clear()
        self._recorded.clear()
        self._history_bytes = 0
        self._compacted_rv = revision
        self._feed.restart_from(revision)

    def _cached_keys(self) -> list[ObjectKey]:
        return [ObjectKey(resource, namespace, name) for resource, spaces in self._objects.items()
                for namespace, names in spaces.items() for name in names]

    def _cached_rv(self, key: ObjectKey) -> str | None:
        entry = self._objects.get(key.resource, {}).get(key.namespace, {}).get(key.name)
        return entry[0] if entry is not None else None


__all__ = ["EtcdStore", "storage_timeout"]
