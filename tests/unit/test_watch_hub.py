"""The watch hub without HTTP: initial events, replay, filters, a sink told of every event, and the cut-off
of a watcher that cannot keep up."""

from __future__ import annotations

import orjson
import pytest

from fakeapi.machinery.clock import Clock
from fakeapi.machinery.types import JSON, ObjectKey
from fakeapi.storage.store import Store
from fakeapi.storage.watch import WatchHub, WatchSpec


class Sink:
    def __init__(self) -> None:
        self.notified = 0

    def notify(self) -> None:
        self.notified += 1

    def gone(self) -> bool:
        return False


def spec(resource_version: int | None = None, namespace: str | None = None,
         matches: object = None) -> WatchSpec:
    return WatchSpec(resource="pods", kind="Pod", api_version="v1", namespace=namespace, name=None,
                     matches=matches,  # type: ignore[arg-type]
                     resource_version=resource_version, send_initial_events=None, allow_bookmarks=False,
                     timeout=60.0)


def events(queue: object) -> list[tuple[str, str]]:
    out = []
    for line in queue:  # type: ignore[attr-defined]
        event = orjson.loads(line)
        out.append((event["type"], event["object"]["metadata"]["name"]))
    return out


def create(store: Store, namespace: str, name: str, **labels: str) -> None:
    obj: JSON = {"metadata": {"name": name, "namespace": namespace, "labels": labels}}
    store.create(ObjectKey("pods", namespace, name), obj)


async def test_a_watch_without_a_version_starts_with_added_events_for_what_exists() -> None:
    store = Store()
    hub = WatchHub(store, Clock())
    create(store, "a", "one")
    sink = Sink()
    watcher = hub.open(spec(), None, sink)
    assert events(watcher.queue) == [("ADDED", "one")]
    create(store, "a", "two")
    assert events(watcher.queue) == [("ADDED", "one"), ("ADDED", "two")]
    assert sink.notified == 2  # once at open, once for the new event


async def test_a_watch_from_a_version_replays_what_came_after_it() -> None:
    store = Store()
    hub = WatchHub(store, Clock())
    create(store, "a", "one")
    create(store, "a", "two")
    watcher = hub.open(spec(resource_version=1), None, Sink())
    assert events(watcher.queue) == [("ADDED", "two")]


async def test_namespace_and_label_filters_turn_leaving_objects_into_deleted() -> None:
    store = Store()
    hub = WatchHub(store, Clock())
    watcher = hub.open(spec(namespace="a", matches=lambda obj: obj["metadata"]["labels"].get("app") == "web"),
                       None, Sink())
    create(store, "a", "web", app="web")
    create(store, "b", "other-namespace", app="web")
    store.update(ObjectKey("pods", "a", "web"), {"metadata": {"name": "web", "namespace": "a", "labels": {}}}, "1")
    assert events(watcher.queue) == [("ADDED", "web"), ("DELETED", "web")]


@pytest.mark.parametrize("limit", [2])
async def test_a_watcher_that_cannot_keep_up_is_cut_off_with_410(limit: int) -> None:
    store = Store()
    hub = WatchHub(store, Clock(), buffer_limit=limit)
    watcher = hub.open(spec(), None, Sink())
    for index in range(limit + 1):
        create(store, "a", f"p{index}")
    assert watcher.closed
    last = orjson.loads(watcher.queue[-1])
    assert (last["type"], last["object"]["code"], last["object"]["reason"]) == ("ERROR", 410, "Expired")
    assert hub.count() == 0


async def test_a_watcher_holding_too_many_bytes_is_cut_off_with_410() -> None:
    store = Store()
    hub = WatchHub(store, Clock(), buffer_bytes=3 * 1024 * 1024 + 1024 * 512)
    watcher = hub.open(spec(), None, Sink())
    big = ObjectKey("pods", "a", "big")
    store.create(big, {"metadata": {"name": "big", "namespace": "a"}, "data": "x" * 1024 * 1024})
    for version in range(1, 3):
        store.update(big, {"metadata": {"name": "big", "namespace": "a"}, "data": "y" * 1024 * 1024}, str(version))
    assert not watcher.closed and len(watcher.queue) == 3  # 3 MiB and a little: not yet 3.5
    assert watcher.take() and watcher.queued_bytes == 0  # written out
    for version in range(3, 7):
        store.update(big, {"metadata": {"name": "big", "namespace": "a"}, "data": "z" * 1024 * 1024}, str(version))
    assert watcher.closed  # the fourth megabyte unread: the 10,000-event bound would have held a gigabyte
    last = orjson.loads(watcher.queue[-1])
    assert (last["type"], last["object"]["code"], last["object"]["reason"]) == ("ERROR", 410, "Expired")
    assert len(watcher.queue) == 1 and hub.count() == 0


async def test_end_all_finishes_every_watch() -> None:
    store = Store()
    hub = WatchHub(store, Clock())
    watchers = [hub.open(spec(), None, Sink()) for _ in range(3)]
    assert hub.end_all() == 3
    assert all(watcher.closed for watcher in watchers)
