"""Pipe: the bytes between a process and the stream that feeds or drains it (a client's exec session, a
port-forwarded connection, a container's log).

A pipe is bounded: once it holds `limit` bytes a writer waits until the reader took some, so a client
that never reads holds its process back instead of filling memory. The writer closes it (the reader gets
what is left, then end of file); the reader breaks it when it goes away: a write then fails with
BrokenPipeError, as a process writing to a closed pipe gets EPIPE. Both sides can wait with a callback (the
shell's driver runs on clock timers) or with `await`.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable

PIPE_LIMIT = 256 * 1024  # bytes held before a writer waits
CHUNK = 64 * 1024  # the most a read returns, and the pieces a large write is cut into

Waiter = Callable[[], None]


class Pipe:
    def __init__(self, limit: int = PIPE_LIMIT) -> None:
        self.limit = limit
        self.size = 0
        self.closed = False  # the writer is done: end of file once the rest is read
        self.broken = False  # the reader went away: writes are dropped
        self._chunks: deque[bytes] = deque()
        self._readers: list[Waiter] = []
        self._writers: list[Waiter] = []

    # ---- writing

    @property
    def full(self) -> bool:
        """Whether a writer should wait before writing more."""
        return self.size >= self.limit and not self.broken

    def write(self, data: bytes) -> None:
        """Queue `data` (even past the limit: the writer waits afterwards, see `full`); BrokenPipeError once
        the reader went away."""
        if self.broken:
            raise BrokenPipeError("the reader went away")
        if self.closed or not data:
            return
        for start in range(0, len(data), CHUNK):
            self._chunks.append(data[start:start + CHUNK])
        self.size += len(data)
        _wake(self._readers)

    def close(self) -> None:
        """No more data: the reader gets end of file after what is queued."""
        if not self.closed:
            self.closed = True
            _wake(self._readers)

    def when_writable(self, waiter: Waiter) -> None:
        """Call `waiter` once the pipe has room again (or its reader left)."""
        if not self.full:
            waiter()
        else:
            self._writers.append(waiter)

    async def drain(self) -> None:
        """Wait until the pipe has room again; BrokenPipeError once the reader went away."""
        while self.full:
            await _until(self._writers)
        if self.broken:
            raise BrokenPipeError("the reader went away")

    # ---- reading

    @property
    def at_eof(self) -> bool:
        return self.closed and not self._chunks

    def read_nowait(self, limit: int = CHUNK) -> bytes | None:
        """Queued bytes (at most `limit`), b"" at end of file, None when there is nothing yet."""
        if not self._chunks:
            return b"" if self.closed else None
        chunk = self._chunks.popleft()
        if len(chunk) > limit:
            chunk, rest = chunk[:limit], chunk[limit:]
            self._chunks.appendleft(rest)
        self.size -= len(chunk)
        if self.size < self.limit:
            _wake(self._writers)
        return chunk

    def when_readable(self, waiter: Waiter) -> None:
        """Call `waiter` once there are bytes to read, or end of file."""
        if self._chunks or self.closed:
            waiter()
        else:
            self._readers.append(waiter)

    async def read(self, limit: int = CHUNK) -> bytes:
        """Queued bytes (at most `limit`), waiting for some; b"" at end of file."""
        while True:
            data = self.read_nowait(limit)
            if data is not None:
                return data
            await _until(self._readers)

    async def read_all(self) -> bytes:
        parts = []
        while data := await self.read():
            parts.append(data)
        return b"".join(parts)

    def break_(self) -> None:
        """The reader went away: drop what is queued and what comes, and let waiting writers go on."""
        self.broken = True
        self._chunks.clear()
        self.size = 0
        _wake(self._writers)
        _wake(self._readers)


def _wake(waiters: list[Waiter]) -> None:
    if waiters:
        woken = list(waiters)
        waiters.clear()
        for waiter in woken:
            waiter()


async def _until(waiters: list[Waiter]) -> None:
    future: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def wake() -> None:
        if not future.done():
            future.set_result(None)

    waiters.append(wake)
    try:
        await future
    finally:
        if wake in waiters:
            waiters.remove(wake)
