"""The request log: what clients sent (method, path, query, headers, body) and the status answered."""

from __future__ import annotations

import base64
from collections import deque
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import orjson
from aiohttp import web
from multidict import CIMultiDictProxy

from fakeapi.http.requestinfo import RequestInfo, request_info
from fakeapi.machinery.clock import Clock
from fakeapi.machinery.types import JSON

CONTROL_PREFIX = "/fakeapi/"
DEFAULT_REQUEST_LOG = 1_000


@dataclass(slots=True, eq=False)
class RecordedRequest:
    """One request as the server saw it; `status` is None until the response has started."""

    method: str
    path: str
    query: Mapping[str, str]
    headers: CIMultiDictProxy[str]
    time: datetime
    body: bytes = b""
    status: int | None = None
    _info: RequestInfo | None = field(default=None, repr=False)

    @property
    def info(self) -> RequestInfo:
        if self._info is None:
            self._info = request_info(self.method, self.path, self.query)
        return self._info

    @property
    def verb(self) -> str:
        return self.info.verb

    @property
    def resource(self) -> str:
        return self.info.resource

    @property
    def subresource(self) -> str:
        return self.info.subresource

    @property
    def namespace(self) -> str:
        return self.info.namespace

    @property
    def name(self) -> str:
        return self.info.name

    @property
    def user_agent(self) -> str:
        return self.headers.get("User-Agent", "")

    def json(self) -> Any:
        """The body parsed as JSON (None when there was no body)."""
        return orjson.loads(self.body) if self.body.strip() else None

    def to_json(self) -> JSON:
        info = self.info
        out: JSON = {
            "time": self.time.isoformat().replace("+00:00", "Z"),
            "method": self.method,
            "path": self.path,
            "query": dict(self.query),
            "headers": {str(key): value for key, value in self.headers.items()},
            "status": self.status,
            "verb": info.verb,
            "resource": info.resource,
            "subresource": info.subresource,
            "namespace": info.namespace,
            "name": info.name,
        }
        try:
            out["body"] = self.body.decode()
        except UnicodeDecodeError:
            out["bodyBase64"] = base64.b64encode(self.body).decode()
        return out

    def matches(self, verb: str | None = None, resource: str | None = None, subresource: str | None = None,
                namespace: str | None = None, name: str | None = None, method: str | None = None) -> bool:
        info = self.info
        return ((verb is None or info.verb == verb) and (resource is None or info.resource == resource)
                and (subresource is None or info.subresource == subresource)
                and (namespace is None or info.namespace == namespace)
                and (name is None or info.name == name) and (method is None or self.method == method.upper()))


RECORD_KEY = web.RequestKey("fakeapi_recorded_request", RecordedRequest)


class RequestLog:
    """The last `limit` requests, oldest first; a limit of 0 records nothing."""

    def __init__(self, limit: int = DEFAULT_REQUEST_LOG) -> None:
        self.limit = limit
        self._entries: deque[RecordedRequest] = deque(maxlen=max(limit, 1))

    def record(self, method: str, path: str, query: Mapping[str, str], headers: CIMultiDictProxy[str],
               time: datetime) -> RecordedRequest:
        # aiohttp's query and headers are immutable views: kept as they are, not copied
        entry = RecordedRequest(method, path, query, headers, time)
        self._entries.append(entry)
        return entry

    def entries(self, **filters: str | None) -> list[RecordedRequest]:
        """A copy of the log, optionally only the entries matching every filter given (see `matches`)."""
        if not any(value is not None for value in filters.values()):
            return list(self._entries)
        return [entry for entry in self._entries if entry.matches(**filters)]

    def clear(self) -> None:
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[RecordedRequest]:
        return iter(list(self._entries))


def record_request(log: RequestLog, clock: Clock, request: web.Request) -> RecordedRequest:
    """Record an API request before it is handled, without its body (the caller reads that, and
    aiohttp keeps the bytes for the handler); `record_status` adds the status later."""
    entry = log.record(request.method, request.path, request.query, request.headers, clock.now())
    request[RECORD_KEY] = entry
    return entry


def record_status(request: web.BaseRequest, response: web.StreamResponse) -> None:
    """The status of a recorded request, once it is known: streams (watch, log) call this when their
    headers go out, so a long-lived stream shows its status while it runs."""
    entry = request.get(RECORD_KEY)
    if entry is not None and entry.status is None:
        entry.status = response.status
