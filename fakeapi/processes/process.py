"""Process: what an exec or attach session talks to. Its stdin, stdout and stderr are pipes (with a TTY one
pipe carries both outputs, and what is typed goes through a terminal's line discipline); it ends with an
exit code. Behind it runs a built-in program (the shell, a script) or a test's handler."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from fakeapi.processes.effects import BufferedInput, Input, Output, Program, Streams
from fakeapi.processes.pipes import Pipe
from fakeapi.processes.runner import Later, Runner
from fakeapi.processes.terminal import TerminalInput, TerminalOutput

KILLED = 137


class Process:
    def __init__(self, argv: list[str], tty: bool) -> None:
        self.argv = argv
        self.tty = tty
        self.stdin = Pipe()  # what the client sends
        self.stdout = Pipe()  # what it receives
        self.stderr = self.stdout if tty else Pipe()
        self.exit_code: int | None = None
        self.size: tuple[int, int] | None = None  # the terminal's width and height, as last resized
        self._on_exit: list[Callable[[int], None]] = []
        self._stop: Callable[[], object] | None = None

    # ---- the program's side

    def streams(self) -> Streams:
        """The streams a built-in program reads and writes (through the terminal with a TTY)."""
        stdout: Output = TerminalOutput(self.stdout) if self.tty else self.stdout
        stderr: Output = stdout if self.tty else self.stderr
        stdin: Input = TerminalInput(self.stdin, stdout) if self.tty else self.stdin
        return Streams(BufferedInput(stdin), stdout, stderr)

    def run(self, program: Program, later: Later) -> None:
        """Run a built-in program as this process."""
        runner = Runner(program, later, self.exited)
        self._stop = lambda: runner.kill(KILLED)
        runner.start()

    def run_task(self, task: asyncio.Task[int]) -> None:
        """A coroutine (a test's handler) as this process: its result is the exit code."""

        def finished(done: asyncio.Task[int]) -> None:
            if done.cancelled():
                self.exited(KILLED)
            elif done.exception() is not None:
                self.exited(1)
            else:
                self.exited(done.result())

        task.add_done_callback(finished)
        self._stop = task.cancel

    def exited(self, code: int) -> None:
        if self.exit_code is not None:
            return
        self.exit_code = code
        self.stdout.close()
        self.stderr.close()
        for callback in self._on_exit:
            callback(code)
        self._on_exit.clear()

    # ---- the session's side

    def on_exit(self, callback: Callable[[int], None]) -> None:
        if self.exit_code is not None:
            callback(self.exit_code)
        else:
            self._on_exit.append(callback)

    async def wait(self) -> int:
        if self.exit_code is None:
            future: asyncio.Future[int] = asyncio.get_running_loop().create_future()

            def exited(code: int) -> None:
                if not future.done():
                    future.set_result(code)

            self.on_exit(exited)
            return await future
        return self.exit_code

    def kill(self) -> None:
        """The session is gone: stop the process (its exit is not reported to anyone)."""
        self.stdout.break_()
        self.stderr.break_()
        self.stdin.close()
        if self.exit_code is None and self._stop is not None:
            self._stop()

    def resize(self, width: int, height: int) -> None:
        self.size = (width, height)
