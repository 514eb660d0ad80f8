"""The versioned store without HTTP: one global resourceVersion, bytes in and copies out, change events,
preconditions, history and snapshots; a write takes a resourceVersion only once it is stored."""

from __future__ import annotations

import orjson
import pytest

from fakeapi.machinery.errors import AlreadyExists, Conflict, Expired, NotFound
from fakeapi.machinery.types import ObjectKey
from fakeapi.storage.store import Event, Objects, Store

POD = ObjectKey("pods", "default", "web")
NAMESPACE = ObjectKey("namespaces", "", "default")


def obj(name: str, **extra: object) -> dict[str, object]:
    return {"metadata": {"name": name}, **extra}


def test_one_resource_version_sequence_across_resources() -> None:
    store = Store()
    store.create(NAMESPACE, obj("default"))
    store.create(POD, obj("web"))
    store.update(POD, obj("web", spec={"x": 1}), "2")
    assert store.resource_version == 3
    assert store.get(NAMESPACE)["metadata"]["resourceVersion"] == "1"
    assert store.get(POD)["metadata"]["resourceVersion"] == "3"


def test_the_store_keeps_no_reference_to_what_it_was_given_or_handed_out() -> None:
    store = Store()
    given = obj("web", spec={"containers": []})
    store.create(POD, given)
    given["spec"]["containers"].append("changed")  # type: ignore[index]
    read = store.get(POD)
    read["spec"]["containers"].append("changed too")
    assert store.get(POD)["spec"] == {"containers": []}
    assert orjson.loads(store.get_bytes(POD))["spec"] == {"containers": []}


def test_create_of_an_existing_key_and_update_of_a_missing_one_fail() -> None:
    store = Store()
    store.create(POD, obj("web"))
    with pytest.raises(AlreadyExists):
        store.create(POD, obj("web"))
    with pytest.raises(NotFound):
        store.update(ObjectKey("pods", "default", "other"), obj("other"), "1")
    assert store.resource_version == 1


def test_update_with_a_stale_version_is_a_conflict_and_changes_nothing() -> None:
    store = Store()
    store.create(POD, obj("web"))
    store.update(POD, obj("web", spec={"v": 2}), "1")
    with pytest.raises(Conflict):
        store.update(POD, obj("web", spec={"v": 3}), "1")
    assert store.get(POD)["spec"] == {"v": 2}
    assert store.resource_version == 2


def test_delete_answers_the_object_at_a_new_version_and_emits_deleted() -> None:
    store = Store()
    events: list[Event] = []
    store.subscribe(events.append)
    store.create(POD, obj("web"))
    deleted = orjson.loads(store.delete(POD))
    assert deleted["metadata"]["resourceVersion"] == "2"
    assert not store.exists(POD)
    assert [(e.type, e.resource_version) for e in events] == [("ADDED", 1), ("DELETED", 2)]
    assert events[1].previous is not None and orjson.loads(events[1].previous)["metadata"]["resourceVersion"] == "1"


def test_lists_are_in_namespace_then_name_order() -> None:
    store = Store()
    for namespace, name in (("b", "z"), ("a", "y"), ("b", "a"), ("a", "x")):
        store.create(ObjectKey("pods", namespace, name), obj(name))
    names = [orjson.loads(data)["metadata"]["name"] for data in store.list_bytes("pods")]
    assert names == ["x", "y", "a", "z"]
    assert [orjson.loads(d)["metadata"]["name"] for d in store.list_bytes("pods", "b")] == ["a", "z"]


def test_history_replays_changes_after_a_version_and_expires_what_it_forgot() -> None:
    store = Store(history=2)
    for index in range(4):
        store.create(ObjectKey("pods", "default", f"p{index}"), obj(f"p{index}"))
    assert [event.resource_version for event in store.events_since(2)] == [3, 4]
    with pytest.raises(Expired):
        store.events_since(1)


def test_history_is_bounded_in_bytes_so_a_large_object_rewritten_often_pins_little() -> None:
    store = Store(history=10_000, history_bytes=10 * 1024 * 1024)
    config_map = ObjectKey("configmaps", "default", "big")
    store.create(config_map, obj("big", data={"blob": "x" * 1024 * 1024}))
    for index in range(100):
        store.update(config_map, obj("big", data={"blob": str(index % 10) * 1024 * 1024}), str(index + 1))
    assert store.history_bytes <= 10 * 1024 * 1024  # not the 200 MiB of a hundred changes, before and after
    kept = store.events_since(store.resource_version - 4)
    assert [event.resource_version for event in kept] == [98, 99, 100, 101]
    with pytest.raises(Expired, match=r"^too old resource version: 50 \(9[0-9]\)$"):
        store.events_since(50)


def test_the_newest_change_stays_replayable_however_large() -> None:
    store = Store(history_bytes=1000)
    store.create(POD, obj("web", data="x" * 5000))
    assert [event.resource_version for event in store.events_since(0)] == [1]


def test_history_forgets_changes_older_than_75_seconds_by_default() -> None:
    now = [1000.0]
    store = Store(now=lambda: now[0])
    store.create(POD, obj("web"))
    now[0] += 60
    store.update(POD, obj("web", spec={"x": 1}), "1")
    assert [event.resource_version for event in store.events_since(0)] == [1, 2]
    now[0] += 16  # the first change is 76 s old
    with pytest.raises(Expired, match=r"^too old resource version: 0 \(1\)$"):
        store.events_since(0)
    assert [event.resource_version for event in store.events_since(1)] == [2]


def test_objects_at_an_older_version_are_rebuilt_from_history() -> None:
    store = Store()
    store.create(POD, obj("web", spec={"v": 1}))
    store.update(POD, obj("web", spec={"v": 2}), "1")
    store.create(ObjectKey("pods", "default", "later"), obj("later"))
    at_one = store.objects_at("pods", "default", 1)
    assert list(at_one) == [POD]
    assert orjson.loads(at_one[POD])["spec"] == {"v": 1}


def test_a_restored_snapshot_counts_on_and_drops_history() -> None:
    store = Store()
    store.create(POD, obj("web"))
    snapshot = store.snapshot()
    store.delete(POD)
    store.restore(snapshot)
    assert store.exists(POD)
    assert store.resource_version == 3
    with pytest.raises(Expired):
        store.events_since(1)


def test_work_queued_by_a_listener_runs_after_the_change_reached_every_listener() -> None:
    """How a controller writes in reaction to a change: its change reaches listeners after the first."""
    store = Store()
    seen: list[tuple[str, int]] = []

    def controller(event: Event) -> None:
        if event.key == NAMESPACE and event.type == "ADDED":
            store.after_delivery(lambda: store.create(POD, obj("made")))
            store.after_delivery(lambda: store.create(ObjectKey("pods", "default", "second"), obj("second")))

    store.subscribe(controller)
    store.subscribe(lambda event: seen.append((event.key.name, event.resource_version)))
    store.create(NAMESPACE, obj("default"))
    assert seen == [("default", 1), ("web", 2), ("second", 3)]  # in resourceVersion order, each once
    assert store.resource_version == 3


def test_work_queued_outside_a_change_runs_at_once() -> None:
    store = Store()
    store.after_delivery(lambda: store.create(POD, obj("web")))
    assert store.exists(POD)


class FailingJournal:
    """A journal whose disk is full: every write fails."""

    def load(self) -> tuple[Objects, int]:
        return {}, 0

    def write(self, key: ObjectKey, resource_version: int, data: bytes | None) -> None:
        raise OSError("No space left on device")

    def replace(self, objects: Objects, resource_version: int) -> None:
        raise OSError("No space left on device")

    def close(self) -> None:
        pass


def test_a_write_whose_object_cannot_be_encoded_uses_up_no_resource_version() -> None:
    store = Store()
    store.create(POD, {"metadata": {"name": "web"}})
    with pytest.raises(TypeError):
        store.update(POD, {"metadata": {"name": "web"}, "spec": {"big": 2**64}}, "1")
    with pytest.raises(TypeError):
        store.create(ObjectKey("pods", "default", "db"), {"metadata": {"name": "db"}, "spec": {"big": 2**64}})
    assert store.resource_version == 1
    assert store.update(POD, {"metadata": {"name": "web"}}, "1") == b'{"metadata":{"name":"web","resourceVersion":"2"}}'
    assert not store.exists(ObjectKey("pods", "default", "db"))


def test_a_write_the_journal_cannot_store_changes_nothing() -> None:
    store = Store(journal=FailingJournal())
    events: list[Event] = []
    store.subscribe(events.append)
    with pytest.raises(OSError, match="No space left"):
        store.create(POD, {"metadata": {"name": "web"}})
    assert (store.resource_version, store.exists(POD), events) == (0, False, [])
    assert store.list_bytes("pods") == []
    with pytest.raises(OSError, match="No space left"):
        store.restore(store.snapshot())
    assert store.resource_version == 0


def test_a_loaded_store_serves_its_objects_and_replays_nothing_from_before() -> None:
    class Loaded(FailingJournal):
        def load(self) -> tuple[Objects, int]:
            return {"pods": {"default": {"web": ("7", b'{"metadata":{"name":"web","resourceVersion":"7"}}')}}}, 9

    store = Store(journal=Loaded())
    assert store.resource_version == 9
    assert orjson.loads(store.get_bytes(POD))["metadata"]["resourceVersion"] == "7"
    assert store.events_since(9) == []
    with pytest.raises(Expired, match=r"^too old resource version: 8 \(9\)$"):
        store.events_since(8)
