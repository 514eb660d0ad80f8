"""The request log: what clients sent (method, path, query, headers, body), who sent it, and the status
answered.

It is bounded in entries and in bytes, and each body is kept up to BODY_LIMIT (the entry says how long it
was). Credentials never enter it; recorded as `<redacted>` are:
- `Authorization` headers and bearer tokens in WebSocket protocols;
- a TokenReview's `spec.token`;
- the values of a Secret's `data` and `stringData`, also inside the `kubectl.kubernetes.io/last-applied-
  configuration` annotation that `kubectl apply` writes: in a write to `secrets` (an object, a patch, or a
  list of them that the server refuses), and in a Secret or a list holding Secrets sent anywhere else.
A body of those writes that is not JSON (YAML, protobuf) is redacted whole; elsewhere such a body is kept.
Reading the log (GET /fakeapi/v1/requests) takes the control header, and credentials when the server checks
them (fakeapi.http.control).
"""

from __future__ import annotations

import base64
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import orjson
from aiohttp import web
from multidict import CIMultiDict, CIMultiDictProxy

from fakeapi.config import DEFAULT_REQUEST_LOG, DEFAULT_REQUEST_LOG_BYTES
from fakeapi.http.requestinfo import RequestInfo, request_info
from fakeapi.machinery.clock import Clock
from fakeapi.machinery.limits import load_json
from fakeapi.machinery.types import JSON
from fakeapi.machinery.users import ANONYMOUS, UserInfo

CONTROL_PREFIX = "/fakeapi/"
BODY_LIMIT = 64 * 1024  # of each body, the first BODY_LIMIT bytes are kept
REDACTED = "<redacted>"
_CREDENTIAL_HEADERS = ("authorization", "proxy-authorization")
_WEBSOCKET_TOKEN = "base64url.bearer.authorization.k8s.io."  # a bearer token sent as a WebSocket protocol
_SECRET_FIELDS = ("data", "stringData")
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
_WRITES = frozenset({"POST", "PUT", "PATCH"})


@dataclass(slots=True, eq=False)
class RecordedRequest:
    """One request as the server saw it; `status` is None until the response has started."""

    method: str
    path: str
    query: Mapping[str, str]
    headers: CIMultiDictProxy[str]
    time: datetime
    user: UserInfo = ANONYMOUS  # who the server authenticated the request as
    body: bytes = b""
    body_size: int = 0  # as sent: more than len(body) when the body was cut at BODY_LIMIT
    status: int | None = None
    _info: RequestInfo | None = field(default=None, repr=False)
    _size: int = field(default=0, repr=False)  # what the entry counts against the log's byte limit
    _kept: bool = field(default=True, repr=False)  # False once the log has dropped it

    @property
    def body_truncated(self) -> bool:
        return self.body_size > len(self.body)

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
        """The body parsed as JSON (None when there was no body); ValueError for a cut body."""
        if self.body_truncated:
            raise ValueError(f"the body was cut at {len(self.body)} of its {self.body_size} bytes")
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
            "user": self.user.to_json(),
            "verb": info.verb,
            "resource": info.resource,
            "subresource": info.subresource,
            "namespace": info.namespace,
            "name": info.name,
        }
        try:
            out["body"] = self.body.decode()
        except UnicodeDecodeError:  # binary, or text cut inside a character
            out["bodyBase64"] = base64.b64encode(self.body).decode()
        if self.body_truncated:
            out["bodyTruncated"] = True
            out["bodySize"] = self.body_size
        return out

    def matches(self, verb: str | None = None, resource: str | None = None, subresource: str | None = None,
                namespace: str | None = None, name: str | None = None, method: str | None = None,
                user: str | None = None) -> bool:
        """Whether the request has every attribute given (`user`: the user name)."""
        info = self.info
        return ((verb is None or info.verb == verb) and (resource is None or info.resource == resource)
                and (subresource is None or info.subresource == subresource)
                and (namespace is None or info.namespace == namespace)
                and (name is None or info.name == name) and (method is None or self.method == method.upper())
                and (user is None or self.user.username == user))


RECORD_KEY = web.RequestKey("fakeapi_recorded_request", RecordedRequest)


class RequestLog:
    """The last `limit` requests, oldest first, holding at most about `max_bytes`; a limit of 0 records
    nothing. The newest request always stays, whatever its size."""

    def __init__(self, limit: int = DEFAULT_REQUEST_LOG, max_bytes: int = DEFAULT_REQUEST_LOG_BYTES) -> None:
        self.limit = limit
        self.max_bytes = max_bytes
        self._entries: deque[RecordedRequest] = deque(maxlen=max(limit, 1))
        self._bytes = 0

    def record(self, method: str, path: str, query: Mapping[str, str], headers: CIMultiDictProxy[str],
               time: datetime, user: UserInfo = ANONYMOUS) -> RecordedRequest:
        # aiohttp's query and headers are immutable views: kept as they are, not copied (unless redacted)
        if "authorization" in headers or "proxy-authorization" in headers or "sec-websocket-protocol" in headers:
            headers = _without_credentials(headers)
        entry = RecordedRequest(method, path, query, headers, time, user)
        entry._size = len(path) + sum(len(key) + len(value) for key, value in headers.items())
        entries = self._entries
        if len(entries) == entries.maxlen:  # the append drops the oldest
            self._forget(entries[0])
        entries.append(entry)
        self._bytes += entry._size
        if self._bytes > self.max_bytes:
            self._trim()
        return entry

    def set_body(self, entry: RecordedRequest, body: bytes) -> None:
        """Keep `body` in `entry`: redacted where it holds credentials, and cut at BODY_LIMIT."""
        self._keep_body(entry, _without_credentials_in_body(entry, body))

    def set_object_body(self, entry: RecordedRequest, body: JSON) -> None:
        """`set_body` for a body the server sends itself (the simulated components'), encoded here."""
        path = entry.path
        if body.get("kind") == "Secret" or "items" in body or "/secrets" in path or "/tokenreviews" in path:
            self.set_body(entry, orjson.dumps(body))
        else:  # nothing to redact: no need to parse it back
            self._keep_body(entry, orjson.dumps(body))

    def _keep_body(self, entry: RecordedRequest, body: bytes) -> None:
        entry.body = body[:BODY_LIMIT]
        entry.body_size = len(body)
        if entry._kept:  # (other requests may have pushed it out while its body was read)
            entry._size += len(entry.body)
            self._bytes += len(entry.body)
            if self._bytes > self.max_bytes:
                self._trim()

    def _trim(self) -> None:
        """Drop the oldest entries until the log fits in `max_bytes` (or only the newest is left)."""
        entries = self._entries
        while self._bytes > self.max_bytes and len(entries) > 1:
            self._forget(entries.popleft())

    def _forget(self, entry: RecordedRequest) -> None:
        entry._kept = False
        self._bytes -= entry._size

    def entries(self, **filters: str | None) -> list[RecordedRequest]:
        """A copy of the log, optionally only the entries matching every filter given (see `matches`)."""
        if not any(value is not None for value in filters.values()):
            return list(self._entries)
        return [entry for entry in self._entries if entry.matches(**filters)]

    @property
    def size(self) -> int:
        """What the log holds now, in bytes (bodies, headers and paths)."""
        return self._bytes

    def clear(self) -> None:
        for entry in self._entries:
            entry._kept = False
        self._entries.clear()
        self._bytes = 0

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[RecordedRequest]:
        return iter(list(self._entries))


def _without_credentials(headers: CIMultiDictProxy[str]) -> CIMultiDictProxy[str]:
    """A copy of `headers` with credentials redacted."""
    redacted: CIMultiDict[str] = CIMultiDict()
    for key, value in headers.items():
        if key.lower() in _CREDENTIAL_HEADERS:
            scheme, _, credentials = value.strip().partition(" ")
            value = f"{scheme} {REDACTED}" if credentials else REDACTED  # the scheme helps, and is no secret
        elif key.lower() == "sec-websocket-protocol":
            value = ", ".join(_WEBSOCKET_TOKEN + REDACTED if protocol.strip().startswith(_WEBSOCKET_TOKEN)
                              else protocol.strip() for protocol in value.split(","))
        redacted.add(key, value)
    return CIMultiDictProxy(redacted)


def _without_credentials_in_body(entry: RecordedRequest, body: bytes) -> bytes:
    """The body as the log keeps it (see the module's docstring); the very bytes sent when nothing is redacted."""
    if not body or entry.method not in _WRITES:
        return body
    path = entry.path
    if "/secrets" in path and entry.resource == "secrets":
        return _redacted_json(body, _redact_secret_write)
    if "/tokenreviews" in path and entry.resource == "tokenreviews":
        return _redacted_json(body, _redact_token_review)
    try:
        value = load_json(body)
    except ValueError:
        return body  # not JSON: refused as such, and no Secret the server would take
    return orjson.dumps(value) if _redact_secrets_within(value) else body


def _redacted_json(body: bytes, redact: Callable[[Any], None]) -> bytes:
    """A JSON body with `redact` applied; one that is not JSON is redacted whole."""
    try:
        value = load_json(body)
    except ValueError:
        return REDACTED.encode()
    redact(value)
    return orjson.dumps(value)


def _redact_secret_write(value: Any) -> None:
    """A write to `secrets`: a Secret (create, update, merge patch), a JSON patch's operations, or a list of
    Secrets (which the server refuses, but the log would have kept)."""
    if isinstance(value, dict):
        _redact_secret(value)
        items = value.get("items")
        if isinstance(items, list):
            for item in items:
                _redact_secret(item)
    elif isinstance(value, list):  # a JSON patch
        for operation in value:
            if isinstance(operation, dict) and "value" in operation:
                operation["value"] = _redacted_at(str(operation.get("path", "")), operation["value"])


def _redacted_at(pointer: str, value: Any) -> Any:
    """A JSON patch operation's value, redacted as the part of a Secret that its path points to."""
    keys = [key.replace("~1", "/").replace("~0", "~") for key in pointer.split("/")[1:]]
    wrapped = value
    for key in reversed(keys):
        wrapped = {key: wrapped}
    _redact_secret(wrapped)
    try:
        for key in keys:
            wrapped = wrapped[key]
    except (KeyError, TypeError):  # the redaction replaced a whole map on the way
        return REDACTED
    return wrapped


def _redact_secrets_within(value: Any) -> bool:
    """A body sent to another resource: a Secret, or Secrets in a list's items (both refused there). Whether
    anything was redacted."""
    if not isinstance(value, dict):
        return False
    found = False
    items = value.get("items")
    for obj in [value, *items] if isinstance(items, list) else [value]:
        if isinstance(obj, dict) and obj.get("kind") == "Secret":
            _redact_secret(obj)
            found = True
    return found


def _redact_secret(obj: Any) -> None:
    if not isinstance(obj, dict):
        return
    for name in _SECRET_FIELDS:
        if name in obj:
            obj[name] = _redacted_values(obj[name])
    metadata = obj.get("metadata")
    annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
    if isinstance(annotations, dict) and isinstance(annotations.get(LAST_APPLIED), str):
        annotations[LAST_APPLIED] = _redacted_last_applied(annotations[LAST_APPLIED])


def _redacted_last_applied(text: str) -> str:
    """What `kubectl apply` last applied (a Secret, values and all, as JSON text), redacted."""
    try:
        applied = orjson.loads(text)
    except orjson.JSONDecodeError:
        return REDACTED
    _redact_secret(applied)
    return orjson.dumps(applied).decode() + "\n"


def _redacted_values(values: Any) -> Any:
    """The keys of a Secret's data map (they name what is there), every value redacted."""
    return {key: REDACTED for key in values} if isinstance(values, dict) else REDACTED


def _redact_token_review(value: Any) -> None:
    spec = value.get("spec") if isinstance(value, dict) else None
    if isinstance(spec, dict) and "token" in spec:
        spec["token"] = REDACTED


def record_request(log: RequestLog, clock: Clock, request: web.Request, user: UserInfo) -> RecordedRequest:
    """Record an API request by `user` before it is handled, without its body (the caller reads that,
    and aiohttp keeps the bytes for the handler); `record_status` adds the status later."""
    entry = log.record(request.method, request.path, request.query, request.headers, clock.now(), user)
    request[RECORD_KEY] = entry
    return entry


def record_status(request: web.BaseRequest, response: web.StreamResponse) -> None:
    """The status of a recorded request, once it is known: streams (watch, log) call this when their
    headers go out, so a long-lived stream shows its status while it runs."""
    entry = request.get(RECORD_KEY)
    if entry is not None and entry.status is None:
        entry.status = response.status
