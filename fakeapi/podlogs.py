"""Container log text per pod (what the pods/log subresource serves): set by tests or the simulated kubelet.

Each container keeps the output of its current instance and of the one before it (what `previous=true`
reads), as the container runtime keeps the last exited instance of a restarted container. An instance
is known by its container id when the simulated kubelet started it; text a test sets goes to the
current (or previous) instance, whatever its id.

A simulated cluster keeps the logs of a hundred thousand containers: each instance is one object whose
lines and times are held in a tuple and a bytearray, which the garbage collector need not follow.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from fakeapi.storage.store import Event

PodKey = tuple[str, str]  # namespace, pod
Position = tuple[int, int]  # a place in an instance's log: its line number (counting rotated lines), a column
LogKey = tuple[str, str, str]  # namespace, pod, container
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
MICROSECOND = timedelta(microseconds=1)
STAMP = 8  # bytes per line time: microseconds since the epoch, signed
# an instance's log is rotated at this many characters, as the kubelet rotates at containerLogMaxSize (10Mi):
# its oldest lines go, leaving three quarters
LOG_LIMIT = 10 * 1024 * 1024


@dataclass(slots=True)
class ContainerLog:
    """One instance's lines as they arrived (the last may be partial), each with the time its first byte
    came. `ended`: the instance exited, so a follower stops once it has read it all. `previous`: the
    instance before it."""

    container_id: str = ""
    lines: tuple[str, ...] = ()
    times: bytearray | None = None
    ended: bool = False
    previous: ContainerLog | None = None
    size: int = 0  # characters in `lines`
    dropped: int = 0  # lines rotated away: line `i` of `lines` is the instance's line `dropped + i`

    def append(self, text: str, now: datetime) -> None:
        if not text:
            return
        self.size += len(text)
        lines = self.lines
        if lines and not lines[-1].endswith("\n"):
            head, sep, text = text.partition("\n")
            lines = (*lines[:-1], lines[-1] + head + sep)
        added = tuple(text.splitlines(keepends=True))
        self.lines = lines + added
        stamp = ((now - EPOCH) // MICROSECOND).to_bytes(STAMP, "little", signed=True)
        if self.times is None:
            self.times = bytearray()
        self.times += stamp * len(added)
        if self.size > LOG_LIMIT:
            self._rotate()

    def _rotate(self) -> None:
        """Drop the oldest lines, as a rotated log file no longer holds them."""
        dropped = 0
        size = self.size
        while size > LOG_LIMIT * 3 // 4 and dropped < len(self.lines) - 1:
            size -= len(self.lines[dropped])
            dropped += 1
        self.lines, self.size = self.lines[dropped:], size
        self.dropped += dropped
        if self.times is not None:
            del self.times[:dropped * STAMP]

    def time(self, index: int) -> datetime:
        """When line `index` came."""
        assert self.times is not None
        return EPOCH + timedelta(microseconds=int.from_bytes(self.times[index * STAMP:(index + 1) * STAMP],
                                                             "little", signed=True))

    def end_position(self) -> Position:
        """Where the next text will go: after the last line, or inside it while it has no newline yet."""
        if self.lines and not self.lines[-1].endswith("\n"):
            return self.dropped + len(self.lines) - 1, len(self.lines[-1])
        return self.dropped + len(self.lines), 0

    def since(self, position: Position) -> tuple[list[tuple[int, str, bool]], Position]:
        """What came after `position`, as (line index in `lines`, text, whether it begins its line) pieces,
        and the position after them. Lines rotated away meanwhile are skipped."""
        line, offset = position
        first = line - self.dropped
        if first < 0:
            first, offset = 0, 0
        pieces = [(index, text[offset:], offset == 0) if index == first else (index, text, True)
                  for index, text in enumerate(self.lines[first:], first)]
        return [piece for piece in pieces if piece[1]], self.end_position()

    def clear(self) -> None:
        self.dropped += len(self.lines)
        self.lines, self.times, self.size = (), None, 0

    @property
    def text(self) -> str:
        return "".join(self.lines)

    def copy(self) -> ContainerLog:
        return ContainerLog(self.container_id, self.lines, None if self.times is None else bytearray(self.times),
                            self.ended, self.previous.copy() if self.previous else None, self.size, self.dropped)


LogsSnapshot = dict[LogKey, ContainerLog]


class PodLogs:
    """Log text per pod and container. Followers wait on `changed`; a deleted pod loses its logs."""

    def __init__(self) -> None:
        self._logs: dict[LogKey, ContainerLog] = {}  # each container's current instance
        self._containers: dict[PodKey, tuple[str, ...]] = {}  # the containers of each pod that have logs
        self._waiters: dict[PodKey, asyncio.Event] = {}

    # ---- writing

    def set(self, namespace: str, pod: str, container: str, text: str, now: datetime,
            previous: bool = False) -> None:
        """Replace the text of the container's current (or previous) instance."""
        log = self.get(namespace, pod, container, previous)
        log.clear()
        log.append(text, now)
        self._notify((namespace, pod))

    def append(self, namespace: str, pod: str, container: str, text: str, now: datetime,
               previous: bool = False) -> None:
        self.get(namespace, pod, container, previous).append(text, now)
        self._notify((namespace, pod))

    def start(self, namespace: str, pod: str, container: str, container_id: str) -> None:
        """A new instance of the container started: the current one becomes the previous."""
        current = self._logs.get((namespace, pod, container))
        kept = current if current is not None and (current.container_id or current.lines) else None
        if kept is not None:
            kept.previous = None  # only the last two instances are kept
        self._put((namespace, pod, container), ContainerLog(container_id, previous=kept))
        self._notify((namespace, pod))

    def end(self, namespace: str, pod: str, container: str) -> None:
        """The current instance exited: followers of it stop at its end."""
        log = self._logs.get((namespace, pod, container))
        if log is not None:
            log.ended = True
            self._notify((namespace, pod))

    # ---- reading

    def get(self, namespace: str, pod: str, container: str, previous: bool = False) -> ContainerLog:
        """The current (or previous) instance's log, made empty if there is none yet (a follower waits on it)."""
        key = (namespace, pod, container)
        log = self._logs.get(key)
        if log is None:
            log = self._put(key, ContainerLog())
        if not previous:
            return log
        if log.previous is None:
            log.previous = ContainerLog(ended=True)
        return log.previous

    def instance(self, namespace: str, pod: str, container: str, container_id: str) -> ContainerLog | None:
        """The instance with this container id, if its log is still kept."""
        log = self._logs.get((namespace, pod, container))
        for candidate in (log, log.previous if log is not None else None):
            if candidate is not None and candidate.container_id == container_id:
                return candidate
        return None

    def text(self, namespace: str, pod: str, container: str, previous: bool = False) -> str:
        log = self._logs.get((namespace, pod, container))
        if log is not None and previous:
            log = log.previous
        return log.text if log is not None else ""

    def changed(self, namespace: str, pod: str) -> asyncio.Event:
        """An event set at the next change of any log of this pod, or when the pod is deleted."""
        return self._waiters.setdefault((namespace, pod), asyncio.Event())

    # ---- the whole state

    def clear(self) -> None:
        self._logs.clear()
        self._containers.clear()
        for key in list(self._waiters):
            self._notify(key)

    def copy(self) -> LogsSnapshot:
        return {key: log.copy() for key, log in self._logs.items()}

    def replace_all(self, snapshot: LogsSnapshot) -> None:
        self.clear()
        for key, log in snapshot.items():
            self._put(key, log.copy())

    def on_event(self, event: Event) -> None:
        """Store listener: a deleted pod's containers have no logs any more, and its followers stop."""
        if event.type == "DELETED" and event.key.resource == "pods":
            pod = (event.key.namespace, event.key.name)
            for container in self._containers.pop(pod, ()):
                del self._logs[(*pod, container)]
            self._notify(pod)

    # ---- internals

    def _put(self, key: LogKey, log: ContainerLog) -> ContainerLog:
        if key not in self._logs:
            pod = (key[0], key[1])
            self._containers[pod] = (*self._containers.get(pod, ()), key[2])
        self._logs[key] = log
        return log

    def _notify(self, key: PodKey) -> None:
        waiter = self._waiters.pop(key, None)
        if waiter is not None:
            waiter.set()
