"""Container log text per pod (what the pods/log subresource serves): set by tests or the simulated kubelet.

Each container keeps the output of its current instance and of the one before it (what `previous=true`
reads), as the container runtime keeps the last exited instance of a restarted container. An instance
is known by its container id when the simulated kubelet started it; text a test sets goes to the
current (or previous) instance, whatever its id.
"""

from __future__ import annotations

import asyncio
from array import array
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from fakeapi.storage.store import Event

PodKey = tuple[str, str]  # namespace, pod
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
MICROSECOND = timedelta(microseconds=1)


@dataclass(slots=True)
class ContainerLog:
    """One instance's lines as they arrived (the last may be partial), each with the time its first byte
    came (microseconds since the epoch, in an array: a cluster keeps the logs of a hundred thousand
    containers). `ended`: the instance exited, so a follower stops once it has read it all."""

    container_id: str = ""
    lines: list[str] = field(default_factory=list)
    times: array[int] = field(default_factory=lambda: array("q"))
    ended: bool = False

    def append(self, text: str, now: datetime) -> None:
        if not text:
            return
        if self.lines and not self.lines[-1].endswith("\n"):
            head, sep, text = text.partition("\n")
            self.lines[-1] += head + sep
        stamp = (now - EPOCH) // MICROSECOND
        for line in text.splitlines(keepends=True):
            self.lines.append(line)
            self.times.append(stamp)

    def time(self, index: int) -> datetime:
        """When line `index` came."""
        return EPOCH + timedelta(microseconds=self.times[index])

    def clear(self) -> None:
        self.lines.clear()
        del self.times[:]

    @property
    def text(self) -> str:
        return "".join(self.lines)

    def copy(self) -> ContainerLog:
        return ContainerLog(self.container_id, list(self.lines), array("q", self.times), self.ended)


@dataclass(slots=True)
class ContainerLogs:
    """A container's current instance, and the one it replaced."""

    current: ContainerLog = field(default_factory=ContainerLog)
    previous: ContainerLog | None = None

    def copy(self) -> ContainerLogs:
        return ContainerLogs(self.current.copy(), self.previous.copy() if self.previous else None)


LogsSnapshot = dict[PodKey, dict[str, ContainerLogs]]


class PodLogs:
    """Log text per pod and container. Followers wait on `changed`; a deleted pod loses its logs."""

    def __init__(self) -> None:
        self._pods: LogsSnapshot = {}
        self._waiters: dict[PodKey, asyncio.Event] = {}

    # ---- writing

    def set(self, namespace: str, pod: str, container: str, text: str, now: datetime,
            previous: bool = False) -> None:
        """Replace the text of the container's current (or previous) instance."""
        log = self._log(namespace, pod, container, previous)
        log.clear()
        log.append(text, now)
        self._notify((namespace, pod))

    def append(self, namespace: str, pod: str, container: str, text: str, now: datetime,
               previous: bool = False) -> None:
        self._log(namespace, pod, container, previous).append(text, now)
        self._notify((namespace, pod))

    def start(self, namespace: str, pod: str, container: str, container_id: str) -> None:
        """A new instance of the container started: the current one becomes the previous."""
        logs = self._logs(namespace, pod, container)
        if logs.current.container_id or logs.current.lines:
            logs.previous = logs.current
        logs.current = ContainerLog(container_id)
        self._notify((namespace, pod))

    def end(self, namespace: str, pod: str, container: str) -> None:
        """The current instance exited: followers of it stop at its end."""
        logs = self._pods.get((namespace, pod), {}).get(container)
        if logs is not None:
            logs.current.ended = True
            self._notify((namespace, pod))

    # ---- reading

    def get(self, namespace: str, pod: str, container: str, previous: bool = False) -> ContainerLog:
        """The current (or previous) instance's log, made empty if there is none yet (a follower waits on it)."""
        return self._log(namespace, pod, container, previous)

    def instance(self, namespace: str, pod: str, container: str, container_id: str) -> ContainerLog | None:
        """The instance with this container id, if its log is still kept."""
        logs = self._pods.get((namespace, pod), {}).get(container)
        if logs is None:
            return None
        for log in (logs.current, logs.previous):
            if log is not None and log.container_id == container_id:
                return log
        return None

    def text(self, namespace: str, pod: str, container: str, previous: bool = False) -> str:
        logs = self._pods.get((namespace, pod), {}).get(container)
        log = None if logs is None else logs.previous if previous else logs.current
        return log.text if log is not None else ""

    def changed(self, namespace: str, pod: str) -> asyncio.Event:
        """An event set at the next change of any log of this pod, or when the pod is deleted."""
        return self._waiters.setdefault((namespace, pod), asyncio.Event())

    # ---- the whole state

    def clear(self) -> None:
        self._pods.clear()
        for key in list(self._waiters):
            self._notify(key)

    def copy(self) -> LogsSnapshot:
        return {key: {name: logs.copy() for name, logs in containers.items()}
                for key, containers in self._pods.items()}

    def replace_all(self, snapshot: LogsSnapshot) -> None:
        self.clear()
        self._pods.update({key: {name: logs.copy() for name, logs in containers.items()}
                           for key, containers in snapshot.items()})

    def on_event(self, event: Event) -> None:
        """Store listener: a deleted pod's containers have no logs any more, and its followers stop."""
        if event.type == "DELETED" and event.key.resource == "pods":
            key = (event.key.namespace, event.key.name)
            self._pods.pop(key, None)
            self._notify(key)

    # ---- internals

    def _logs(self, namespace: str, pod: str, container: str) -> ContainerLogs:
        return self._pods.setdefault((namespace, pod), {}).setdefault(container, ContainerLogs())

    def _log(self, namespace: str, pod: str, container: str, previous: bool) -> ContainerLog:
        logs = self._logs(namespace, pod, container)
        if not previous:
            return logs.current
        if logs.previous is None:
            logs.previous = ContainerLog(ended=True)
        return logs.previous

    def _notify(self, key: PodKey) -> None:
        waiter = self._waiters.pop(key, None)
        if waiter is not None:
            waiter.set()
