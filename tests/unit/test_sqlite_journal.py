"""The SQLite journal: what a store writes is there when the file is opened again, and a file that is not
fakeapi's (or is damaged, or in use) is refused with one line."""

from __future__ import annotations

import shutil
import sqlite3
import zlib
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from fakeapi.machinery.errors import Conflict, Expired, UnknownError
from fakeapi.machinery.types import ObjectKey
from fakeapi.storage.sqlite import APPLICATION_ID, SqliteJournal
from fakeapi.storage.store import StorageError, Store, StoreSnapshot

WEB = ObjectKey("pods", "default", "web")
DB = ObjectKey("pods", "default", "db")
KUBE = ObjectKey("namespaces", "", "kube-system")


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "fakeapi.db"


@pytest.fixture
def store(path: Path) -> Iterator[Store]:
    opened = Store(journal=SqliteJournal(path))
    yield opened
    opened.close()


def reopen(store: Store, path: Path) -> Store:
    store.close()
    return Store(journal=SqliteJournal(path))


def test_a_new_file_is_an_empty_store(store: Store) -> None:
    assert store.resource_version == 0
    assert store.list_bytes("pods") == []


def test_every_write_is_there_after_reopening_and_the_sequence_goes_on(store: Store, path: Path) -> None:
    store.create(KUBE, {"metadata": {"name": "kube-system"}})
    store.create(WEB, {"metadata": {"name": "web"}})
    store.create(DB, {"metadata": {"name": "db"}})
    web = store.update(WEB, {"metadata": {"name": "web", "labels": {"app": "web"}}}, "2")
    store.delete(DB)
    kube = store.get_bytes(KUBE)
    assert store.resource_version == 5

    again = reopen(store, path)
    try:
        assert again.resource_version == 5  # the delete's version too: it is never handed out again
        assert again.list_bytes("pods") == [web]
        assert again.get_bytes(KUBE) == kube
        assert not again.exists(DB)
        with pytest.raises(Expired, match=r"^too old resource version: 4 \(5\)$"):
            again.events_since(4)
        assert again.events_since(5) == []
        created = again.create(DB, {"metadata": {"name": "db"}})
        assert orjson.loads(created)["metadata"]["resourceVersion"] == "6"
        with pytest.raises(Conflict):
            again.update(WEB, {"metadata": {"name": "web"}}, "2")
        updated = again.update(WEB, {"metadata": {"name": "web"}}, "4")
        assert orjson.loads(updated)["metadata"]["resourceVersion"] == "7"
        again = reopen(again, path)
        assert again.resource_version == 7  # an update's version, after a delete's
    finally:
        again.close()


def test_a_restored_snapshot_and_a_reset_are_kept(store: Store, path: Path) -> None:
    store.create(WEB, {"metadata": {"name": "web"}})
    snapshot = store.snapshot()
    store.create(DB, {"metadata": {"name": "db"}})
    store.restore(snapshot)
    again = reopen(store, path)
    assert [orjson.loads(data)["metadata"]["name"] for data in again.list_bytes("pods")] == ["web"]
    assert again.resource_version == 3
    again.restore(StoreSnapshot({}, 0))
    again = reopen(again, path)
    try:
        assert (again.list_bytes("pods"), again.resource_version) == ([], 4)
    finally:
        again.close()


def test_an_empty_file_is_set_up_as_new(path: Path) -> None:
    path.touch()
    journal = SqliteJournal(path)
    try:
        assert journal.load() == ({}, 0)
    finally:
        journal.close()


def test_a_second_server_on_the_same_file_is_refused(store: Store, path: Path) -> None:
    with pytest.raises(StorageError) as refused:
        SqliteJournal(path)
    assert str(refused.value) == (f"{path} is in use by another fakeapi server; stop it, or pass another file "
                                  f"to --storage")


FIX = "move it away, or pass another file to --storage"


def test_a_file_that_is_not_a_database_is_refused(path: Path) -> None:
    path.write_bytes(b"apiVersion: v1\nkind: Pod\n")
    with pytest.raises(StorageError) as refused:
        SqliteJournal(path)
    assert str(refused.value) == f"{path} is not a fakeapi storage file (not an SQLite database); {FIX}"
    assert path.read_bytes() == b"apiVersion: v1\nkind: Pod\n"


def test_another_applications_database_is_refused_and_left_alone(path: Path) -> None:
    with sqlite3.connect(path) as other:
        other.execute("CREATE TABLE notes (text TEXT)")
    other.close()
    before = path.read_bytes()
    with pytest.raises(StorageError) as refused:
        SqliteJournal(path)
    assert str(refused.value) == (f"{path} is not a fakeapi storage file (an SQLite database of another "
                                  f"application, or a damaged one); {FIX}")
    assert path.read_bytes() == before


def test_a_file_of_another_layout_is_refused(store: Store, path: Path) -> None:
    store.close()
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA user_version = 99")
    db.close()
    with pytest.raises(StorageError) as refused:
        SqliteJournal(path)
    assert str(refused.value) == (f"{path} was written by another version of fakeapi (layout 99, this one "
                                  f"reads 2 and earlier); {FIX}")


def write_layout_1(path: Path, rows: list[tuple[str, str, str, int, bytes]]) -> None:
    """A file as the release before group-qualified keys wrote it: objects keyed by their plural alone."""
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE objects (resource TEXT NOT NULL, namespace TEXT NOT NULL, name TEXT NOT NULL,"
                   " resource_version INTEGER NOT NULL, data BLOB NOT NULL, checksum INTEGER NOT NULL,"
                   " PRIMARY KEY (resource, namespace, name))")
        db.execute("CREATE TABLE meta (id INTEGER PRIMARY KEY CHECK (id = 1), resource_version INTEGER NOT NULL)")
        db.execute("INSERT INTO meta VALUES (1, 0)")
        db.executemany("INSERT INTO objects VALUES (?, ?, ?, ?, ?, ?)",
                       [(*row, zlib.crc32(row[-1])) for row in rows])
        db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        db.execute("PRAGMA user_version = 1")
    db.close()


def test_a_file_of_the_previous_layout_is_migrated_to_group_qualified_keys(path: Path) -> None:
    lease = orjson.dumps({"metadata": {"name": "node-1", "namespace": "kube-node-lease", "resourceVersion": "7"}})
    pod = orjson.dumps({"metadata": {"name": "web", "namespace": "default", "resourceVersion": "8"}})
    write_layout_1(path, [("leases", "kube-node-lease", "node-1", 7, lease), ("pods", "default", "web", 8, pod)])
    store = Store(journal=SqliteJournal(path))
    try:
        assert store.resource_version == 8
        assert store.get_bytes(ObjectKey("leases.coordination.k8s.io", "kube-node-lease", "node-1")) == lease
        assert store.get_bytes(WEB) == pod
        assert store.list_bytes("leases") == []
    finally:
        store.close()
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone() == (2,)
        assert sorted(db.execute("SELECT resource FROM objects")) == [("leases.coordination.k8s.io",), ("pods",)]
    db.close()


def test_damaged_pages_are_refused(store: Store, path: Path) -> None:
    for index in range(20):
        store.create(ObjectKey("pods", "default", f"pod-{index}"), {"metadata": {"name": f"pod-{index}"}})
    store.close()
    with path.open("r+b") as file:
        file.seek(4096 + 8)  # the second page: the first table's b-tree
        file.write(b"\xff" * 64)
    with pytest.raises(StorageError) as refused:
        SqliteJournal(path)
    message = str(refused.value)  # what quick_check found, e.g. `On tree page 2 cell 19: Offset 65535 out of ...`
    assert message.startswith(f"{path} is damaged (") and message.endswith(f"); {FIX}") and "\n" not in message


def test_damaged_bytes_inside_an_object_are_refused(store: Store, path: Path) -> None:
    store.create(WEB, {"metadata": {"name": "web"}, "spec": {"image": "nginx:1.27"}})
    store.close()
    data = path.read_bytes()
    assert data.count(b"nginx:1.27") == 1
    path.write_bytes(data.replace(b"nginx:1.27", b"nginx:6.66"))
    journal = SqliteJournal(path)
    try:
        with pytest.raises(StorageError) as refused:
            journal.load()
    finally:
        journal.close()
    assert str(refused.value) == (f"{path} is damaged (the row of pods default/web: its bytes do not match their "
                                  f"checksum); {FIX}")


def test_a_missing_folder_is_named(tmp_path: Path) -> None:
    with pytest.raises(StorageError) as refused:
        SqliteJournal(tmp_path / "missing" / "fakeapi.db")
    assert str(refused.value) == (f"cannot create the storage file {tmp_path / 'missing' / 'fakeapi.db'}: no such "
                                  f"file or directory; check the path and its permissions")


def test_a_new_file_and_its_write_ahead_log_are_readable_by_their_owner_only(store: Store, path: Path) -> None:
    store.create(WEB, {"metadata": {"name": "web"}, "data": {"password": "c2VjcmV0"}})
    wal = path.with_name(path.name + "-wal")
    assert wal.stat().st_size > 0  # (the write is in the log until a checkpoint)
    assert (path.stat().st_mode & 0o777, wal.stat().st_mode & 0o777) == (0o600, 0o600)
    assert not path.with_name(path.name + "-shm").exists()  # (exclusive locking: no shared-memory index)


@pytest.mark.parametrize("data, problem", [
    (b'{"metadata": {"name": "web"', "its bytes are not JSON: unexpected end of data: line 1 column 28 (char 27)"),
    (b'{"metadata": {"name": "db", "resourceVersion": "1"}}', "its bytes are not the object the row names, at its "
                                                          "version"),
    (b'[1, 2]', "its bytes are not the object the row names, at its version"),
    ("text, not bytes", "it is not a row fakeapi wrote"),
])
def test_a_row_whose_content_is_broken_is_named_in_one_line(store: Store, path: Path, data: bytes | str,
                                                             problem: str) -> None:
    store.create(WEB, {"metadata": {"name": "web"}})
    store.close()
    with sqlite3.connect(path) as db:  # as a hand edit (or another program) would leave it, checksum and all
        checksum = zlib.crc32(data if isinstance(data, bytes) else data.encode())
        db.execute("UPDATE objects SET data = ?, checksum = ? WHERE name = 'web'", (data, checksum))
    db.close()
    journal = SqliteJournal(path)
    try:
        with pytest.raises(StorageError) as refused:
            journal.load()
    finally:
        journal.close()
    assert str(refused.value) == f"{path} is damaged (the row of pods default/web: {problem}); {FIX}"


def _crash_image(path: Path, copy: Path) -> Path:
    """The files as a crash would leave them (the writes are in the log, no checkpoint): copies taken while the
    store still has them open."""
    for suffix in ("", "-wal"):
        shutil.copyfile(path.with_name(path.name + suffix), copy.with_name(copy.name + suffix))
    return copy.with_name(copy.name + "-wal")


def _six_writes(store: Store) -> None:
    for index in range(6):
        store.create(ObjectKey("pods", "default", f"pod-{index}"), {"metadata": {"name": f"pod-{index}"}})


def test_a_crash_image_is_recovered_whole(store: Store, path: Path, tmp_path: Path) -> None:
    _six_writes(store)
    _crash_image(path, tmp_path / "crashed.db")
    recovered = Store(journal=SqliteJournal(tmp_path / "crashed.db"))
    try:
        assert len(recovered.list_bytes("pods")) == 6 and recovered.resource_version == 6
    finally:
        recovered.close()


def test_a_write_cut_short_by_a_crash_is_no_damage(store: Store, path: Path, tmp_path: Path) -> None:
    _six_writes(store)
    wal = _crash_image(path, tmp_path / "crashed.db")
    wal.write_bytes(wal.read_bytes()[:-100])  # the last frame half written: that write was never acknowledged
    recovered = Store(journal=SqliteJournal(tmp_path / "crashed.db"))
    try:
        assert len(recovered.list_bytes("pods")) == 5
    finally:
        recovered.close()


@pytest.mark.parametrize("where, problem", [
    (32 + 4120 + 24 + 7, "its frame 2 does not check out and 5 committed transaction(s) follow it"),
    (32 + 4120 + 9, "its frame 2 does not check out and 5 committed transaction(s) follow it"),  # a salt
    (20, "its header is broken and 12 frame(s) follow it"),
])
def test_a_damaged_write_ahead_log_is_refused_rather_than_replayed_in_part(store: Store, path: Path, tmp_path: Path,
                                                                          where: int, problem: str) -> None:
    _six_writes(store)
    copy = tmp_path / "crashed.db"
    wal = _crash_image(path, copy)
    log = bytearray(wal.read_bytes())
    assert len(log) == 32 + 12 * 4120  # two pages per write (the table's and its key's), the second commits
    log[where] ^= 0x01
    wal.write_bytes(bytes(log))
    with pytest.raises(StorageError) as refused:
        SqliteJournal(copy)
    assert str(refused.value).startswith(f"{wal} is damaged: {problem}, so SQLite would silently drop writes ")
    assert wal.read_bytes() == bytes(log)


def test_a_write_the_file_refuses_fails_in_words_and_changes_nothing(store: Store, path: Path,
                                                                     caplog: pytest.LogCaptureFixture) -> None:
    store.create(WEB, {"metadata": {"name": "web"}})
    journal = store._journal
    assert isinstance(journal, SqliteJournal)
    journal._db.execute("PRAGMA query_only = 1")  # as a file gone read-only under the server
    for _ in range(2):
        with pytest.raises(UnknownError) as failed:
            store.create(DB, {"metadata": {"name": "db"}})
        assert failed.value.message == f"the storage file {path} is read-only (attempt to write a readonly database)"
        assert failed.value.to_status()["code"] == 500 and "reason" not in failed.value.to_status()
    with pytest.raises(UnknownError):
        store.delete(WEB)
    assert store.resource_version == 1 and store.exists(WEB) and not store.exists(DB)
    assert [record.getMessage() for record in caplog.records] == [  # once, not per write
        f"fakeapi: the storage file {path} is read-only (attempt to write a readonly database); writes fail until "
        f"it is fixed"]
    journal._db.execute("PRAGMA query_only = 0")
    store.create(DB, {"metadata": {"name": "db"}})
    assert store.resource_version == 2
    assert caplog.records[-1].getMessage() == f"fakeapi: writes to the storage file {path} pass again"


def test_a_full_disk_is_named(store: Store, path: Path) -> None:
    store.create(WEB, {"metadata": {"name": "web"}})
    journal = store._journal
    assert isinstance(journal, SqliteJournal)
    pages = journal._db.execute("PRAGMA page_count").fetchone()[0]
    journal._db.execute(f"PRAGMA max_page_count = {pages}")  # no page more: as a full disk
    with pytest.raises(UnknownError) as failed:
        store.create(DB, {"metadata": {"name": "db"}, "data": {"blob": "x" * 100_000}})
    assert failed.value.message == f"the disk of the storage file {path} is full (database or disk is full)"
    assert not store.exists(DB)
