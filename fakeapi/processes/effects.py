"""What a built-in program asks of whoever runs it. Programs (the shell and its commands) are generators
that yield these effects and get their results sent back: they never block and never read a clock, so the
same program runs on an exec session, in a container's main process, and step by step on a frozen clock.

    Sleep(seconds)   wait on the server clock
    Read(input, n)   bytes from an input, b"" at end of file (waits for a pipe to have some)
    Write(output, b) write to an output (waits while a pipe is full)
    TICK             a step: lets the runner pause a busy loop so the server keeps answering
    FOREVER          wait until killed (a command the image would run, but the shell does not know)

The inputs and outputs: Pipe (fakeapi.processes.pipes), Buffer (bytes in memory: a pipeline's stage, a
command substitution, a file being written), NULL (/dev/null), and BufferedInput (lets `read` put back
what follows a line).
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

Waiter = Callable[[], None]
BUFFER_LIMIT = 16 * 1024 * 1024  # what an in-memory stage may hold before it reports a broken pipe


class Input(Protocol):
    def read_nowait(self, limit: int = ...) -> bytes | None: ...

    def when_readable(self, waiter: Waiter) -> None: ...


class Output(Protocol):
    @property
    def full(self) -> bool: ...

    def write(self, data: bytes) -> None: ...

    def when_writable(self, waiter: Waiter) -> None: ...


class Sleep(NamedTuple):
    seconds: float


class Read(NamedTuple):
    source: Input
    limit: int


class Write(NamedTuple):
    target: Output
    data: bytes


class _Tick:
    __slots__ = ()


class _Forever:
    __slots__ = ()


TICK = _Tick()
FOREVER = _Forever()
Effect = Sleep | Read | Write | _Tick | _Forever
Program = Generator[Effect, Any, int]


class Buffer:
    """Bytes in memory, written then read: never full (past BUFFER_LIMIT what is written is dropped and
    `overflowed` says so)."""

    def __init__(self, data: bytes = b"", limit: int = BUFFER_LIMIT) -> None:
        self.data = bytearray(data)
        self.limit = limit
        self.overflowed = False
        self._read = 0

    full = False

    def write(self, data: bytes) -> None:
        room = self.limit - len(self.data)
        if len(data) > room:
            self.overflowed = True
            data = data[:max(0, room)]
        self.data += data

    def when_writable(self, waiter: Waiter) -> None:
        waiter()

    def read_nowait(self, limit: int = 65536) -> bytes | None:
        chunk = bytes(self.data[self._read:self._read + limit])
        self._read += len(chunk)
        return chunk

    def when_readable(self, waiter: Waiter) -> None:
        waiter()

    def getvalue(self) -> bytes:
        return bytes(self.data)


class _Null:
    """/dev/null: takes everything, gives end of file."""

    full = False

    def write(self, data: bytes) -> None:
        pass

    def when_writable(self, waiter: Waiter) -> None:
        waiter()

    def read_nowait(self, limit: int = 65536) -> bytes | None:
        return b""

    def when_readable(self, waiter: Waiter) -> None:
        waiter()


NULL = _Null()


class BufferedInput:
    """An input with room to put bytes back: `read` takes a line and leaves what follows for the next reader."""

    def __init__(self, source: Input) -> None:
        self.source = source
        self.pending = b""

    def read_nowait(self, limit: int = 65536) -> bytes | None:
        if self.pending:
            chunk, self.pending = self.pending[:limit], self.pending[limit:]
            return chunk
        return self.source.read_nowait(limit)

    def when_readable(self, waiter: Waiter) -> None:
        if self.pending:
            waiter()
        else:
            self.source.when_readable(waiter)

    def unread(self, data: bytes) -> None:
        self.pending = data + self.pending


def read(source: Input, limit: int = 65536) -> Generator[Effect, Any, bytes]:
    data: bytes = yield Read(source, limit)
    return data


def read_all(source: Input, limit: int = BUFFER_LIMIT) -> Generator[Effect, Any, bytes]:
    """Everything up to end of file (at most `limit` bytes kept)."""
    parts: list[bytes] = []
    size = 0
    while True:
        data: bytes = yield Read(source, 65536)
        if not data:
            return b"".join(parts)
        if size < limit:
            parts.append(data[:limit - size])
            size += len(data)


def write(target: Output, data: bytes | str) -> Generator[Effect, Any, None]:
    if data:
        yield Write(target, data.encode() if isinstance(data, str) else data)


@dataclass
class Streams:
    """A program's standard streams."""

    stdin: BufferedInput
    stdout: Output
    stderr: Output

    def with_(self, stdin: Input | None = None, stdout: Output | None = None,
              stderr: Output | None = None) -> Streams:
        new_in = self.stdin if stdin is None else stdin if isinstance(stdin, BufferedInput) else BufferedInput(stdin)
        return Streams(new_in, self.stdout if stdout is None else stdout, self.stderr if stderr is None else stderr)
