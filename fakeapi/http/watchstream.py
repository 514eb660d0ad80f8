"""Watch responses: HTTP 200, chunked, newline-delimited JSON events written from a hub watcher's queue.

Two ways out to the socket. While the socket keeps up, the app's WatchWriter writes every stream's pending
events itself, for all streams at once, as one HTTP chunk each straight into the transport: no task switch
per watch and event, and a burst of changes leaves in one write (at most one flush per FLUSH_INTERVAL
under load). Before that (initial events), for a reader that lags, and for fault-injected streams, the
stream's own handler task writes through aiohttp and waits for the socket to drain.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime

import orjson
from aiohttp import HttpVersion11, web

from fakeapi.http.faults import WATCH_CUT_KEY
from fakeapi.http.requestlog import record_status
from fakeapi.machinery.tables.columns import Printer
from fakeapi.machinery.types import JSON
from fakeapi.storage.watch import Watcher, WatchHub, WatchSpec, too_large_resource_version

DIRECT_WRITE_LIMIT = 256 * 1024  # unsent bytes a socket may hold before its stream must wait for it
FLUSH_INTERVAL = 0.002  # under load, events are written at most this often: fewer, larger writes


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


class WatchWriter:
    """One per app: flushes the streams that have events and a socket that keeps up."""

    def __init__(self) -> None:
        self._dirty: list[WatchStream] = []
        self._scheduled = False
        self._last_flush = 0.0

    def mark(self, stream: WatchStream) -> None:
        if not stream.dirty:
            stream.dirty = True
            self._dirty.append(stream)
        if not self._scheduled:
            self._schedule()

    def _schedule(self) -> None:
        """At once when idle; under load no sooner than FLUSH_INTERVAL after the last flush, so a burst
        of changes leaves in one write per stream instead of one per change (a syscall each)."""
        loop = asyncio.get_running_loop()
        self._scheduled = True
        due = self._last_flush + FLUSH_INTERVAL
        if loop.time() >= due:
            loop.call_soon(self._flush)
        else:
            loop.call_at(due, self._flush)

    def _flush(self) -> None:
        self._scheduled = False
        self._last_flush = asyncio.get_running_loop().time()
        dirty, self._dirty = self._dirty, []
        for stream in dirty:
            stream.dirty = False
            stream.flush()


class WatchStream:
    """The sink of one hub watcher: its HTTP response."""

    __slots__ = ("watcher", "writer", "request", "wake", "transport", "dirty")

    def __init__(self, writer: WatchWriter, request: web.Request) -> None:
        self.watcher: Watcher | None = None
        self.writer = writer
        self.request = request
        self.wake = asyncio.Event()
        self.transport: asyncio.Transport | None = None  # set while the writer writes directly
        self.dirty = False  # marked for the writer's next flush

    def notify(self) -> None:
        if self.transport is None:
            self.wake.set()
        else:
            self.writer.mark(self)

    def gone(self) -> bool:
        transport = self.request.transport
        return transport is None or transport.is_closing()

    def flush(self) -> None:
        """Write what is queued straight into the transport as one HTTP chunk (the writer's fast path)."""
        transport, watcher = self.transport, self.watcher
        if transport is None or watcher is None:
            self.wake.set()
            return
        if transport.is_closing():
            self.transport = None
            watcher.closed = True
            watcher.take()
        elif watcher.queue:
            if transport.get_write_buffer_size() > DIRECT_WRITE_LIMIT:
                self.transport = None  # the reader lags: the handler task waits for the socket
                self.wake.set()
                return
            events = watcher.take()
            data = b"".join([b"%x\r\n" % sum(map(len, events)), *events, b"\r\n"])
            watcher.written_rv = watcher.queued_rv
            transport.write(data)
        if watcher.closed:
            self.wake.set()  # the handler task ends the stream

    async def stream(self, watcher: Watcher, response: web.StreamResponse,
                     transport: asyncio.Transport | None = None) -> None:
        """Write whatever is queued, one write per wake-up, until the watch ends; whenever the socket
        has caught up, hand the writing over to the writer (see the module docstring)."""
        queue, wake = watcher.queue, self.wake
        while True:
            if queue:
                events = watcher.take()
                watcher.written_rv = watcher.queued_rv
                await response.write(events[0] if len(events) == 1 else b"".join(events))
                continue
            if watcher.closed:
                return
            if (transport is not None and self.transport is None and not transport.is_closing()
                    and transport.get_write_buffer_size() <= DIRECT_WRITE_LIMIT):
                self.transport = transport
            wake.clear()
            await wake.wait()
            self.transport = None

    async def stream_cut(self, watcher: Watcher, response: web.StreamResponse,
                         cut: Callable[[int], bytes | None]) -> None:
        """`stream`, one event per write, asking an injected fault (fakeapi.http.faults.WatchCut) before the
        first event and after each one but BOOKMARKs whether to end here, and with what last bytes."""
        queue, wake = watcher.queue, self.wake
        sent = 0
        while (last := cut(sent)) is None:
            if queue:
                data = watcher.take_one()
                await response.write(data)
                sent += not data.startswith(b'{"type":"BOOKMARK"')
                continue
            watcher.written_rv = watcher.queued_rv
            if watcher.closed:
                return
            wake.clear()
            await wake.wait()
        if last:
            await response.write(last)


async def serve_watch(request: web.Request, hub: WatchHub, writer: WatchWriter, spec: WatchSpec,
                      table: TableRenderer | None) -> web.StreamResponse:
    """Stream a watch: HTTP 200, chunked, newline-delimited JSON events, until timeout, error or goodbye."""
    stream = WatchStream(writer, request)
    if spec.send_initial_events and spec.resource_version is not None and not await hub.wait_for(
            spec.resource_version):
        watcher = hub.open_failed(spec, too_large_resource_version(spec.resource_version,
                                                                   hub.store.resource_version))
    else:
        watcher = hub.open(spec, table, stream)
    stream.watcher = watcher
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
            # the writer frames chunks itself, so it only writes directly into chunked streams
            await stream.stream(watcher, response, request.transport if chunked else None)
        else:
            await stream.stream_cut(watcher, response, cut)
        await response.write_eof()
    except ConnectionError:
        pass  # the client went away; nothing more to say
    finally:
        watcher.closed = True
        stream.transport = None  # nothing more goes out once the handler is done
        hub.remove(watcher)
    return response
