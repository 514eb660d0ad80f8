"""Acknowledged writes that SQLite would drop from a damaged write-ahead log, found before SQLite opens it.

A server that stops uncleanly leaves `<file>-wal`: the transactions committed since the last checkpoint.
SQLite recovers them by replaying the log's frames in order while each frame carries the header's salts
and its checksum continues the chain, and stops at the first frame that does not, without a word: one
damaged frame drops every transaction committed after it. Frames that are not damage end the log the same
way: those of an earlier cycle of the log (other salts) and those of a transaction cut short (no commit
frame, or its last frame half written), which was never acknowledged.

`check_wal` refuses a log in which a commit frame of the current cycle (the header's salts) lies past the
point where SQLite would stop, or whose header is damaged while frames follow it. What it cannot see: damage
in the last transaction of the log, which looks like a write cut short; and frames lost with the machine's
power before they reached the disk (see docs/storage.md).
"""

from __future__ import annotations

import struct
from pathlib import Path

from fakeapi.storage.store import StorageError

MAGIC = 0x377F0682  # | 1 when the checksums read big-endian words
VERSION = 3007000
HEADER, FRAME_HEADER = 32, 24
_MASK = 0xFFFFFFFF


def wal_path(path: Path) -> Path:
    return path.with_name(path.name + "-wal")


def check_wal(path: Path, new: bool = False) -> None:
    """StorageError if the write-ahead log of the SQLite file `path` would lose committed transactions (or,
    for a `new` file, if a log is left from an earlier file of that name)."""
    wal = wal_path(path)
    try:
        log = wal.read_bytes()
    except FileNotFoundError:
        return
    except OSError as error:
        raise StorageError(f"cannot read {wal}: {(error.strerror or str(error)).lower()}; check its "
                           f"permissions") from None
    if new and log:
        raise StorageError(f"{wal} is left from an earlier {path.name}, and SQLite would replay it into the new "
                           f"file; move it away (or bring back the file it belongs with)")
    problem = _problem(log)
    if problem is not None:
        raise StorageError(
            f"{wal} is damaged: {problem}, so SQLite would silently drop writes fakeapi acknowledged; keep copies "
            f"of {path} and {wal}, then either open {path} once with the sqlite3 shell (which keeps the writes "
            f"before the damage) or pass another file to --storage")


def _problem(log: bytes) -> str | None:
    if len(log) < HEADER:
        return None  # a header cut short: no frame was written after it
    magic, version, page_size, _checkpoint, salt1, salt2, sum1, sum2 = struct.unpack(">8I", log[:HEADER])
    frame_size = FRAME_HEADER + page_size
    big_endian = bool(magic & 1)
    valid = (magic & ~1 == MAGIC and version == VERSION and 512 <= page_size <= 65536
             and page_size & (page_size - 1) == 0)
    if not valid or _checksum(log[:24], 0, 0, big_endian) != (sum1, sum2):
        frames = (len(log) - HEADER) // frame_size if valid else (len(log) - HEADER) // (FRAME_HEADER + 512)
        return f"its header is broken and {frames} frame(s) follow it" if frames else None
    salts = (salt1, salt2)
    sums = (sum1, sum2)
    offset, frame = HEADER, 0
    while offset + frame_size <= len(log):  # where SQLite's recovery stops
        page, _commit, frame_salt1, frame_salt2, frame_sum1, frame_sum2 = struct.unpack(
            ">6I", log[offset:offset + FRAME_HEADER])
        if (frame_salt1, frame_salt2) != salts or page == 0:
            break
        sums = _checksum(log[offset + FRAME_HEADER:offset + frame_size],
                         *_checksum(log[offset:offset + 8], *sums, big_endian), big_endian)
        if sums != (frame_sum1, frame_sum2):
            break
        offset += frame_size
        frame += 1
    stop = frame + 1  # the first frame SQLite does not take (1-based)
    lost = 0
    offset += frame_size
    while offset + frame_size <= len(log):  # commits of this cycle past it
        _page, commit, frame_salt1, frame_salt2 = struct.unpack(">4I", log[offset:offset + 16])
        if (frame_salt1, frame_salt2) == salts and commit:
            lost += 1
        offset += frame_size
    if not lost:
        return None
    return f"its frame {stop} does not check out and {lost} committed transaction(s) follow it"


def _checksum(data: bytes, sum1: int, sum2: int, big_endian: bool) -> tuple[int, int]:
    """SQLite's WAL checksum: pairs of 32-bit words folded into two running sums."""
    words = struct.unpack(f"{'>' if big_endian else '<'}{len(data) // 4}I", data)
    for first, second in zip(words[::2], words[1::2], strict=True):
        sum1 = (sum1 + first + sum2) & _MASK
        sum2 = (sum2 + second + sum1) & _MASK
    return sum1, sum2
