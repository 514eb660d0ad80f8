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
"""

from __future__ import annotations

import sqlite3
import zlib
from pathlib import Path

from fakeapi.machinery.types import ObjectKey
from fakeapi.storage.store import Objects, StorageError

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


class SqliteJournal:
    def __init__(self, path: Path) -> None:
        """Open (or create) the file; StorageError if it is not fakeapi's, is damaged, or is in use."""
        self.path = path
        new = _is_new(path)
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
        try:
            row = self._db.execute("SELECT resource_version FROM meta WHERE id = 1").fetchone()
            if row is None:
                raise StorageError(f"{self.path} is damaged (its resourceVersion is missing); {_FIX}")
            last = int(row[0])
            objects: Objects = {}
            for resource, namespace, name, rv, data, checksum in self._db.execute(
                    "SELECT resource, namespace, name, resource_version, data, checksum FROM objects"):
                if zlib.crc32(data) != checksum:
                    where = f"{namespace}/{name}" if namespace else name
                    raise StorageError(f"{self.path} is damaged (the bytes of {resource} {where} do not "
                                       f"match their checksum); {_FIX}")
                objects.setdefault(resource, {}).setdefault(namespace, {})[name] = (str(rv), data)
                last = max(last, rv)
        except sqlite3.Error as error:
            raise StorageError(_describe(self.path, error)) from None
        return objects, last

    def write(self, key: ObjectKey, resource_version: int, data: bytes | None) -> None:
        execute = self._db.execute
        if data is not None:  # one statement: its own transaction
            execute(_PUT, (key.resource, key.namespace, key.name, resource_version, data, zlib.crc32(data)))
            return
        execute("BEGIN")
        try:
            execute(_DELETE, (key.resource, key.namespace, key.name))
            execute(_SET_VERSION, (resource_version,))
            execute("COMMIT")
        except BaseException:
            self._rollback()
            raise

    def replace(self, objects: Objects, resource_version: int) -> None:
        execute = self._db.execute
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

    def close(self) -> None:
        self._db.close()  # the last connection checkpoints the WAL into the file and removes it

    def _rollback(self) -> None:
        if self._db.in_transaction:
            self._db.execute("ROLLBACK")


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
    return f"cannot use the storage file {path}: {error}; {_FIX}"
