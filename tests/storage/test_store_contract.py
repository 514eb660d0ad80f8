"""One suite, three stores: what callers of a store rely on holds in memory, in an SQLite file and in etcd.

Get, list in storage-key order, create, update and delete with their preconditions, one resourceVersion
sequence, change events to listeners, a watch replayed from a version, lists at an earlier version, and
410 Expired once the history (or etcd, after a compaction) no longer holds a version.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import orjson
import pytest

from fakeapi.machinery.errors import AlreadyExists, Conflict, Expired, NotFound
from fakeapi.machinery.types import ObjectKey
from fakeapi.storage.etcd.config import EtcdConfig
from fakeapi.storage.sqlite import SqliteJournal
from fakeapi.storage.store import Event, Store

StoreFactory = Callable[..., Store]
BACKENDS = ("memory", "sqlite", "etcd")


@pytest.fixture(params=BACKENDS)
def make_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StoreFactory]:
    """`make_store(history=N)`: a new, empty store of the backend."""
    made: list[Store] = []

    def make(history: int = 10_000) -> Store:
        if request.param == "memory":
            store = Store(history)
        elif request.param == "sqlite":
            store = Store(history, journal=SqliteJournal(tmp_path / f"store-{len(made)}.db"))
        else:
            from fakeapi.storage.etcd.store import EtcdStore

            config: EtcdConfig = request.getfixturevalue("etcd_config")
            store = EtcdStore(config, history)
        made.append(store)
        return store

    yield make
    for store in made:
        store.close()


def pod_key(name: str, namespace: str = "default") -> ObjectKey:
    return ObjectKey("pods", namespace, name)


def obj(name: str, **fields: object) -> dict[str, object]:
    return {"metadata": {"name": name}, **fields}


def rv_of(data: bytes) -> str:
    version: str = orjson.loads(data)["metadata"]["resourceVersion"]
    return version


def test_a_created_object_reads_back_at_the_store_version(make_store: StoreFactory) -> None:
    store = make_store()
    given = obj("web", spec={"image": "nginx"})
    store.create(pod_key("web"), given)
    read = store.get(pod_key("web"))
    assert read["spec"] == {"image": "nginx"}
    assert read["metadata"]["resourceVersion"] == str(store.resource_version)
    assert given["metadata"]["resourceVersion"] == read["metadata"]["resourceVersion"]  # type: ignore[index]
    assert store.exists(pod_key("web")) and not store.exists(pod_key("db"))


def test_every_write_takes_a_later_version_of_one_sequence_across_resources(make_store: StoreFactory) -> None:
    store = make_store()
    versions = [store.resource_version]
    for key in (ObjectKey("namespaces", "", "shop"), pod_key("web", "shop"), ObjectKey("nodes", "", "node-1")):
        store.create(key, obj(key.name))
        versions.append(store.resource_version)
    assert versions == sorted(set(versions))


def test_lists_are_in_namespace_then_name_order(make_store: StoreFactory) -> None:
    store = make_store()
    for namespace, name in (("b", "x"), ("a", "z"), ("a", "y"), ("a-b", "w")):
        store.create(pod_key(name, namespace), obj(name, metadata_ns=namespace))
    names = [(orjson.loads(data)["metadata_ns"], orjson.loads(data)["metadata"]["name"])
             for data in store.list_bytes("pods")]
    assert names == [("a-b", "w"), ("a", "y"), ("a", "z"), ("b", "x")]  # `a-b/` sorts before `a/`, as in etcd
    assert [key.name for key, _data in store.items("pods", "a")] == ["y", "z"]
    assert store.list_bytes("nodes") == []


def test_create_of_an_existing_object_is_already_exists(make_store: StoreFactory) -> None:
    store = make_store()
    store.create(pod_key("web"), obj("web"))
    version = store.resource_version
    with pytest.raises(AlreadyExists):
        store.create(pod_key("web"), obj("web", spec={"other": True}))
    assert "spec" not in store.get(pod_key("web")) and store.resource_version == version


def test_update_needs_the_current_version(make_store: StoreFactory) -> None:
    store = make_store()
    store.create(pod_key("web"), obj("web"))
    first = str(store.resource_version)
    store.update(pod_key("web"), obj("web", spec={"v": 2}), first)
    second = store.get(pod_key("web"))["metadata"]["resourceVersion"]
    assert int(second) > int(first)
    with pytest.raises(Conflict):
        store.update(pod_key("web"), obj("web", spec={"v": 3}), first)
    assert store.get(pod_key("web"))["spec"] == {"v": 2}
    with pytest.raises(NotFound):
        store.update(pod_key("db"), obj("db"), first)


def test_delete_answers_the_object_at_a_new_version(make_store: StoreFactory) -> None:
    store = make_store()
    store.create(pod_key("web"), obj("web", spec={"v": 1}))
    version = str(store.resource_version)
    with pytest.raises(Conflict):
        store.delete(pod_key("web"), str(int(version) - 1))
    deleted = store.delete(pod_key("web"), version)
    assert orjson.loads(deleted)["spec"] == {"v": 1}
    assert int(rv_of(deleted)) > int(version) and rv_of(deleted) == str(store.resource_version)
    with pytest.raises(NotFound):
        store.get(pod_key("web"))
    with pytest.raises(NotFound):
        store.delete(pod_key("web"))


def test_listeners_hear_every_change_in_order(make_store: StoreFactory) -> None:
    store = make_store()
    heard: list[Event] = []
    store.subscribe(heard.append)
    store.create(pod_key("web"), obj("web"))
    store.update(pod_key("web"), obj("web", spec={"v": 2}), str(store.resource_version))
    store.delete(pod_key("web"))
    assert [(event.type, event.key) for event in heard] == [
        ("ADDED", pod_key("web")), ("MODIFIED", pod_key("web")), ("DELETED", pod_key("web"))]
    versions = [event.resource_version for event in heard]
    assert versions == sorted(set(versions)) and versions[-1] == store.resource_version
    assert [rv_of(event.data) for event in heard] == [str(version) for version in versions]
    assert heard[1].previous == heard[0].data


def test_a_watch_replays_the_changes_after_a_version(make_store: StoreFactory) -> None:
    store = make_store()
    store.create(pod_key("a"), obj("a"))
    since = store.resource_version
    store.create(pod_key("b"), obj("b"))
    store.delete(pod_key("a"))
    replayed = store.events_since(since)
    assert [(event.type, event.key.name) for event in replayed] == [("ADDED", "b"), ("DELETED", "a")]
    assert store.events_since(store.resource_version) == []


def test_a_version_the_history_forgot_is_expired(make_store: StoreFactory) -> None:
    store = make_store(history=2)
    store.create(pod_key("a"), obj("a"))
    since = store.resource_version
    for name in "bcd":
        store.create(pod_key(name), obj(name))
    with pytest.raises(Expired, match=r"^too old resource version: \d+ \(\d+\)$"):
        store.events_since(since)


def test_a_list_at_an_earlier_version_shows_the_objects_then(make_store: StoreFactory) -> None:
    store = make_store()
    store.create(pod_key("a"), obj("a", spec={"v": 1}))
    at = store.resource_version
    store.update(pod_key("a"), obj("a", spec={"v": 2}), str(at))
    store.create(pod_key("b"), obj("b"))
    then = store.objects_at("pods", None, at)
    assert sorted(key.name for key in then) == ["a"]
    assert orjson.loads(then[pod_key("a")])["spec"] == {"v": 1}
