"""Watch streams: the hub that fans store changes out to every watcher, and the streaming handler.

Design (see ../shared/spec/performance.md): the store calls `WatchHub.on_event` synchronously inside
every write, so that call does O(watchers) cheap work: each event is framed once and the same bytes are
queued for every unfiltered watcher; only watchers with selectors parse the object (once per event,
shared between them). Each watcher has a bounded deque. While its socket keeps up, the hub writes every
watcher's pending events as one HTTP chunk per flush (at most one flush per FLUSH_INTERVAL under load);
otherwise the watcher's handler task writes them and waits for the socket (an `asyncio.Event` wakes
it). A watcher that falls too far behind is cut off with a 410 ERROR event (its client re-lists)
instead of growing without bound or slowing anybody down.
"""

from __future__ import annotations

import asyncio
import random
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

import orjson
from aiohttp import HttpVersion11, web

from fakeapi.http.faults import WATCH_CUT_KEY
from fakeapi.http.requestlog import record_status
from fakeapi.machinery.clock import Clock
from fakeapi.machinery.errors import Expired, StatusError, Timeout, with_retry_after
from fakeapi.machinery.labels import LabelSelector
from fakeapi.machinery.selectors import FieldSelector
from fakeapi.machinery.tables.columns import Printer
from fakeapi.machinery.types import JSON
from fakeapi.storage.store import Event, Store

DEFAULT_WATCH_BUFFER = 10_000  # events a watcher may have pending before it is cut off
FRESHNESS_WAIT = 3.0  # upstream's watch cache waits this long for a resourceVersion it has not seen yet
MIN_REQUEST_TIMEOUT = 1800.0  # a watch without timeoutSeconds lasts 1-2x this, as upstream picks it
PRE_TIMEOUT_BOOKMARK = 2.0  # upstream sends a bookmark this long before a watch times out
DIRECT_WRITE_LIMIT = 256 * 1024  # unsent bytes a socket may hold before its watcher must wait for it
FLUSH_INTERVAL = 0.002  # under load, events are written at most this often: fewer, larger writes
INITIAL_EVENTS_END = "k8s.io/initial-events-end"

_TYPES = {"ADDED": b"ADDED", "MODIFIED": b"MODIFIED", "DELETED": b"DELETED"}

ObjectFilter = Callable[[JSON], bool]


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


class TableRenderer:
    """Turns watch events into one-row Tables; only the first one carries the column definitions."""

    def __init__(self, printer: Printer, api_version: str, include_object: str,
                 now: Callable[[], datetime]) -> None:
        self.printer = printer
        self.api_version = api_version
        self.include_object = include_object
        self.now = now
        self._first = True

    def frame(self, event_type: str, obj: JSON) -> bytes:
        from fakeapi.machinery.tables.table import to_table  # loads with the first Table request

        version = str((obj.get("metadata") or {}).get("resourceVersion", ""))
        table = to_table(self.printer, [obj], self.now(), self.include_object, version,
                         with_columns=self._first, api_version=self.api_version)
        self._first = False
        return orjson.dumps({"type": event_type, "object": table}) + b"\n"


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


def _wake(watcher: Watcher) -> None:
    watcher.wake.set()


class Watcher:
    """One open watch: its scope and filter, a bounded queue of framed events, and a wake-up event.

    Two ways out to the socket. While the socket keeps up, the hub writes queued events itself, for all
    watchers at once (`flush`), framed as one HTTP chunk each straight into the transport: no task
    switch per watcher and event, and a burst of changes leaves in one write. Before that (initial
    events), for a reader that lags, and for fault-injected streams, the watcher's own handler task
    writes through aiohttp and waits for the socket to drain (`stream`).
    """

    __slots__ = ("spec", "table", "request", "queue", "wake", "limit", "closed", "start_rv", "queued_rv",
                 "written_rv", "next_bookmark", "deadline", "timer", "transport", "dirty", "notify")

    def __init__(self, spec: WatchSpec, table: TableRenderer | None, request: web.BaseRequest | None,
                 limit: int, start_rv: int, notify: Callable[[Watcher], None] = _wake) -> None:
        self.spec = spec
        self.table = table
        self.request = request
        self.queue: deque[bytes] = deque()
        self.wake = asyncio.Event()
        self.limit = limit
        self.closed = False
        self.transport: asyncio.Transport | None = None  # set while the hub writes directly
        self.dirty = False  # queued for the hub's next flush
        self.notify = notify
        self.start_rv = start_rv  # events and bookmarks at or below this are never sent
        self.queued_rv = start_rv
        self.written_rv = start_rv
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
        self.queued_rv = resource_version
        if len(self.queue) > self.limit:
            return False
        self.notify(self)
        return True

    def finish(self, last: bytes | None = None) -> None:
        """End the stream after what is queued (and `last`, if given)."""
        if last is not None:
            self.queue.append(last)
        self.closed = True
        self.notify(self)

    def flush(self) -> None:
        """Write what is queued straight into the transport as one HTTP chunk (the hub's fast path)."""
        transport = self.transport
        if transport is None:
            self.wake.set()
            return
        queue = self.queue
        if transport.is_closing():
            self.transport = None
            self.closed = True
            queue.clear()
        elif queue:
            if transport.get_write_buffer_size() > DIRECT_WRITE_LIMIT:
                self.transport = None  # the reader lags: the handler task waits for the socket
                self.wake.set()
                return
            size = sum(map(len, queue))
            data = b"".join([b"%x\r\n" % size, *queue, b"\r\n"])
            queue.clear()
            self.written_rv = self.queued_rv
            transport.write(data)
        if self.closed:
            self.wake.set()  # the handler task ends the stream

    def disconnected(self) -> bool:
        request = self.request
        if request is None:
            return False
        transport = request.transport
        return transport is None or transport.is_closing()

    async def stream(self, response: web.StreamResponse, transport: asyncio.Transport | None = None) -> None:
        """Write whatever is queued, one write per wake-up, until the watch ends; whenever the socket
        has caught up, hand the writing over to the hub (see the class docstring)."""
        queue, wake = self.queue, self.wake
        while True:
            if queue:
                chunk = queue[0] if len(queue) == 1 else b"".join(queue)
                queue.clear()
                self.written_rv = self.queued_rv
                await response.write(chunk)
                continue
            if self.closed:
                return
            if (transport is not None and self.transport is None and not transport.is_closing()
                    and transport.get_write_buffer_size() <= DIRECT_WRITE_LIMIT):
                self.transport = transport
            wake.clear()
            await wake.wait()
            self.transport = None

    async def stream_cut(self, response: web.StreamResponse, cut: Callable[[int], bytes | None]) -> None:
        """`stream`, one event per write, asking an injected fault (fakeapi.http.faults.WatchCut) before the
        first event and after each one but BOOKMARKs whether to end here, and with what last bytes."""
        queue, wake = self.queue, self.wake
        sent = 0
        while (last := cut(sent)) is None:
            if queue:
                data = queue.popleft()
                await response.write(data)
                sent += not data.startswith(b'{"type":"BOOKMARK"')
                continue
            self.written_rv = self.queued_rv
            if self.closed:
                return
            wake.clear()
            await wake.wait()
        if last:
            await response.write(last)


class WatchHub:
    """Every open watch of one server; subscribed to the store for the server's lifetime."""

    def __init__(self, store: Store, clock: Clock, bookmark_interval: float = 60.0,
                 buffer_limit: int = DEFAULT_WATCH_BUFFER, freshness_wait: float = FRESHNESS_WAIT) -> None:
        self.store = store
        self.clock = clock
        self.bookmark_interval = bookmark_interval
        self.buffer_limit = buffer_limit
        self.freshness_wait = freshness_wait
        self._by_resource: dict[str, list[Watcher]] = {}
        self._rv_waiters: list[tuple[int, asyncio.Future[None]]] = []
        self._tick: asyncio.TimerHandle | None = None
        self._stopped = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._dirty: list[Watcher] = []  # watchers with events for the next flush
        self._flush_scheduled = False
        self._last_flush = 0.0
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
        for watcher in watchers:
            spec = watcher.spec
            if spec.namespace is not None and spec.namespace != key.namespace:
                continue
            if spec.name is not None and spec.name != key.name:
                continue
            if rv <= watcher.start_rv:  # a watch from a future version starts after it
                continue
            if watcher.table is None and spec.matches is None:
                if framed is None:
                    framed = change.framed()
                data = framed
            else:
                rendered = watcher.render(change)
                if rendered is None:
                    continue
                data = rendered
            queue = watcher.queue
            queue.append(data)
            watcher.queued_rv = rv
            if len(queue) > watcher.limit:
                overflowed = overflowed or []
                overflowed.append(watcher)
            elif watcher.transport is None:
                watcher.wake.set()
            elif not watcher.dirty:
                watcher.dirty = True
                self._dirty.append(watcher)
        if self._dirty and not self._flush_scheduled:
            self._schedule_flush()
        if overflowed:
            for watcher in overflowed:
                self._cut_off(watcher)

    def _notify(self, watcher: Watcher) -> None:
        """New events (or the end) for a watcher: the next flush writes them, or its task does."""
        if watcher.transport is None:
            watcher.wake.set()
            return
        if not watcher.dirty:
            watcher.dirty = True
            self._dirty.append(watcher)
        if not self._flush_scheduled:
            self._schedule_flush()

    def _schedule_flush(self) -> None:
        """At once when idle; under load no sooner than FLUSH_INTERVAL after the last flush, so a burst
        of changes leaves in one write per watcher instead of one per change (a syscall each)."""
        loop = self._loop
        if loop is None:
            return
        self._flush_scheduled = True
        due = self._last_flush + FLUSH_INTERVAL
        if loop.time() >= due:
            loop.call_soon(self._flush)
        else:
            loop.call_at(due, self._flush)

    def _flush(self) -> None:
        """Every dirty watcher writes all it has, in one chunk."""
        self._flush_scheduled = False
        if self._loop is not None:
            self._last_flush = self._loop.time()
        dirty, self._dirty = self._dirty, []
        for watcher in dirty:
            watcher.dirty = False
            watcher.flush()

    def _cut_off(self, watcher: Watcher) -> None:
        """A watcher that cannot keep up: drop its backlog and end it with 410 so its client re-lists."""
        watcher.queue.clear()
        expired = Expired(f"too old resource version: {watcher.written_rv} ({self.store.resource_version})")
        watcher.finish(error_event(expired))
        self.remove(watcher)

    # ---- opening and closing watches

    def open(self, spec: WatchSpec, table: TableRenderer | None, request: web.BaseRequest | None) -> Watcher:
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
        self._loop = asyncio.get_running_loop()
        watcher = Watcher(spec, table, request, self.buffer_limit, start, self._notify)
        watcher.queue.extend(initial)
        if error is not None:
            watcher.finish(error_event(error))
            return watcher
        if spec.send_initial_events and spec.allow_bookmarks:
            watcher.queue.append(self._bookmark(spec, table, current, initial_events_end=True))
        watcher.timer = self._loop.call_later(spec.timeout, watcher.finish)
        if spec.allow_bookmarks:
            now = self.clock.monotonic()
            watcher.deadline = now + spec.timeout
            watcher.next_bookmark = self._next_bookmark(watcher, now)
        if self._stopped:
            watcher.finish()
            return watcher
        self._by_resource.setdefault(spec.resource, []).append(watcher)
        self._start_ticking()
        watcher.wake.set()
        return watcher

    def open_failed(self, spec: WatchSpec, error: StatusError) -> Watcher:
        """A watch that only carries one ERROR event (upstream's errWatcher)."""
        watcher = Watcher(spec, None, None, self.buffer_limit, self.store.resource_version)
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

    async def shutdown(self, app: web.Application | None = None) -> None:
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

    def _current_state(self, spec: WatchSpec, table: TableRenderer | None) -> list[bytes]:
        """Synthetic ADDED events for every object that matches now, in storage-key order."""
        out: list[bytes] = []
        for key, data in self.store.items(spec.resource, spec.namespace):
            if spec.name is not None and key.name != spec.name:
                continue
            if spec.matches is None and table is None:
                out.append(b'{"type":"ADDED","object":' + data + b"}\n")
                continue
            obj: JSON = orjson.loads(data)
            if spec.matches is not None and not spec.matches(obj):
                continue
            out.append(frame("ADDED", data) if table is None else table.frame("ADDED", obj))
        return out

    def _replay(self, spec: WatchSpec, table: TableRenderer | None, since: int) -> list[bytes]:
        """Every change after `since` this watcher would have seen; Expired if history is gone."""
        out: list[bytes] = []
        probe = Watcher(spec, table, None, 0, since)
        for event in self.store.events_since(since):
            key = event.key
            if key.resource != spec.resource:
                continue
            if spec.namespace is not None and key.namespace != spec.namespace:
                continue
            if spec.name is not None and key.name != spec.name:
                continue
            data = probe.render(Change(event))
            if data is not None:
                out.append(data)
        return out

    # ---- bookmarks, liveness and timeouts: one periodic tick while watches are open

    def _bookmark(self, spec: WatchSpec, table: TableRenderer | None, resource_version: int,
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


async def serve_watch(request: web.Request, hub: WatchHub, spec: WatchSpec,
                      table: TableRenderer | None) -> web.StreamResponse:
    """Stream a watch: HTTP 200, chunked, newline-delimited JSON events, until timeout, error or goodbye."""
    if spec.send_initial_events and spec.resource_version is not None and not await hub.wait_for(
            spec.resource_version):
        watcher = hub.open_failed(spec, too_large_resource_version(spec.resource_version,
                                                                   hub.store.resource_version))
    else:
        watcher = hub.open(spec, table, request)
    response = web.StreamResponse(status=200)
    response.content_type = "application/json"
    chunked = request.version >= HttpVersion11  # an HTTP/1.0 client gets a close-delimited stream
    if chunked:
        response.enable_chunked_encoding()
    try:
        await response.prepare(request)
        record_status(request, response)
        cut = request.get(WATCH_CUT_KEY)
        if cut is None:
            # the hub frames chunks itself, so it only writes directly into chunked streams
            await watcher.stream(response, request.transport if chunked else None)
        else:
            await watcher.stream_cut(response, cut)
        await response.write_eof()
    except ConnectionError:
        pass  # the client went away; nothing more to say
    finally:
        watcher.closed = True
        watcher.transport = None  # nothing more goes out once the handler is done
        hub.remove(watcher)
    return response
