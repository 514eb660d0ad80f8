"""The watch hub: fans store changes out to every open watch, as upstream's watch cache (cacher) does.

The store calls `WatchHub.on_event` synchronously inside every write, so that call does O(watchers) cheap
work: each event is framed once and the same bytes are queued for every unfiltered watcher; only watchers
with selectors parse the object (once per event, shared between them). Each watcher has a bounded deque
and a sink (the HTTP stream that writes it out) that is told when there is something to write. A watcher
that falls too far behind is cut off with a 410 ERROR event (its client re-lists) instead of growing
without bound or slowing anybody down. No HTTP is spoken here.
"""

from __future__ import annotations

import asyncio
import random
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import orjson

from fakeapi.machinery.clock import Clock
from fakeapi.machinery.errors import Expired, StatusError, Timeout, with_retry_after
from fakeapi.machinery.labels import LabelSelector
from fakeapi.machinery.selectors import FieldSelector
from fakeapi.machinery.types import JSON
from fakeapi.storage.store import Event, Store

DEFAULT_WATCH_BUFFER = 10_000  # events a watcher may have pending before it is cut off
DEFAULT_WATCH_BUFFER_BYTES = 64 * 1024 * 1024  # ... and bytes (events are shared between watchers: an upper bound)
FRESHNESS_WAIT = 3.0  # upstream's watch cache waits this long for a resourceVersion it has not seen yet
MIN_REQUEST_TIMEOUT = 1800.0  # a watch without timeoutSeconds lasts 1-2x this, as upstream picks it
PRE_TIMEOUT_BOOKMARK = 2.0  # upstream sends a bookmark this long before a watch times out
INITIAL_EVENTS_END = "k8s.io/initial-events-end"

_TYPES = {"ADDED": b"ADDED", "MODIFIED": b"MODIFIED", "DELETED": b"DELETED"}

ObjectFilter = Callable[[JSON], bool]


class Renderer(Protocol):
    """Frames events of a watch that does not take them as plain JSON (a Table watch)."""

    def frame(self, event_type: str, obj: JSON) -> bytes: ...


class Sink(Protocol):
    """Where a watcher's events go: told when there is something new (or the end) to write, and asked
    whether anybody still reads."""

    def notify(self) -> None: ...

    def gone(self) -> bool: ...


class NoSink:
    """For watchers nobody streams: a replay probe, a watch that only carries an error."""

    def notify(self) -> None:
        pass

    def gone(self) -> bool:
        return False


def frame(event_type: str, data: bytes) -> bytes:
    """One event on the wire: `{"type":..,"object":..}` and a newline."""
    return b'{"type":"' + event_type.encode() + b'","object":' + data + b"}\n"


def error_event(error: StatusError) -> bytes:
    return frame("ERROR", orjson.dumps(error.to_status()))


def too_large_resource_version(requested: int, current: int, retry_after: int = 1) -> Timeout:
    """Upstream's storage.NewTooLargeResourceVersionError: a 504 the client retries after a second."""
    cause = {"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}
    message = f"Timeout: Too large resource version: {requested}, current: {current}"
    error = Timeout(message, {"causes": [cause]})
    if retry_after:
        with_retry_after(error, retry_after)
    return error


def bookmark_object(kind: str, api_version: str, resource_version: int, initial_events_end: bool = False) -> JSON:
    meta: JSON = {"resourceVersion": str(resource_version)}
    if initial_events_end:
        meta["annotations"] = {INITIAL_EVENTS_END: "true"}
    return {"kind": kind, "apiVersion": api_version, "metadata": meta}


def object_filter(labels: LabelSelector | None, fields: FieldSelector | None) -> ObjectFilter | None:
    """A predicate over parsed objects for the selectors given, or None when they select everything."""
    if labels is None and fields is None:
        return None

    def matches(obj: JSON) -> bool:
        if labels is not None and not labels.matches((obj.get("metadata") or {}).get("labels")):
            return False
        return fields is None or fields.matches_object(obj)

    return matches


def _presented(event: Event, present: Callable[[bytes], bytes]) -> Event:
    """A store event as a resource that serves another kind's stored objects sees it."""
    previous = None if event.previous is None else present(event.previous)
    return event._replace(data=present(event.data), previous=previous)


class Change:
    """One store event as watchers see it: framed once for all, parsed only when some watcher filters."""

    __slots__ = ("event", "_framed", "_new", "_old")

    def __init__(self, event: Event) -> None:
        self.event = event
        self._framed: bytes | None = None
        self._new: JSON | None = None
        self._old: JSON | None = None

    def framed(self) -> bytes:
        if self._framed is None:
            event = self.event
            self._framed = b'{"type":"' + _TYPES[event.type] + b'","object":' + event.data + b"}\n"
        return self._framed

    def new(self) -> JSON:
        """The object after the change (shared between watchers: never mutate it)."""
        if self._new is None:
            self._new = orjson.loads(self.event.data)
        return self._new

    def old(self) -> JSON | None:
        if self._old is None and self.event.previous is not None:
            self._old = orjson.loads(self.event.previous)
        return self._old


@dataclass(frozen=True)
class WatchSpec:
    """What one watch asks for, already validated."""

    resource: str
    kind: str
    api_version: str
    namespace: str | None  # None: every namespace (or a cluster-scoped resource)
    name: str | None  # a single object (fieldSelector metadata.name=X)
    matches: ObjectFilter | None  # None: the namespace and name scope is the whole filter
    resource_version: int | None  # None: the request gave no version, or "0"
    send_initial_events: bool | None
    allow_bookmarks: bool
    timeout: float
    # the objects as the watched resource serves them, for one that serves another kind's stored objects
    present: Callable[[bytes], bytes] | None = None


class Watcher:
    """One open watch: its scope and filter, a bounded queue of framed events, and its sink."""

    __slots__ = ("spec", "table", "sink", "queue", "queued_bytes", "limit", "bytes_limit", "closed", "start_rv",
                 "queued_rv", "written_rv", "next_bookmark", "deadline", "timer")

    def __init__(self, spec: WatchSpec, table: Renderer | None, sink: Sink, limit: int, start_rv: int,
                 bytes_limit: int = DEFAULT_WATCH_BUFFER_BYTES) -> None:
        self.spec = spec
        self.table = table
        self.sink = sink
        self.queue: deque[bytes] = deque()
        self.queued_bytes = 0  # of the events live changes queued (the initial ones are written at once)
        self.limit = limit
        self.bytes_limit = bytes_limit
        self.closed = False
        self.start_rv = start_rv  # events and bookmarks at or below this are never sent
        self.queued_rv = start_rv
        self.written_rv = start_rv  # the sink moves this as it writes
        self.next_bookmark: float | None = None
        self.deadline: float | None = None  # on the clock's monotonic scale, for the pre-timeout bookmark
        self.timer: asyncio.TimerHandle | None = None

    def render(self, change: Change) -> bytes | None:
        """The event this watcher sees for a change, as upstream's cacheWatcher decides it."""
        event = change.event
        matches = self.spec.matches
        if matches is None:
            if self.table is None:
                return change.framed()
            return self.table.frame(event.type, change.new())
        now_matches = event.type != "DELETED" and matches(change.new())
        old = change.old()
        old_matched = old is not None and matches(old)
        if now_matches:
            event_type = "MODIFIED" if old_matched else "ADDED"
            if self.table is not None:
                return self.table.frame(event_type, change.new())
            return change.framed() if event_type == event.type else frame(event_type, event.data)
        if not old_matched or old is None:
            return None
        # stopped matching: a DELETED event with the old content at the event's resourceVersion
        if event.type == "DELETED":
            if self.table is not None:
                return self.table.frame("DELETED", change.new())
            return change.framed()
        gone = {**old, "metadata": {**(old.get("metadata") or {}),
                                    "resourceVersion": str(event.resource_version)}}
        if self.table is not None:
            return self.table.frame("DELETED", gone)
        return frame("DELETED", orjson.dumps(gone))

    def push(self, data: bytes, resource_version: int) -> bool:
        """Queue an event; False when the queue overflowed (the caller cuts the watcher off)."""
        self.queue.append(data)
        self.queued_bytes += len(data)
        self.queued_rv = resource_version
        if self.overflowed():
            return False
        self.sink.notify()
        return True

    def overflowed(self) -> bool:
        """More events, or bytes, pending than the watcher may hold (one event, however large, it may)."""
        return len(self.queue) > self.limit or (self.queued_bytes > self.bytes_limit and len(self.queue) > 1)

    def take(self) -> list[bytes]:
        """Everything queued, for the sink to write; the queue is empty afterwards."""
        taken = list(self.queue)
        self.queue.clear()
        self.queued_bytes = 0
        return taken

    def take_one(self) -> bytes:
        data = self.queue.popleft()
        self.queued_bytes = max(0, self.queued_bytes - len(data))  # (initial events are not counted)
        return data

    def finish(self, last: bytes | None = None) -> None:
        """End the stream after what is queued (and `last`, if given)."""
        if last is not None:
            self.queue.append(last)
        self.closed = True
        self.sink.notify()

    def disconnected(self) -> bool:
        return self.sink.gone()


class WatchHub:
    """Every open watch of one server; subscribed to the store for the server's lifetime."""

    def __init__(self, store: Store, clock: Clock, bookmark_interval: float = 60.0,
                 buffer_limit: int = DEFAULT_WATCH_BUFFER, freshness_wait: float = FRESHNESS_WAIT,
                 buffer_bytes: int = DEFAULT_WATCH_BUFFER_BYTES) -> None:
        self.store = store
        self.clock = clock
        self.bookmark_interval = bookmark_interval
        self.buffer_limit = buffer_limit
        self.buffer_bytes = buffer_bytes
        self.freshness_wait = freshness_wait
        self._by_resource: dict[str, list[Watcher]] = {}
        self._rv_waiters: list[tuple[int, asyncio.Future[None]]] = []
        self._tick: asyncio.TimerHandle | None = None
        self._stopped = False
        store.subscribe(self.on_event)

    # ---- the store listener: runs inside every write

    def on_event(self, event: Event) -> None:
        rv = event.resource_version
        if self._rv_waiters:
            self._release_waiters(rv)
        watchers = self._by_resource.get(event.key.resource)
        if not watchers:
            return
        key = event.key
        change = Change(event)
        framed: bytes | None = None
        overflowed: list[Watcher] | None = None
        presented: dict[Callable[[bytes], bytes], Change] = {}
        for watcher in watchers:
            spec = watcher.spec
            if spec.namespace is not None and spec.namespace != key.namespace:
                continue
            if spec.name is not None and spec.name != key.name:
                continue
            if rv <= watcher.start_rv:  # a watch from a future version starts after it
                continue
            if spec.present is not None:
                if spec.present not in presented:
                    presented[spec.present] = Change(_presented(event, spec.present))
                rendered = watcher.render(presented[spec.present])
                if rendered is None:
                    continue
                data = rendered
            elif watcher.table is None and spec.matches is None:
                if framed is None:
                    framed = change.framed()
                data = framed
            else:
                rendered = watcher.render(change)
                if rendered is None:
                    continue
                data = rendered
            watcher.queue.append(data)
            watcher.queued_bytes += len(data)
            watcher.queued_rv = rv
            if watcher.overflowed():
                overflowed = overflowed or []
                overflowed.append(watcher)
            else:
                watcher.sink.notify()
        if overflowed:
            for watcher in overflowed:
                self._cut_off(watcher)

    def _cut_off(self, watcher: Watcher) -> None:
        """A watcher that cannot keep up: drop its backlog and end it with 410 so its client re-lists."""
        watcher.take()
        expired = Expired(f"too old resource version: {watcher.written_rv} ({self.store.resource_version})")
        watcher.finish(error_event(expired))
        self.remove(watcher)

    # ---- opening and closing watches

    def open(self, spec: WatchSpec, table: Renderer | None, sink: Sink) -> Watcher:
        """Register a watcher with its initial events queued. Synchronous, so no change can slip between
        the initial state (or the replayed history) and the live events."""
        store = self.store
        current = store.resource_version
        initial: list[bytes] = []
        start = current
        error: StatusError | None = None
        if spec.send_initial_events or (spec.send_initial_events is None and spec.resource_version is None):
            initial = self._current_state(spec, table)
        elif spec.resource_version is not None:
            start = spec.resource_version
            try:
                initial = self._replay(spec, table, start)
            except Expired as expired:
                error = expired
        loop = asyncio.get_running_loop()
        watcher = Watcher(spec, table, sink, self.buffer_limit, start, self.buffer_bytes)
        watcher.queue.extend(initial)
        if error is not None:
            watcher.finish(error_event(error))
            return watcher
        if spec.send_initial_events and spec.allow_bookmarks:
            watcher.queue.append(self._bookmark(spec, table, current, initial_events_end=True))
        watcher.timer = loop.call_later(spec.timeout, watcher.finish)
        if spec.allow_bookmarks:
            now = self.clock.monotonic()
            watcher.deadline = now + spec.timeout
            watcher.next_bookmark = self._next_bookmark(watcher, now)
        if self._stopped:
            watcher.finish()
            return watcher
        self._by_resource.setdefault(spec.resource, []).append(watcher)
        self._start_ticking()
        sink.notify()
        return watcher

    def open_failed(self, spec: WatchSpec, error: StatusError) -> Watcher:
        """A watch that only carries one ERROR event (upstream's errWatcher)."""
        watcher = Watcher(spec, None, NoSink(), self.buffer_limit, self.store.resource_version)
        watcher.finish(error_event(error))
        return watcher

    def remove(self, watcher: Watcher) -> None:
        if watcher.timer is not None:
            watcher.timer.cancel()
            watcher.timer = None
        watchers = self._by_resource.get(watcher.spec.resource)
        if watchers and watcher in watchers:
            watchers.remove(watcher)
            if not watchers:
                del self._by_resource[watcher.spec.resource]

    def count(self) -> int:
        return sum(len(watchers) for watchers in self._by_resource.values())

    def end_all(self) -> int:
        """End every open watch cleanly, as a restarting apiserver does; clients re-watch. New watches
        are still served. Returns how many were ended."""
        ended = 0
        for watchers in list(self._by_resource.values()):
            for watcher in list(watchers):
                watcher.finish()
                self.remove(watcher)
                ended += 1
        return ended

    async def shutdown(self) -> None:
        """End every watch cleanly and serve no more (the app's on_shutdown)."""
        self._stopped = True
        self.end_all()
        if self._tick is not None:
            self._tick.cancel()
            self._tick = None
        for _rv, future in self._rv_waiters:
            if not future.done():
                future.set_result(None)
        self._rv_waiters.clear()

    # ---- waiting for a resourceVersion not seen yet

    async def wait_for(self, resource_version: int) -> bool:
        """Wait (at most `freshness_wait`) until the store reaches `resource_version`, as the cache does."""
        if self.store.resource_version >= resource_version:
            return True
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        entry = (resource_version, future)
        self._rv_waiters.append(entry)
        try:
            await asyncio.wait_for(asyncio.shield(future), self.freshness_wait)
        except TimeoutError:
            pass
        finally:
            if entry in self._rv_waiters:
                self._rv_waiters.remove(entry)
        return self.store.resource_version >= resource_version

    def _release_waiters(self, resource_version: int) -> None:
        for wanted, future in self._rv_waiters:
            if wanted <= resource_version and not future.done():
                future.set_result(None)

    # ---- initial events

    def _current_state(self, spec: WatchSpec, table: Renderer | None) -> list[bytes]:
        """Synthetic ADDED events for every object that matches now, in storage-key order."""
        out: list[bytes] = []
        for key, data in self.store.items(spec.resource, spec.namespace):
            if spec.name is not None and key.name != spec.name:
                continue
            if spec.present is not None:
                data = spec.present(data)
            if spec.matches is None and table is None:
                out.append(b'{"type":"ADDED","object":' + data + b"}\n")
                continue
            obj: JSON = orjson.loads(data)
            if spec.matches is not None and not spec.matches(obj):
                continue
            out.append(frame("ADDED", data) if table is None else table.frame("ADDED", obj))
        return out

    def _replay(self, spec: WatchSpec, table: Renderer | None, since: int) -> list[bytes]:
        """Every change after `since` this watcher would have seen; Expired if history is gone."""
        out: list[bytes] = []
        probe = Watcher(spec, table, NoSink(), 0, since)
        for event in self.store.events_since(since):
            key = event.key
            if key.resource != spec.resource:
                continue
            if spec.namespace is not None and key.namespace != spec.namespace:
                continue
            if spec.name is not None and key.name != spec.name:
                continue
            data = probe.render(Change(event if spec.present is None else _presented(event, spec.present)))
            if data is not None:
                out.append(data)
        return out

    # ---- bookmarks, liveness and timeouts: one periodic tick while watches are open

    def _bookmark(self, spec: WatchSpec, table: Renderer | None, resource_version: int,
                  initial_events_end: bool = False) -> bytes:
        obj = bookmark_object(spec.kind, spec.api_version, resource_version, initial_events_end)
        if table is not None:
            return table.frame("BOOKMARK", obj)
        return frame("BOOKMARK", orjson.dumps(obj))

    def _next_bookmark(self, watcher: Watcher, now: float) -> float | None:
        """Upstream's nextBookmarkTime: about every interval, and once just before the watch times out."""
        due = now + self.bookmark_interval
        if watcher.deadline is not None:
            due = min(due, watcher.deadline - PRE_TIMEOUT_BOOKMARK)
        return due if due >= now else None

    def _start_ticking(self) -> None:
        if self._tick is None:
            self._tick = asyncio.get_running_loop().call_later(self._tick_interval(), self._on_tick)

    def _tick_interval(self) -> float:
        return max(0.01, min(1.0, self.bookmark_interval / 2))

    def _on_tick(self) -> None:
        self._tick = None
        if not self._by_resource:
            return
        now = self.clock.monotonic()
        current = self.store.resource_version
        gone: list[Watcher] = []
        overflowed: list[Watcher] = []
        for watchers in self._by_resource.values():
            for watcher in watchers:
                if watcher.disconnected():
                    gone.append(watcher)
                    continue
                due = watcher.next_bookmark
                if due is not None and now >= due:
                    watcher.next_bookmark = self._next_bookmark(watcher, now)
                    if current > watcher.start_rv and not watcher.push(
                            self._bookmark(watcher.spec, watcher.table, current), current):
                        overflowed.append(watcher)
        for watcher in gone:
            watcher.finish()
            self.remove(watcher)
        for watcher in overflowed:
            self._cut_off(watcher)
        self._start_ticking()


def default_timeout() -> float:
    """A watch without timeoutSeconds: upstream picks between minRequestTimeout and twice that."""
    return MIN_REQUEST_TIMEOUT * (1.0 + random.random())


