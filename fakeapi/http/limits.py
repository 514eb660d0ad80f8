"""Load limits, as upstream's handler chain applies them before any handler runs.

- In flight (`--max-requests-inflight`, `--max-mutating-requests-inflight`; upstream's max-in-flight
  filter): reads (GET, HEAD) and writes are counted apart; past a limit the answer is upstream's own 429,
  plain text with `Retry-After: 1` (not a Status). 0 lifts a limit.
- Deadline (`--request-timeout`): a request, body upload included, that is not done in time is
  cancelled and gets upstream's 504 Status.

Long-running requests (watches, pod logs, exec, attach, port-forward) are exempt from both, as upstream
exempts them.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from fakeapi.http.requestinfo import request_info
from fakeapi.http.responses import status_response
from fakeapi.machinery.errors import Timeout

READ_METHODS = frozenset({"GET", "HEAD"})  # upstream counts the verbs get, list and watch as reads
# kube-apiserver's long-running requests (BasicLongRunningRequestCheck)
LONG_RUNNING_VERBS = frozenset({"watch", "proxy"})
LONG_RUNNING_SUBRESOURCES = frozenset({"attach", "exec", "proxy", "log", "portforward"})
TOO_MANY_REQUESTS = "Too many requests, please try again later.\n"  # Go's http.Error ends it with a newline


@dataclass
class InFlight:
    """The requests being handled now, reads and writes apart, against their limits (0: none)."""

    read_limit: int
    write_limit: int
    reads: int = 0
    writes: int = 0

    def enter(self, write: bool) -> bool:
        """Count a request in, if its limit leaves room."""
        if write:
            if self.write_limit and self.writes >= self.write_limit:
                return False
            self.writes += 1
        else:
            if self.read_limit and self.reads >= self.read_limit:
                return False
            self.reads += 1
        return True

    def leave(self, write: bool) -> None:
        if write:
            self.writes -= 1
        else:
            self.reads -= 1


class Deadlines:
    """Requests past the request timeout are cancelled, by one timer for them all: a timer each
    (asyncio.timeout) cost a GET 5% of its instructions, three times the rest of the gate."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.period = min(1.0, seconds / 4)  # how late past its deadline a request may end
        self.expired: set[asyncio.Task[Any]] = set()
        self._due: dict[asyncio.Task[Any], float] = {}
        self._timer: asyncio.TimerHandle | None = None

    def add(self, task: asyncio.Task[Any]) -> None:
        loop = task.get_loop()
        self._due[task] = loop.time() + self.seconds
        if self._timer is None:
            self._timer = loop.call_later(self.period, self._expire, loop)

    def remove(self, task: asyncio.Task[Any]) -> None:
        del self._due[task]
        self.expired.discard(task)

    def _expire(self, loop: asyncio.AbstractEventLoop) -> None:
        now = loop.time()
        for task, due in self._due.items():
            if due <= now and task not in self.expired:
                self.expired.add(task)
                task.cancel()
        self._timer = loop.call_later(self.period, self._expire, loop) if self._due else None


def long_running(request: web.Request) -> bool:
    """A watch, a pod's log, exec, attach or port-forward (upstream's long-running check), told apart
    cheaply from every other request."""
    raw = request.raw_path  # path and query as sent, not yet parsed: the cheapest look
    if request.method == "GET":
        if "watch" not in raw and "/log" not in raw and "/exec" not in raw and "/attach" not in raw \
                and "/portforward" not in raw:
            return False
    elif request.method != "POST" or ("/exec" not in raw and "/attach" not in raw and "/portforward" not in raw):
        return False
    info = request_info(request.method, request.path, request.query)
    return info.verb in LONG_RUNNING_VERBS or info.subresource in LONG_RUNNING_SUBRESOURCES


def too_many_requests() -> web.Response:
    """Upstream's answer when a limit is reached: Go's http.Error text, not a Status."""
    return web.Response(status=429, text=TOO_MANY_REQUESTS, charset="utf-8",
                        headers={"Retry-After": "1", "X-Content-Type-Options": "nosniff"})


def timed_out() -> web.Response:
    # upstream's WithTimeoutForNonLongRunningRequests: NewTimeoutError(msg, 0), whose details are empty
    return status_response(Timeout("Timeout: request did not complete within the allotted timeout", {}))
