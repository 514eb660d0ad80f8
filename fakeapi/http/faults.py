"""Fault injection: rules that match requests and answer upstream-shaped errors, add latency or cut watches.

A rule matches on verb, resource, subresource, namespace, name, field manager and user agent (exact
values, or globs with `*`, `?`, `[...]`). Each match is counted; the rule then fires always, only on
the `nth` match, for the first `times` matches, and/or with `probability` drawn from its own
`random.Random(seed)`, so a run is reproducible. Firing a rule waits `delay` seconds (real time), then
either answers its `status` as a Status, or, on a watch, lets `cut_watch_after` events through and
ends the stream (with a 410 Expired ERROR event when `status` is 410).
"""

from __future__ import annotations

import asyncio
import random
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from fnmatch import fnmatchcase
from typing import Any

import orjson
from aiohttp import web

from fakeapi.http.requestinfo import RequestInfo, request_info
from fakeapi.machinery.clock import Clock
from fakeapi.machinery.errors import (
    BadRequest,
    Conflict,
    Expired,
    Forbidden,
    InternalError,
    NotFound,
    ServiceUnavailable,
    StatusError,
    Timeout,
    TooManyRequests,
    with_retry_after,
)
from fakeapi.machinery.types import JSON

FIRED_LOG = 10_000
MATCHERS = ("verb", "resource", "subresource", "namespace", "name", "field_manager", "user_agent")
ACTIONS = ("status", "message", "retry_after", "delay", "cut_watch_after", "times", "nth", "probability",
           "seed")
SUPPORTED_STATUS = (400, 403, 404, 409, 410, 429, 500, 503, 504)
_GLOB = frozenset("*?[")
JSON_NAMES = {"field_manager": "fieldManager", "user_agent": "userAgent", "retry_after": "retryAfterSeconds",
               "cut_watch_after": "cutWatchAfter"}


class WatchCut:
    """Asked by the watch stream after every event it sent (BOOKMARKs aside) and once before the first:
    None means go on; bytes mean write them (possibly nothing) and end the stream."""

    def __init__(self, after: int, final: bytes) -> None:
        self.after = after
        self.final = final

    def __call__(self, events_sent: int) -> bytes | None:
        return self.final if events_sent >= self.after else None


WATCH_CUT_KEY = web.RequestKey("fakeapi_watch_cut", WatchCut)
"""Where a fired rule leaves its `WatchCut` on the request, for the watch stream to consult."""


@dataclass(eq=False)
class FaultRule:
    """A fault rule. `matched` counts matching requests, `fired` the ones it acted on."""

    verb: str | None = None
    resource: str | None = None
    subresource: str | None = None
    namespace: str | None = None
    name: str | None = None
    field_manager: str | None = None
    user_agent: str | None = None
    status: int | None = None
    message: str | None = None
    retry_after: int | None = None
    delay: float | None = None
    cut_watch_after: int | None = None
    times: int | None = None
    nth: int | None = None
    probability: float | None = None
    seed: int | None = None
    id: int = 0
    matched: int = 0
    fired: int = 0
    _random: random.Random = field(init=False, repr=False)
    _patterns: list[tuple[str, str, bool]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        _check_rule(self)
        self._random = random.Random(self.seed if self.seed is not None else 0)
        self._patterns = [(attr, value, bool(_GLOB.intersection(value)))
                          for attr in MATCHERS if (value := getattr(self, attr)) is not None]

    # ---- matching and firing

    def matches(self, info: RequestInfo, field_manager: str, user_agent: str) -> bool:
        if self.cut_watch_after is not None and info.verb != "watch":
            return False
        for attr, pattern, glob in self._patterns:
            value = field_manager if attr == "field_manager" else user_agent if attr == "user_agent" \
                else getattr(info, attr)
            if not (fnmatchcase(value, pattern) if glob else value == pattern):
                return False
        return True

    def decide(self) -> bool:
        """Count one more match and say whether the rule fires on it."""
        self.matched += 1
        if self.nth is not None and self.matched != self.nth:
            return False
        if self.times is not None and self.fired >= self.times:
            return False
        if self.probability is not None and self._random.random() >= self.probability:
            return False
        self.fired += 1
        return True

    # ---- actions

    def error(self, info: RequestInfo, query: Mapping[str, str], resource_version: int) -> StatusError | None:
        """The error to answer with, if the rule has a status (on a watch, 410 is an ERROR event instead)."""
        if self.status is None or (info.verb == "watch" and self.status == 410):
            return None
        return status_error(self, info, query, resource_version)

    def watch_cut(self, info: RequestInfo, query: Mapping[str, str],
                  resource_version: int) -> WatchCut | None:
        if info.verb != "watch" or (self.cut_watch_after is None and self.status != 410):
            return None
        final = b""
        if self.status == 410:
            status = status_error(self, info, query, resource_version).to_status()
            final = orjson.dumps({"type": "ERROR", "object": status}) + b"\n"
        return WatchCut(self.cut_watch_after or 0, final)

    def to_json(self) -> JSON:
        out: JSON = {"id": self.id}
        for attr in (*MATCHERS, *ACTIONS):
            value = getattr(self, attr)
            if value is not None:
                out[JSON_NAMES.get(attr, attr)] = value
        out["matched"] = self.matched
        out["fired"] = self.fired
        return out

    @classmethod
    def from_json(cls, body: Any) -> FaultRule:
        """A rule from the control API's camelCase JSON; ValueError names what is wrong."""
        if not isinstance(body, dict):
            raise ValueError("a fault rule must be a JSON object")
        python_names = {v: k for k, v in JSON_NAMES.items()}
        allowed = {*MATCHERS, *ACTIONS}
        kwargs: dict[str, Any] = {}
        for key, value in body.items():
            attr = python_names.get(key, key)
            if attr not in allowed or key in JSON_NAMES:
                raise ValueError(f"unknown field {key!r} in fault rule")
            kwargs[attr] = value
        return cls(**kwargs)


def _check_rule(rule: FaultRule) -> None:
    for attr in (*MATCHERS, "message"):
        value = getattr(rule, attr)
        if value is not None and not isinstance(value, str):
            raise ValueError(f"{JSON_NAMES.get(attr, attr)} must be a string")
    for attr in ("status", "retry_after", "cut_watch_after", "times", "nth", "seed"):
        value = getattr(rule, attr)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            raise ValueError(f"{JSON_NAMES.get(attr, attr)} must be a non-negative integer")
    for attr in ("delay", "probability"):
        value = getattr(rule, attr)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | float) or value < 0):
            raise ValueError(f"{attr} must be a non-negative number")
    if rule.status is not None and rule.status not in SUPPORTED_STATUS:
        raise ValueError(f"status {rule.status} is not supported: use one of {list(SUPPORTED_STATUS)}")
    if rule.nth == 0:
        raise ValueError("nth counts matches from 1")
    if rule.probability is not None and rule.probability > 1:
        raise ValueError("probability must be between 0 and 1")
    if rule.cut_watch_after is not None and rule.status not in (None, 410):
        raise ValueError("a watch cut ends the stream, or sends a 410 ERROR event (status 410); "
                         f"status {rule.status} cannot go with cutWatchAfter")
    if rule.status is None and rule.delay is None and rule.cut_watch_after is None:
        raise ValueError("a fault rule needs an action: status, delay or cutWatchAfter")


def status_error(rule: FaultRule, info: RequestInfo, query: Mapping[str, str],
                 resource_version: int) -> StatusError:
    """The upstream-shaped error for a rule's status, with upstream's wording unless `message` is set."""
    message = rule.message
    resource, name, group = info.resource, info.name, info.group
    error: StatusError
    if rule.status == 400:
        error = BadRequest(message or "the server rejected our request for an unknown reason")
    elif rule.status == 403:
        scope = f' in the namespace "{info.namespace}"' if info.namespace else " at the cluster scope"
        why = message or (f'User "system:anonymous" cannot {info.verb} resource "{_qualified(info)}" '
                          f'in API group "{group}"{scope}')
        error = Forbidden.for_object(_qualified(info), name, why, group=group)
    elif rule.status == 404:
        error = NotFound.for_object(resource, name, group=group)
        if message:
            error.message = message
    elif rule.status == 409:
        error = Conflict.for_object(resource, name, message, group=group) if message else \
            Conflict.modified(resource, name, group=group)
    elif rule.status == 410:
        sent = query.get("resourceVersion") or "0"
        error = Expired(message or f"too old resource version: {sent} ({resource_version})")
    elif rule.status == 429:
        error = with_retry_after(TooManyRequests(message or "Too many requests, please try again later."),
                                 1 if rule.retry_after is None else rule.retry_after)
    elif rule.status == 500:
        cause = message or "injected fault"
        error = InternalError(f"Internal error occurred: {cause}", {"causes": [{"message": cause}]})
    elif rule.status == 503:
        error = ServiceUnavailable(message or "the server is currently unable to handle the request")
    else:
        error = Timeout("Timeout: " + (message or "request did not complete within requested timeout - "
                                                  "context deadline exceeded"), {})
    if rule.retry_after is not None and rule.status in (503, 504):
        with_retry_after(error, rule.retry_after)
    return error


def _qualified(info: RequestInfo) -> str:
    return f"{info.resource}/{info.subresource}" if info.subresource else info.resource


@dataclass(frozen=True, slots=True)
class FiredFault:
    """One time a rule acted: which rule, on which request, when."""

    rule: int
    time: datetime
    method: str
    path: str
    verb: str
    resource: str
    subresource: str
    namespace: str
    name: str

    def to_json(self) -> JSON:
        return {"rule": self.rule, "time": self.time.isoformat().replace("+00:00", "Z"),
                "method": self.method, "path": self.path, "verb": self.verb, "resource": self.resource,
                "subresource": self.subresource, "namespace": self.namespace, "name": self.name}


class Faults:
    """The active rules, in the order they were added, and the log of faults fired."""

    def __init__(self) -> None:
        self.rules: list[FaultRule] = []
        self.fired: deque[FiredFault] = deque(maxlen=FIRED_LOG)
        self._next_id = 1

    def add(self, rule: FaultRule) -> FaultRule:
        rule.id = self._next_id
        self._next_id += 1
        self.rules.append(rule)
        return rule

    def get(self, rule_id: int) -> FaultRule | None:
        return next((rule for rule in self.rules if rule.id == rule_id), None)

    def remove(self, rule_id: int) -> bool:
        rule = self.get(rule_id)
        if rule is not None:
            self.rules.remove(rule)
        return rule is not None

    def clear(self) -> None:
        self.rules.clear()
        self.fired.clear()

    def fire(self, info: RequestInfo, field_manager: str, user_agent: str, method: str, path: str,
             now: datetime, *, aimed_at_agent: bool = False) -> list[FaultRule]:
        """The rules that fire on this request (every matching rule counts the match). `aimed_at_agent`:
        only rules that name a user agent apply (the simulated components' requests are faulted so)."""
        fired = [rule for rule in self.rules
                 if (not aimed_at_agent or rule.user_agent is not None)
                 and rule.matches(info, field_manager, user_agent) and rule.decide()]
        for rule in fired:
            self.fired.append(FiredFault(rule.id, now, method, path, info.verb, info.resource,
                                         info.subresource, info.namespace, info.name))
        return fired


async def inject_faults(faults: Faults, clock: Clock, resource_version: Callable[[], int],
                        request: web.Request) -> None:
    """Apply the rules that fire on this request before it is handled: sleep, then raise the error or
    leave a WatchCut for the watch handler."""
    query = request.query
    info = request_info(request.method, request.path, query)
    fired = faults.fire(info, query.get("fieldManager", ""), request.headers.get("User-Agent", ""),
                        request.method, request.path, clock.now())
    if not fired:
        return
    delay = sum(rule.delay or 0 for rule in fired)
    if delay:
        await asyncio.sleep(delay)
    for rule in fired:
        error = rule.error(info, query, resource_version())
        if error is not None:
            raise error
    for rule in fired:
        cut = rule.watch_cut(info, query, resource_version())
        if cut is not None:
            request[WATCH_CUT_KEY] = cut
            break
