"""A store journal in one SQLite file (the standard library's sqlite3): `fakeapi serve --storage sqlite:PATH`.

Two tables: `objects` (one row per object: its key, resourceVersion, JSON bytes and their CRC-32) and
`meta` (one row: the version of the last delete or replace). The last resourceVersion handed out is
the larger of that and the objects' newest, so a restart never reuses one; a create or update writes
its row alone (a page less per write than keeping the version in `meta` too). The file header says
whose file it is: `application_id` is fakeapi's and `user_version` the layout's. A foreign or damaged
file is refused with one line rather than served as an empty store or with broken objects: SQLite's
quick_check finds damaged pages, the checksums damaged bytes inside an object (which SQLite does not
check).

Durability: WAL journal mode, one transaction per write, `synchronous=NORMAL`. A write returns once its
commit has written the transaction to the WAL file, that is to the operating system: it survives the
fakeapi process being killed (`kill -9`, the OOM killer, a crash), which is what a development server
meets. It does not survive the machine losing power or the kernel crashing before the next checkpoint
(NORMAL fsyncs only then); the file stays consistent, but the last writes can be missing. FULL would
fsync every commit: milliseconds per write on a virtual disk, against tens of microseconds. The file
is locked for this process alone (EXCLUSIVE locking mode, which also spares WAL its shared-memory
index): a second server on the same file is refused instead of overwriting the first one's objects.
A log left by a crash is checked before SQLite replays it (walcheck.py); a write the file refuses
answers a 500 naming the cause (read-only, full, I/O error). See docs/storage.md.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import zlib
from pathlib import Path
from typing import Any

import orjson

from fakeapi.machinery.errors import UnknownError
from fakeapi.machinery.types import ObjectKey
from fakeapi.storage.store import Objects, StorageError
from fakeapi.storage.walcheck import check_wal

APPLICATION_ID = int.from_bytes(b"fapi")  # at offset 68 of the file header
LAYOUT_VERSION = 2  # user_version, at offset 60: bump when the tables change, with a migration below
SQLITE_MAGIC = b"SQLite format 3\x00"

_SCHEMA = (
    "CREATE TABLE objects (resource TEXT NOT NULL, namespace TEXT NOT NULL, name TEXT NOT NULL,"
    " resource_version INTEGER NOT NULL, data BLOB NOT NULL, checksum INTEGER NOT NULL,"
    " PRIMARY KEY (resource, namespace, name))",
    "CREATE TABLE meta (id INTEGER PRIMARY KEY CHECK (id = 1), resource_version INTEGER NOT NULL)",
    "INSERT INTO meta VALUES (1, 0)",
    f"PRAGMA application_id = {APPLICATION_ID}",
    f"PRAGMA user_version = {LAYOUT_VERSION}",
)
# how a file of an earlier layout is brought to the next one, by that layout's number
_MIGRATIONS: dict[int, tuple[str, ...]] = {
    # 1 keyed objects by their plural alone; 2 by their group resource. Leases were its only kind in a group.
    1: ("UPDATE objects SET resource = 'leases.coordination.k8s.io' WHERE resource = 'leases'",),
}
_INSERT = "INSERT INTO objects VALUES (?, ?, ?, ?, ?, ?)"
_PUT = (_INSERT + " ON CONFLICT DO UPDATE SET resource_version = excluded.resource_version,"
        " data = excluded.data, checksum = excluded.checksum")
_DELETE = "DELETE FROM objects WHERE resource = ? AND namespace = ? AND name = ?"
_SET_VERSION = "UPDATE meta SET resource_version = ? WHERE id = 1"
_FIX = "move it away, or pass another file to --storage"
FILE_MODE = 0o600  # the objects include Secrets: the file (and its -wal, which SQLite gives its mode) is the user's

log = logging.getLogger("fakeapi.storage")


class SqliteJournal:
    def __init__(self, path: Path) -> None:
        """Open (or create) the file; StorageError if it is not fakeapi's, is damaged, or is in use."""
        self.path = path
        new = _is_new(path)
        check_wal(path, new)  # before SQLite reads the log (and drops what it cannot check)
        if new:
            _create(path)
        else:
            _check_writable(path)
        self._failing = False  # the last write failed (logged once, until one passes again)
        try:
            # isolation_level=None: a lone statement is its own transaction, others are put in an explicit
            # BEGIN/COMMIT. The store is used from one thread at a time, but not always the one that
            # opened it (the in-process server builds its app before starting its loop's thread).
            self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as error:
            raise StorageError(f"cannot open the storage file {path}: {error}; check the path and its "
                               f"permissions") from None
        try:
            self._open(new)
        except sqlite3.Error as error:
            self._db.close()
            raise StorageError(_describe(path, error)) from None
        except StorageError:
            self._db.close()
            raise

    def _open(self, new: bool) -> None:
        db, path = self._db, self.path
        db.execute("PRAGMA busy_timeout = 0")  # another server holding the file: fail at once
        db.execute("PRAGMA locking_mode = EXCLUSIVE")
        # take the lock and read the header in one go: nobody can change either afterwards
        db.execute("BEGIN EXCLUSIVE")
        application_id = db.execute("PRAGMA application_id").fetchone()[0]
        layout = db.execute("PRAGMA user_version").fetchone()[0]
        if new:
            for statement in _SCHEMA:
                db.execute(statement)
        elif application_id != APPLICATION_ID:
            raise StorageError(f"{path} is not a fakeapi storage file (an SQLite database of another "
                               f"application, or a damaged one); {_FIX}")
        elif not 1 <= layout <= LAYOUT_VERSION:
            raise StorageError(f"{path} was written by another version of fakeapi (layout {layout}, this "
                               f"one reads {LAYOUT_VERSION} and earlier); {_FIX}")
        else:
            problems = [row[0] for row in db.execute("PRAGMA quick_check")]
            if problems != ["ok"]:
                raise StorageError(f"{path} is damaged ({_first_problem(problems)}); {_FIX}")
            for earlier in range(layout, LAYOUT_VERSION):  # in the same transaction: all of it, or none
                for statement in _MIGRATIONS[earlier]:
                    db.execute(statement)
            db.execute(f"PRAGMA user_version = {LAYOUT_VERSION}")
        db.execute("COMMIT")
        # WAL: a commit appends to the -wal file (no rewrite of pages in place, one write per commit).
        # It is switched on with the lock held, so no shared-memory index is made (EXCLUSIVE mode).
        if db.execute("PRAGMA journal_mode = WAL").fetchone()[0] != "wal":
            raise StorageError(f"{path} cannot be used in WAL mode; {_FIX}")
        db.execute("PRAGMA synchronous = NORMAL")  # see the module docstring

    # ---- the Journal protocol

    def load(self) -> tuple[Objects, int]:
        """Every object, each checked whole (its checksum, then that it is the object its row names): a
        broken one stops the start with one line naming it, rather than failing the first request for it."""
        try:
            row = self._db.execute("SELECT resource_version FROM meta WHERE id = 1").fetchone()
            if row is None or type(row[0]) is not int:
                raise StorageError(f"{self.path} is damaged (its resourceVersion is missing); {_FIX}")
            last: int = row[0]
            objects: Objects = {}
            for resource, namespace, name, rv, data, checksum in self._db.execute(
                    "SELECT resource, namespace, name, resource_version, data, checksum FROM objects"):
                problem = _row_problem(name, rv, data, checksum)
                if problem is not None:
                    where = f"{namespace}/{name}" if namespace else name
                    raise StorageError(f"{self.path} is damaged (the row of {resource} {where}: {problem}); {_FIX}")
                objects.setdefault(resource, {}).setdefault(namespace, {})[name] = (str(rv), data)
                last = max(last, rv)
        except sqlite3.Error as error:
            raise StorageError(_describe(self.path, error)) from None
        return objects, last

    def write(self, key: ObjectKey, resource_version: int, data: bytes | None) -> None:
        execute = self._db.execute
        try:
            if data is not None:  # one statement: its own transaction
                execute(_PUT, (key.resource, key.namespace, key.name, resource_version, data, zlib.crc32(data)))
            else:
                execute("BEGIN")
                try:
                    execute(_DELETE, (key.resource, key.namespace, key.name))
                    execute(_SET_VERSION, (resource_version,))
                    execute("COMMIT")
                except BaseException:
                    self._rollback()
                    raise
        except sqlite3.Error as error:
            raise self._failed(error) from None
        self._passed()

    def replace(self, objects: Objects, resource_version: int) -> None:
        execute = self._db.execute
        try:
            execute("BEGIN")
            try:
                execute("DELETE FROM objects")
                self._db.executemany(_INSERT, (
                    (resource, namespace, name, int(rv), data, zlib.crc32(data))
                    for resource, spaces in objects.items()
                    for namespace, names in spaces.items()
                    for name, (rv, data) in names.items()))
                execute(_SET_VERSION, (resource_version,))
                execute("COMMIT")
            except BaseException:
                self._rollback()
                raise
        except sqlite3.Error as error:
            raise self._failed(error) from None
        self._passed()

    def _failed(self, error: sqlite3.Error) -> UnknownError:
        """A write the file did not take: nothing changed. Upstream answers a storage failure with its error
        as a 500 without a reason; the log says so once, until a write passes again."""
        message = _write_problem(self.path, error)
        if not self._failing:
            self._failing = True
            log.error("fakeapi: %s; writes fail until it is fixed", message)
        return UnknownError(message)

    def _passed(self) -> None:
        if self._failing:
            self._failing = False
            log.warning("fakeapi: writes to the storage file %s pass again", self.path)

    def close(self) -> None:
        self._db.close()  # the last connection checkpoints the WAL into the file and removes it

    def _rollback(self) -> None:
        if self._db.in_transaction:
            try:
                self._db.execute("ROLLBACK")
            except sqlite3.Error:
                pass  # (SQLite rolled it back itself: an I/O error, a full disk)


def _create(path: Path) -> None:
    """A new, empty file only its owner may read: SQLite would make it world-readable (0644), and gives
    the -wal file the database's mode."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE))
    except FileExistsError:
        pass  # (created meanwhile: SQLite's checks apply)
    except OSError as error:
        raise StorageError(f"cannot create the storage file {path}: {(error.strerror or str(error)).lower()}; "
                           f"check the path and its permissions") from None


def _check_writable(path: Path) -> None:
    """A file (or folder) that cannot be written is refused in words: SQLite would open it read-only and
    fail its lock with a `disk I/O error`."""
    if not os.access(path, os.W_OK):
        raise StorageError(f"{path} is read-only: fakeapi writes every change to it; make it writable, or pass "
                           f"another file to --storage")
    if not os.access(path.parent, os.W_OK | os.X_OK):
        raise StorageError(f"the folder of {path} is read-only: SQLite keeps its write-ahead log beside the "
                           f"file; make the folder writable, or pass a file in another one to --storage")


def _row_problem(name: Any, rv: Any, data: Any, checksum: Any) -> str | None:
    """What is wrong with a row of `objects` (None when it holds the object it names, at its version)."""
    if type(data) is not bytes or type(rv) is not int or type(checksum) is not int:
        return "it is not a row fakeapi wrote"
    if zlib.crc32(data) != checksum:
        return "its bytes do not match their checksum"
    try:
        obj = orjson.loads(data)
    except orjson.JSONDecodeError as error:
        return f"its bytes are not JSON: {error}"
    meta = obj.get("metadata") if type(obj) is dict else None
    if type(meta) is not dict or meta.get("name") != name or meta.get("resourceVersion") != str(rv):
        return "its bytes are not the object the row names, at its version"
    return None


def _write_problem(path: Path, error: sqlite3.Error) -> str:
    """A failed write, on one line: what is wrong with the file, in words, then SQLite's own."""
    name = getattr(error, "sqlite_errorname", "")
    if name.startswith("SQLITE_READONLY"):
        return f"the storage file {path} is read-only ({error})"
    if name == "SQLITE_FULL":
        return f"the disk of the storage file {path} is full ({error})"
    if name.startswith("SQLITE_IOERR"):
        return f"the storage file {path} cannot be written: an I/O error ({error})"
    if name in ("SQLITE_CORRUPT", "SQLITE_NOTADB"):
        return f"the storage file {path} is damaged ({error})"
    return f"cannot write to the storage file {path}: {error}"


def _is_new(path: Path) -> bool:
    """Whether the file is missing or empty, and so to be set up. Any other file must be fakeapi's: one
    that is not an SQLite database at all is refused before SQLite sees it."""
    try:
        with path.open("rb") as file:
            head = file.read(len(SQLITE_MAGIC))
    except FileNotFoundError:
        return True
    except OSError as error:
        raise StorageError(f"cannot read the storage file {path}: {(error.strerror or str(error)).lower()}; "
                           f"check the path and its permissions") from None
    if head and head != SQLITE_MAGIC:
        raise StorageError(f"{path} is not a fakeapi storage file (not an SQLite database); {_FIX}")
    return not head


def _first_problem(problems: list[str]) -> str:
    """quick_check's first finding, on one line (its rows can span lines, under a `*** in database` title)."""
    lines = [line for problem in problems for line in problem.splitlines() if line and not line.startswith("***")]
    return lines[0] if lines else "quick_check failed"


def _describe(path: Path, error: sqlite3.Error) -> str:
    name = getattr(error, "sqlite_errorname", "")
    if name in ("SQLITE_BUSY", "SQLITE_LOCKED"):
        return f"{path} is in use by another fakeapi server; stop it, or pass another file to --storage"
    if name in ("SQLITE_NOTADB", "SQLITE_CORRUPT"):
        return f"{path} is damaged ({error}); {_FIX}"
    if name.startswith("SQLITE_READONLY") or name == "SQLITE_IOERR_LOCK":
        return (f"{path} is read-only ({error}): fakeapi writes every change to it; make it and its folder "
                f"writable, or pass another file to --storage")
    return f"cannot use the storage file {path}: {error}; {_FIX}"
