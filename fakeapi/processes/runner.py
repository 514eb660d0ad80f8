"""Runner: drives a built-in program (fakeapi.processes.effects) to its exit.

Sleeps wait on the server clock (through `later`, so a frozen clock holds them and `advance()` steps them);
reads and writes wait on their pipes; a program that runs many steps without waiting is paused for a
moment of real time every STEPS_PER_TURN steps, so that a busy loop in a container cannot take the
server's event loop. A program is resumed from a pipe's wakeup on the next turn of the event loop, never
inside the code that woke it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from fakeapi.processes.effects import FOREVER, TICK, Program, Read, Sleep, Write

STEPS_PER_TURN = 5000
BROKEN_PIPE = 141  # the exit of a program SIGPIPE killed
PAUSE_SECONDS = 0.002  # real time a busy program yields to the server

Cancel = Callable[[], None]
Later = Callable[[float, Callable[[], None]], Cancel]  # run a callback after seconds on the server clock

log = logging.getLogger("fakeapi.processes")


class Runner:
    def __init__(self, program: Program, later: Later, on_exit: Callable[[int], None]) -> None:
        self._program = program
        self._later = later
        self._on_exit = on_exit
        self._cancel: Cancel | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.exit_code: int | None = None

    @property
    def done(self) -> bool:
        return self.exit_code is not None

    def start(self) -> None:
        """Run the program until it first waits (or exits). On the event loop's thread."""
        try:
            self._loop = asyncio.get_running_loop()
        except RuntimeError:
            self._loop = None
        self._resume(None)

    def kill(self, code: int = 137) -> None:
        """End the program now (as SIGKILL would), reporting `code` as its exit."""
        if self.done:
            return
        self._cancel_wait()
        self._program.close()
        self._finish(code)

    # ---- driving

    def _resume(self, value: object) -> None:
        self._cancel = None
        steps = STEPS_PER_TURN
        program = self._program
        while not self.done:
            try:
                effect = program.send(value)
            except StopIteration as stopped:
                self._finish(int(stopped.value or 0) & 0xFF)
                return
            except Exception:
                log.exception("a built-in program failed")
                self._finish(1)
                return
            value = None
            if effect is TICK:
                steps -= 1
                if steps <= 0:
                    self._pause()
                    return
            elif isinstance(effect, Write):
                try:
                    effect.target.write(effect.data)
                except BrokenPipeError:  # nobody reads it any more: SIGPIPE ends the program
                    self.kill(BROKEN_PIPE)
                    return
                if effect.target.full:
                    effect.target.when_writable(self._wakeup(None))
                    return
            elif isinstance(effect, Read):
                try:
                    data = effect.source.read_nowait(effect.limit)
                except BrokenPipeError:  # (a terminal's echo has nowhere to go)
                    self.kill(BROKEN_PIPE)
                    return
                if data is None:
                    effect.source.when_readable(self._wakeup(effect))
                    return
                value = data
            elif isinstance(effect, Sleep):
                if effect.seconds > 0:
                    self._cancel = self._later(effect.seconds, lambda: self._resume(None))
                    return
            elif effect is FOREVER:
                return  # until killed

    def _wakeup(self, read: Read | None) -> Callable[[], None]:
        """A pipe's wakeup: resume on the next turn of the event loop (re-reading for a read)."""
        woken = [False]

        def resume() -> None:
            if self.done or woken[0]:
                return
            woken[0] = True
            if read is None:
                self._resume(None)
                return
            try:
                data = read.source.read_nowait(read.limit)
            except BrokenPipeError:
                self.kill(BROKEN_PIPE)
                return
            if data is None:
                woken[0] = False
                read.source.when_readable(wake)
                return
            self._resume(data)

        def wake() -> None:
            if self._loop is not None and not self._loop.is_closed():
                self._loop.call_soon(resume)
            else:
                resume()

        self._cancel = lambda: woken.__setitem__(0, True)
        return wake

    def _pause(self) -> None:
        if self._loop is None:
            self._resume(None)
            return
        handle = self._loop.call_later(PAUSE_SECONDS, self._resume, None)
        self._cancel = handle.cancel

    def _cancel_wait(self) -> None:
        if self._cancel is not None:
            self._cancel()
            self._cancel = None

    def _finish(self, code: int) -> None:
        if self.done:
            return
        self.exit_code = code
        self._on_exit(code)
