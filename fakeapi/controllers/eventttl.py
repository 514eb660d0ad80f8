"""Events expire an hour after their last write, as kube-apiserver keeps them (`--event-ttl`, default 1h: each
write gives the event's etcd key a lease of that long). An expired event is deleted from the store as an
expired lease removes it (no admission, no finalizers; watchers get DELETED), on the server clock: a
frozen clock keeps every event, `advance(3600)` expires the hour's.

Every event has the same time to live, so they expire in the order of their last writes: one ordered map
and one clock timer (for the next to expire) cover them all. A timer deletes at most EXPIRE_BATCH events
and sets the next for the rest, so that a backlog (after a long clock advance) leaves room for requests;
one whose delete fails (a storage failure) is tried again by the clock, the event still due.
"""

from __future__ import annotations

from collections import OrderedDict

from fakeapi.machinery.clock import Clock, Timer
from fakeapi.machinery.errors import NotFound
from fakeapi.machinery.types import ObjectKey
from fakeapi.storage.store import Event, Store

RESOURCE = "events"
DEFAULT_TTL_SECONDS = 3600.0
EXPIRE_BATCH = 100  # events deleted per turn


class EventTTL:
    def __init__(self, store: Store, clock: Clock, ttl: float = DEFAULT_TTL_SECONDS) -> None:
        self.store = store
        self.clock = clock
        self.ttl = ttl
        # (namespace, name) -> when it expires (clock.monotonic()), oldest first
        self._expiry: OrderedDict[tuple[str, str], float] = OrderedDict()
        self._timer: Timer | None = None
        self.reload()

    def on_event(self, event: Event) -> None:
        """Store listener: each write of an event renews its lease; a deleted event has none."""
        if event.key.resource != RESOURCE:
            return
        key = (event.key.namespace, event.key.name)
        if event.type == "DELETED":
            self._expiry.pop(key, None)
            return
        self._expiry[key] = self.clock.monotonic() + self.ttl
        self._expiry.move_to_end(key)
        if self._timer is None:
            self._arm()

    def reload(self) -> None:
        """The stored events were replaced at once (a reset, a restored snapshot, a start on kept objects):
        each lives one time to live from now."""
        self.stop()
        self._expiry.clear()
        expires = self.clock.monotonic() + self.ttl
        for key, _data in self.store.items(RESOURCE):
            self._expiry[(key.namespace, key.name)] = expires
        self._arm()

    def stop(self) -> None:
        """No more expiries: the server stops, and its store closes (they expire after the next start)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    # the control API's reset and restore replace the objects without change events
    after_reset = reload
    after_restore = reload

    def _arm(self) -> None:
        if self._expiry:
            due = next(iter(self._expiry.values()))
            self._timer = self.clock.call_later(due - self.clock.monotonic(), self._expire)

    def _expire(self) -> None:
        now = self.clock.monotonic()
        for _ in range(EXPIRE_BATCH):
            if not self._expiry:
                break
            key, due = next(iter(self._expiry.items()))
            if due > now:
                break
            try:
                self.store.delete(ObjectKey(RESOURCE, *key))  # (raises, leaving the event due, if not stored)
            except NotFound:
                pass
            self._expiry.pop(key, None)
        self._timer = None
        self._arm()
