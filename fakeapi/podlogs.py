"""Container log text per pod (what the pods/log subresource serves): set by tests or the simulated kubelet."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from fakeapi.storage.store import Event

LogKey = tuple[str, str, str]  # namespace, pod, container


@dataclass
class ContainerLog:
    """Lines as they arrived (the last may be partial), each with the time its first byte came."""

    lines: list[str] = field(default_factory=list)
    times: list[datetime] = field(default_factory=list)

    def append(self, text: str, now: datetime) -> None:
        if not text:
            return
        if self.lines and not self.lines[-1].endswith("\n"):
            head, sep, text = text.partition("\n")
            self.lines[-1] += head + sep
        for line in text.splitlines(keepends=True):
            self.lines.append(line)
            self.times.append(now)

    @property
    def text(self) -> str:
        return "".join(self.lines)


class PodLogs:
    """Log text per (namespace, pod, container). Followers wait on `changed`; a deleted pod loses its logs."""

    def __init__(self) -> None:
        self._logs: dict[LogKey, ContainerLog] = {}
        self._waiters: dict[tuple[str, str], asyncio.Event] = {}

    def set(self, namespace: str, pod: str, container: str, text: str, now: datetime) -> None:
        log = ContainerLog()
        log.append(text, now)
        self._logs[(namespace, pod, container)] = log
        self._notify(namespace, pod)

    def append(self, namespace: str, pod: str, container: str, text: str, now: datetime) -> None:
        self._logs.setdefault((namespace, pod, container), ContainerLog()).append(text, now)
        self._notify(namespace, pod)

    def get(self, namespace: str, pod: str, container: str) -> ContainerLog:
        return self._logs.get((namespace, pod, container)) or ContainerLog()

    def text(self, namespace: str, pod: str, container: str) -> str:
        return self.get(namespace, pod, container).text

    def clear(self) -> None:
        self._logs.clear()
        for key in list(self._waiters):
            self._notify(*key)

    def copy(self) -> dict[LogKey, ContainerLog]:
        return {key: ContainerLog(list(log.lines), list(log.times)) for key, log in self._logs.items()}

    def replace_all(self, logs: Mapping[LogKey, ContainerLog]) -> None:
        self.clear()
        self._logs.update((key, ContainerLog(list(log.lines), list(log.times))) for key, log in logs.items())

    def changed(self, namespace: str, pod: str) -> asyncio.Event:
        """An event set at the next change of any log of this pod, or when the pod is deleted."""
        return self._waiters.setdefault((namespace, pod), asyncio.Event())

    def on_event(self, event: Event) -> None:
        """Store listener: a deleted pod's containers have no logs any more, and its followers stop."""
        if event.type == "DELETED" and event.key.resource == "pods":
            namespace, pod = event.key.namespace, event.key.name
            for key in [key for key in self._logs if key[0] == namespace and key[1] == pod]:
                del self._logs[key]
            self._notify(namespace, pod)

    def _notify(self, namespace: str, pod: str) -> None:
        waiter = self._waiters.pop((namespace, pod), None)
        if waiter is not None:
            waiter.set()
