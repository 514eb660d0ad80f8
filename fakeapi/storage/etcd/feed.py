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
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import grpc

from fakeapi.storage.etcd.client import EtcdClient, WatchStream

log = logging.getLogger("fakeapi.storage")

RETRY_DELAY = 0.2  # seconds between attempts to watch again while etcd is away
DELETE = 1  # mvccpb.Event.DELETE


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
        """Read every change after `start_revision` with `client` (the feed's own: it closes it when it
        stops); `wake` (called from the thread) says new items wait."""
        self._client = client
        self._next = start_revision + 1
        self._items: deque[Item] = deque()
        self._arrived = threading.Condition()
        self._wake = wake
        self._stopped = False
        self._paused = False  # after a compaction, until the store says where to carry on from
        self._stream: WatchStream | None = None
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
        self._client.close()

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
            except (grpc.RpcError, ValueError) as error:
                if self._stopped:
                    return
                failures += 1
                if failures == 1:
                    log.warning("fakeapi: the etcd watch broke (%s); watching again from revision %d",
                                type(error).__name__, self._next)
            self.connected = False
            if failures:
                self._client.next_endpoint()
                time.sleep(RETRY_DELAY)

    def _watch(self) -> None:
        stream = self._stream = self._client.watch(self._next)
        try:
            if self._stopped:
                return
            for response in stream:
                if self._stopped or not self._read(response):
                    return
        finally:
            self._stream = None
            stream.cancel()

    def _read(self, response: Any) -> bool:
        """Queue a watch response's changes; False when the watch ended."""
        if response.compact_revision:
            self._paused = True
            self._queue([Compacted(self._next, response.compact_revision)])
            return False
        if response.canceled:
            raise ValueError(f"etcd cancelled the watch: {response.cancel_reason}")
        self.connected = True
        if not response.events:
            return True
        changes = [Change(event.kv.key.decode(), None if event.type == DELETE else event.kv.value,
                          event.kv.mod_revision) for event in response.events]
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
        """End the open stream (its thread is blocked reading it)."""
        stream = self._stream
        if stream is not None:
            stream.cancel()
