"""Events as the simulated components record them, written to core/v1 `events` through the client.

`EventRecorder` is client-go's tools/record recorder (kubelet, node and taint-eviction controllers):
`source`, `reportingComponent`/`reportingInstance`, `count`, `firstTimestamp` and `lastTimestamp`; an
event identical to one recently recorded (same object, field path, type, reason and message: among the
last 4096 a recorder wrote, or the last 16384 the kubelets wrote together) is not written again: its
`count` and `lastTimestamp` are patched. Upstream's further aggregation (more than ten
similar events with different messages in ten minutes become one "(combined from similar events)") is
not reproduced.

`SeriesRecorder` is the events.k8s.io recorder kube-scheduler uses, as its events read through core/v1:
`eventTime`, `action`, `reportingComponent`/`reportingInstance`, empty `source` and no timestamps; a
repeat is patched into `series` (`count`, `lastObservedTime`).

Names are `<object name>.<hex nanoseconds>` as upstream's; the nanoseconds count up from the server
clock, so two events at one (frozen) instant still get distinct names.

Each recorder writes its events in the order recorded, as upstream's broadcaster does from a goroutine of
its own: on etcd the component carries on while they are in flight (`Work.in_turn_while_storage_waits`).
As upstream's, a recorder holds at most 1,000 events waiting to be written and drops the ones recorded
beyond that ("too many queued events"), and an event the server rejects (any error answer: a 504 while
etcd is away, a fault rule's) is dropped, not written again: client-go retries only when it cannot reach
the server, which the simulated components always can.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Callable, Hashable
from datetime import datetime

from fakeapi.machinery.clock import Clock, rfc3339, rfc3339_micro
from fakeapi.machinery.errors import NotFound, StatusError
from fakeapi.machinery.types import JSON
from fakeapi.simulation.client import Client
from fakeapi.simulation.work import Work

CACHE_SIZE = 4096  # events remembered for deduplication, per recorder (upstream's LRU size)
# ... and by the simulated kubelets together: a cache each, as upstream's, would hold millions of events
KUBELETS_CACHE_SIZE = 4 * CACHE_SIZE
NOTE_LIMIT = 1024  # an events.k8s.io note is cut to this many bytes
MAX_QUEUED_EVENTS = 1000  # events a recorder holds waiting to be written (upstream's broadcaster queue)

log = logging.getLogger("fakeapi.simulation")


class EventNames:
    """Unique event names: one source per simulation, shared by every recorder."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self._last = 0

    def next(self, object_name: str) -> str:
        nanos = max(int(self.clock.now().timestamp() * 1_000_000) * 1000, self._last + 1)
        self._last = nanos
        return f"{object_name}.{nanos:x}"


def pod_reference(pod: JSON, field_path: str = "") -> JSON:
    """An ObjectReference to a pod as client-go's GetReference makes it."""
    meta: JSON = pod["metadata"]
    ref: JSON = {"kind": "Pod", "namespace": meta.get("namespace", ""), "name": meta["name"],
                 "uid": meta.get("uid", ""), "apiVersion": "v1", "resourceVersion": meta.get("resourceVersion", "")}
    if field_path:
        ref["fieldPath"] = field_path
    return ref


def node_reference(name: str) -> JSON:
    """The kubelet's and the node controller's reference to a node: its uid is the node's name."""
    return {"kind": "Node", "name": name, "uid": name}


class EventCache:
    """The recently recorded events by identity: where each was written and how many times."""

    def __init__(self, size: int = CACHE_SIZE) -> None:
        self.size = size
        self._entries: OrderedDict[Hashable, tuple[str, str, int]] = OrderedDict()

    def get(self, key: Hashable) -> tuple[str, str, int] | None:
        entry = self._entries.get(key)
        if entry is not None:
            self._entries.move_to_end(key)
        return entry

    def put(self, key: Hashable, namespace: str, name: str, count: int) -> None:
        self._entries[key] = (namespace, name, count)
        self._entries.move_to_end(key)
        if len(self._entries) > self.size:
            self._entries.popitem(last=False)


class EventRecorder:
    def __init__(self, client: Client, names: EventNames, work: Work, component: str, host: str = "",
                 cache: EventCache | None = None) -> None:
        self.client = client
        self.names = names
        self.work = work
        self.source: JSON = {"component": component, **({"host": host} if host else {})}
        self.reporting_instance = host
        self._cache = cache or EventCache()
        self._writes: Hashable = ("events", component, host)  # the key its writes take turns under

    def normal(self, ref: JSON, reason: str, message: str) -> None:
        self.record(ref, "Normal", reason, message)

    def warning(self, ref: JSON, reason: str, message: str) -> None:
        self.record(ref, "Warning", reason, message)

    def record(self, ref: JSON, event_type: str, reason: str, message: str) -> None:
        now = rfc3339(self.client.api.clock.now())
        _queue(self.work, self._writes, lambda: self._write(ref, event_type, reason, message, now), ref, reason)

    def _write(self, ref: JSON, event_type: str, reason: str, message: str, now: str) -> None:
        namespace = ref.get("namespace") or "default"
        key = (ref.get("kind"), namespace, ref.get("name"), ref.get("uid"), ref.get("apiVersion"),
               ref.get("fieldPath"), event_type, reason, message)
        seen = self._cache.get(key)
        if seen is not None:
            try:
                self.client.patch("events", seen[0], seen[1], {"count": seen[2] + 1, "lastTimestamp": now})
                self._cache.put(key, seen[0], seen[1], seen[2] + 1)
                return
            except NotFound:
                pass  # deleted meanwhile: record it anew
        name = self.names.next(str(ref.get("name")))
        event: JSON = {
            "kind": "Event", "apiVersion": "v1", "metadata": {"name": name, "namespace": namespace},
            "involvedObject": ref, "reason": reason, "message": message, "source": self.source,
            "firstTimestamp": now, "lastTimestamp": now, "count": 1, "type": event_type, "eventTime": None,
            "reportingComponent": self.source["component"], "reportingInstance": self.reporting_instance,
        }
        self.client.create("events", namespace, event)
        self._cache.put(key, namespace, name, 1)


class SeriesRecorder:
    def __init__(self, client: Client, names: EventNames, work: Work, controller: str, instance: str) -> None:
        self.client = client
        self.names = names
        self.work = work
        self.controller = controller
        self.instance = instance
        self._cache = EventCache()
        self._writes: Hashable = ("events", controller, instance)

    def record(self, ref: JSON, event_type: str, reason: str, action: str, note: str,
               related: JSON | None = None) -> None:
        now = self.client.api.clock.now()
        _queue(self.work, self._writes, lambda: self._write(ref, event_type, reason, action, _cut(note), related, now),
               ref, reason)

    def _write(self, ref: JSON, event_type: str, reason: str, action: str, note: str, related: JSON | None,
               now: datetime) -> None:
        namespace = ref.get("namespace") or "default"
        key = (ref.get("kind"), namespace, ref.get("name"), ref.get("uid"), event_type, reason, action, note)
        seen = self._cache.get(key)
        if seen is not None:
            count = seen[2] + 1
            try:
                self.client.patch("events", seen[0], seen[1],
                                  {"series": {"count": count, "lastObservedTime": rfc3339_micro(now)}})
                self._cache.put(key, seen[0], seen[1], count)
                return
            except NotFound:
                pass
        name = self.names.next(str(ref.get("name")))
        event: JSON = {
            "kind": "Event", "apiVersion": "v1", "metadata": {"name": name, "namespace": namespace},
            "involvedObject": ref, "reason": reason, "message": note, "source": {},
            "firstTimestamp": None, "lastTimestamp": None, "type": event_type, "eventTime": rfc3339_micro(now),
            "action": action, "reportingComponent": self.controller, "reportingInstance": self.instance,
        }
        if related is not None:
            event["related"] = related
        self.client.create("events", namespace, event)
        self._cache.put(key, namespace, name, 1)


def _queue(work: Work, writes: Hashable, write: Callable[[], None], ref: JSON, reason: str) -> None:
    """Queue an event's write behind the recorder's earlier ones, unless too many wait already."""
    if work.queued_in_turn(writes) >= MAX_QUEUED_EVENTS:
        log.error("Unable to record event: too many queued events, dropped event %s about %s %s/%s",
                  reason, ref.get("kind"), ref.get("namespace"), ref.get("name"))
        return
    work.in_turn_while_storage_waits(writes, lambda: _write_or_drop(write, ref, reason))


def _write_or_drop(write: Callable[[], None], ref: JSON, reason: str) -> None:
    try:
        write()
    except StatusError as error:
        # routine: a namespace being deleted, a fault rule's 4xx; a 5xx says the server is in trouble
        level = logging.DEBUG if error.code < 500 else logging.WARNING
        log.log(level, "Server rejected event %s about %s %s/%s (will not retry!): %s", reason, ref.get("kind"),
                ref.get("namespace"), ref.get("name"), error.message)


def _cut(note: str) -> str:
    """Upstream's truncation of an event note to 1024 bytes, ending ` ...`."""
    if len(note.encode()) <= NOTE_LIMIT:
        return note
    return note.encode()[:NOTE_LIMIT - 4].decode(errors="ignore") + " ..."
