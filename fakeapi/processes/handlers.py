"""What a test registers to answer exec itself: a Python function or coroutine function per pattern of
namespace, pod, container and command line.

The handler receives an `ExecCall`: the pod, container and command, the container's environment, and its
stdin, stdout and stderr. A coroutine function runs on the server's event loop and uses `await
call.stdin.read()`, `call.stdout.write(...)` and `await call.stdout.drain()`; a plain function runs in a
worker thread, where the same calls block (`call.stdin.read()`). It returns the exit code (None is 0); an
exception it raises is written to stderr and exits 1.
"""

from __future__ import annotations

import asyncio
import fnmatch
import functools
import inspect
import logging
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fakeapi.processes.pipes import Pipe
from fakeapi.processes.process import Process

log = logging.getLogger("fakeapi.processes")

Handler = Callable[["ExecCall"], Any]  # returns an exit code, or an awaitable of one


class ProcessInput:
    """The process's stdin, read with `await`."""

    def __init__(self, pipe: Pipe) -> None:
        self._pipe = pipe
        self._pending = b""

    async def read(self, n: int = -1) -> bytes:
        """Up to `n` bytes (everything until end of file when `n` is negative); b"" at end of file."""
        if n < 0:
            data = self._pending + await self._pipe.read_all()
            self._pending = b""
            return data
        if not self._pending:
            self._pending = await self._pipe.read(max(n, 1))
        data, self._pending = self._pending[:n], self._pending[n:]
        return data

    async def readline(self) -> bytes:
        while b"\n" not in self._pending:
            chunk = await self._pipe.read()
            if not chunk:
                line, self._pending = self._pending, b""
                return line
            self._pending += chunk
        line, _newline, self._pending = self._pending.partition(b"\n")
        return line + b"\n"


class ProcessOutput:
    """The process's stdout or stderr: `write` queues, `await drain()` waits for a slow client."""

    def __init__(self, pipe: Pipe) -> None:
        self._pipe = pipe

    def write(self, data: bytes | str) -> None:
        self._pipe.write(data.encode() if isinstance(data, str) else data)

    async def drain(self) -> None:
        await self._pipe.drain()


class BlockingInput:
    """stdin for a handler running in a worker thread: every call waits for the event loop's answer."""

    def __init__(self, source: ProcessInput, loop: asyncio.AbstractEventLoop) -> None:
        self._source = source
        self._loop = loop

    def read(self, n: int = -1) -> bytes:
        return asyncio.run_coroutine_threadsafe(self._source.read(n), self._loop).result()

    def readline(self) -> bytes:
        return asyncio.run_coroutine_threadsafe(self._source.readline(), self._loop).result()


class BlockingOutput:
    def __init__(self, target: ProcessOutput, loop: asyncio.AbstractEventLoop) -> None:
        self._target = target
        self._loop = loop

    def write(self, data: bytes | str) -> None:
        """Write, waiting while the client is slow to read."""
        async def write_and_drain() -> None:
            self._target.write(data)
            await self._target.drain()

        asyncio.run_coroutine_threadsafe(write_and_drain(), self._loop).result()

    def flush(self) -> None:
        pass


@dataclass
class ExecCall:
    """One exec, as a handler sees it."""

    namespace: str
    pod: str
    container: str
    command: list[str]
    tty: bool
    env: dict[str, str]
    stdin: Any  # ProcessInput (coroutine handlers) or BlockingInput (plain functions)
    stdout: Any  # ProcessOutput or BlockingOutput
    stderr: Any


@dataclass
class ExecRule:
    """A handler and the execs it answers (glob patterns; the command is matched as its words joined by
    spaces: `pg_isready*`, `sh -c *`)."""

    handler: Handler
    namespace: str = "*"
    pod: str = "*"
    container: str = "*"
    command: str = "*"
    id: int = 0
    calls: int = field(default=0, compare=False)

    def matches(self, namespace: str, pod: str, container: str, argv: list[str]) -> bool:
        return (fnmatch.fnmatchcase(namespace, self.namespace) and fnmatch.fnmatchcase(pod, self.pod)
                and fnmatch.fnmatchcase(container, self.container)
                and fnmatch.fnmatchcase(" ".join(argv), self.command))


def run_handler(rule: ExecRule, process: Process, namespace: str, pod: str, container: str,
                env: dict[str, str]) -> None:
    """Start `rule`'s handler as `process` (on the running event loop)."""
    rule.calls += 1
    loop = asyncio.get_running_loop()
    stdin, stdout, stderr = ProcessInput(process.stdin), ProcessOutput(process.stdout), ProcessOutput(process.stderr)
    handler = rule.handler
    blocking = not (inspect.iscoroutinefunction(handler)
                    or inspect.iscoroutinefunction(type(handler).__call__))  # (an object with an async __call__)

    async def run() -> int:
        if blocking:
            call = ExecCall(namespace, pod, container, list(process.argv), process.tty, dict(env),
                            BlockingInput(stdin, loop), BlockingOutput(stdout, loop), BlockingOutput(stderr, loop))
            outcome_or_awaitable = await loop.run_in_executor(None, functools.partial(handler, call))
        else:
            call = ExecCall(namespace, pod, container, list(process.argv), process.tty, dict(env), stdin, stdout,
                            stderr)
            outcome_or_awaitable = handler(call)
        try:
            outcome = await outcome_or_awaitable if inspect.isawaitable(outcome_or_awaitable) \
                else outcome_or_awaitable
            await stdout.drain()
            await stderr.drain()
            return _exit_code(outcome)
        except asyncio.CancelledError:
            raise
        except Exception as error:
            return await _failed(error, stderr)

    async def guarded() -> int:
        try:
            return await run()
        except asyncio.CancelledError:
            raise
        except Exception as error:  # raised by a plain function in its thread
            return await _failed(error, stderr)

    process.run_task(loop.create_task(guarded()))


async def _failed(error: Exception, stderr: ProcessOutput) -> int:
    log.info("an exec handler raised %r", error)
    stderr.write("".join(traceback.format_exception_only(error)))
    await stderr.drain()
    return 1


def _exit_code(outcome: object) -> int:
    if outcome is None:
        return 0
    if isinstance(outcome, bool) or not isinstance(outcome, int):
        raise TypeError(f"an exec handler returns an exit code (an int) or None, not {outcome!r}")
    return outcome & 0xFF
