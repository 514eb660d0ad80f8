"""A terminal's line discipline, for processes started with a TTY (`kubectl exec -it`): what the client
types is echoed and edited a line at a time (Enter ends a line, Backspace erases, Ctrl-C drops the line,
Ctrl-D on an empty line is end of file), and output lines end in CR LF, as a Linux tty in its default
(cooked) mode does."""

from __future__ import annotations

from fakeapi.processes.effects import Input, Output, Waiter

ERASE = (0x7F, 0x08)
INTERRUPT, END_OF_FILE = 0x03, 0x04
LINE_LIMIT = 4096  # a tty's canonical line buffer


class TerminalOutput:
    """Output through the terminal: each LF goes out as CR LF."""

    def __init__(self, target: Output) -> None:
        self.target = target

    @property
    def full(self) -> bool:
        return self.target.full

    def write(self, data: bytes) -> None:
        self.target.write(data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))

    def when_writable(self, waiter: Waiter) -> None:
        self.target.when_writable(waiter)


class TerminalInput:
    """The program's view of what is typed: whole lines, once Enter is pressed."""

    def __init__(self, keys: Input, echo: Output) -> None:
        self.keys = keys
        self.echo = echo
        self._line = bytearray()
        self._ready = bytearray()
        self._ended = False

    def read_nowait(self, limit: int = 65536) -> bytes | None:
        while not self._ready and not self._ended:
            typed = self.keys.read_nowait()
            if typed is None:
                return None
            if not typed:
                self._ended = True
                self._ready += self._line
                self._line.clear()
                break
            self._edit(typed)
        if self._ready:
            chunk = bytes(self._ready[:limit])
            del self._ready[:limit]
            return chunk
        return b""

    def when_readable(self, waiter: Waiter) -> None:
        if self._ready or self._ended:
            waiter()
        else:
            self.keys.when_readable(waiter)

    def _edit(self, typed: bytes) -> None:
        echoed = bytearray()
        for byte in typed:
            if byte in (0x0D, 0x0A):
                self._line.append(0x0A)
                echoed += b"\r\n"
                self._ready += self._line
                self._line.clear()
            elif byte in ERASE:
                if self._line:
                    self._line.pop()
                    echoed += b"\b \b"
            elif byte == INTERRUPT:
                self._line.clear()
                echoed += b"^C\r\n"
                self._ready += b"\n"
            elif byte == END_OF_FILE:
                if self._line:
                    self._ready += self._line
                    self._line.clear()
                else:
                    self._ended = True
                    break
            elif len(self._line) < LINE_LIMIT:
                self._line.append(byte)
                echoed.append(byte)
        if echoed:
            self.echo.write(bytes(echoed))
