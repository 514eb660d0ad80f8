"""The watch feed: one etcd watch over the whole key space, read in a thread, in revision order.

One stream (rather than one per resource) keeps a single order of every change, the same on every server
that reads it; and since every revision of etcd is some key's change, the revision of the last change
read is etcd's revision then: a server has applied everything up to a revision once the feed passed it
(what consistent reads and read-your-writes wait for). The thread only reads and queues; the store
applies what it queued on the event loop's thread (`take`), or waits for a revision (`wait_for`).

When the stream breaks (etcd restarts, the connection drops) the thread watches again from the revision
after the last one it read; when etcd compacted that revision meanwhile, it says so (`Compacted`) and
the store reads everything again.
"""

from __future__ import annotations

import logging
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import orjson
import requests

from fakeapi.storage.etcd.client import EtcdClient, b64, unb64

log = logging.getLogger("fakeapi.storage")

RETRY_DELAY = 0.2  # seconds between attempts to watch again while etcd is away
READ_TIMEOUT = 30.0  # a silent stream for this long is dropped and watched again (progress_notify keeps it talking)


@dataclass(frozen=True, slots=True)
class Change:
    """One change of a key: its value (None when deleted) at `revision`."""

    key: str
    value: bytes | None
    revision: int


@dataclass(frozen=True, slots=True)
class Compacted:
    """The feed could not carry on from `revision`: etcd compacted it (its oldest revision is `oldest`)."""

    revision: int
    oldest: int


Item = Change | Compacted


class Feed:
    def __init__(self, client: EtcdClient, start_revision: int, wake: Callable[[], None] | None = None) -> None:
        """Read every change after `start_revision`; `wake` (called from the thread) says new items wait."""
        self._client = client
        self._next = start_revision + 1
        self._items: deque[Item] = deque()
        self._arrived = threading.Condition()
        self._wake = wake
        self._stopped = False
        self._paused = False  # after a compaction, until the store says where to carry on from
        self._response: requests.Response | None = None
        self._sessions = [client.session(endpoint) for endpoint in client.config.endpoints]
        self._endpoint = 0
        self.connected = False  # the stream is open (etcd answers)
        self._thread = threading.Thread(target=self._run, name="fakeapi-etcd-feed", daemon=True)
        self._thread.start()

    def set_wake(self, wake: Callable[[], None]) -> None:
        self._wake = wake

    # ---- the store's side (the event loop's thread)

    def take(self) -> Item | None:
        """The next item read, or None."""
        try:
            return self._items.popleft()
        except IndexError:
            return None

    def pending(self) -> bool:
        return bool(self._items)

    def wait(self, timeout: float) -> bool:
        """Block until an item is queued (True) or `timeout` passes (False)."""
        with self._arrived:
            if self._items:
                return True
            return self._arrived.wait_for(lambda: bool(self._items) or self._stopped, timeout) and not self._stopped

    def restart_from(self, revision: int) -> None:
        """Carry on after `revision` (after a compaction, once the store read everything again)."""
        with self._arrived:
            self._items.clear()
            self._next = revision + 1
            self._paused = False
        self._close_stream()

    def stop(self) -> None:
        self._stopped = True
        with self._arrived:
            self._arrived.notify_all()
        self._close_stream()

    # ---- the thread

    def _run(self) -> None:
        failures = 0
        while not self._stopped:
            if self._paused:
                time.sleep(RETRY_DELAY)
                continue
            try:
                self._watch()
                failures = 0
            except (requests.RequestException, OSError, ValueError) as error:
                if self._stopped:
                    return
                failures += 1
                if failures == 1:
                    log.warning("fakeapi: the etcd watch broke (%s); watching again from revision %d",
                                type(error).__name__, self._next)
            self.connected = False
            if failures:
                self._endpoint = (self._endpoint + 1) % len(self._client.config.endpoints)
                time.sleep(RETRY_DELAY)

    def _watch(self) -> None:
        session, base = self._sessions[self._endpoint]
        create = {"key": b64("\0"), "range_end": b64("\0"), "start_revision": str(self._next),
                  "progress_notify": True}
        request: dict[str, Any] = {"create_request": create}
        response = session.post(base + "watch", json=request, stream=True, timeout=(1.0, READ_TIMEOUT))
        self._response = response
        try:
            if response.status_code != 200:
                raise ValueError(f"etcd answered the watch with {response.status_code}")
            for line in response.iter_lines(chunk_size=64 * 1024):
                if self._stopped:
                    return
                if not line or not line.strip():
                    continue
                message = orjson.loads(line)
                result: dict[str, Any] | None = message.get("result")
                if result is None:
                    raise ValueError(f"etcd's watch stream failed: {message.get('error', message)}")
                if not self._read(result):
                    return
        finally:
            self._response = None
            response.close()

    def close(self) -> None:
        for session, _base in self._sessions:
            session.close()

    def _read(self, result: dict[str, Any]) -> bool:
        """Queue a watch response's changes; False when the watch ended."""
        if result.get("compact_revision"):
            self._paused = True
            self._queue([Compacted(self._next, int(result["compact_revision"]))])
            return False
        if result.get("canceled"):
            raise ValueError(f"etcd cancelled the watch: {result.get('cancel_reason', '')}")
        self.connected = True
        events = result.get("events")
        if not events:
            return True
        changes = []
        for event in events:
            kv = event["kv"]
            revision = int(kv["mod_revision"])
            deleted = event.get("type") == "DELETE"
            changes.append(Change(unb64(kv["key"]).decode(), None if deleted else unb64(kv.get("value", "")),
                                  revision))
        self._next = changes[-1].revision + 1
        self._queue(changes)
        return True

    def _queue(self, items: Sequence[Item]) -> None:
        with self._arrived:
            self._items.extend(items)
            self._arrived.notify_all()
        if self._wake is not None:
            self._wake()

    def _close_stream(self) -> None:
        """Break the open stream (its thread is blocked reading it)."""
        response = self._response
        if response is None:
            return
        try:
            raw = response.raw._fp  # (urllib3's HTTPResponse: its socket)
            sock = socket.socket(fileno=socket.dup(raw.fileno()))
            sock.shutdown(socket.SHUT_RDWR)
            sock.close()
        except Exception:  # noqa: S110  (already closed)
            pass
