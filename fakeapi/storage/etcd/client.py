"""A synchronous etcd v3 client over etcd's gRPC gateway (HTTP/JSON), with etcd3gw.

The store calls it on the event loop's thread: each call blocks for one round trip on loopback (the
store's calls stay atomic, as the in-memory store's). A call that cannot reach etcd raises
`EtcdUnavailable` at once (a refused connection) or after `timeout` (no answer); several endpoints are
tried in turn, as etcd's own clients balance over them.
"""

from __future__ import annotations

import base64
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, cast

import requests
from etcd3gw.client import Etcd3Client
from etcd3gw.exceptions import ConnectionFailedError, ConnectionTimeoutError, Etcd3Exception

from fakeapi.storage.etcd.config import Endpoint, EtcdConfig

log = logging.getLogger("fakeapi.storage")

API_PATH = "/v3/"  # etcd 3.4 and later (fakeapi does not ask /version first)
CONNECT_TIMEOUT = 1.0
COMPACTED = "required revision has been compacted"
FUTURE_REVISION = "required revision is a future revision"


class EtcdUnavailable(Exception):
    """etcd did not answer (refused, reset, timed out): the outcome of a write is unknown."""


class EtcdCompacted(Exception):
    """A read at a revision etcd has compacted away."""


class EtcdError(Exception):
    """etcd answered with an error (not a lost connection)."""


def b64(data: bytes | str) -> str:
    return base64.b64encode(data.encode() if isinstance(data, str) else data).decode()


def unb64(text: str) -> bytes:
    return base64.b64decode(text)


def prefix_end(prefix: str) -> str:
    """The key after every key that starts with `prefix` (etcd's range_end for a prefix)."""
    return prefix[:-1] + chr(ord(prefix[-1]) + 1)


@dataclass(frozen=True, slots=True)
class KeyValue:
    key: str
    value: bytes
    mod_revision: int
    create_revision: int


def key_value(kv: dict[str, Any]) -> KeyValue:
    return KeyValue(unb64(kv["key"]).decode(), unb64(kv.get("value", "")), int(kv.get("mod_revision", 0)),
                    int(kv.get("create_revision", 0)))


@dataclass(frozen=True, slots=True)
class TxnResult:
    succeeded: bool
    revision: int  # etcd's revision after the transaction (the write's own, when it wrote)
    current: KeyValue | None  # on failure: the key as it is (None when missing)
    previous: KeyValue | None = None  # a delete that passed: the value it deleted


class EtcdClient:
    def __init__(self, config: EtcdConfig, timeout: float = 5.0) -> None:
        self.config = config
        self.timeout = timeout
        self._clients = [self._client_for(endpoint) for endpoint in config.endpoints]
        self._current = 0  # the endpoint that answered last

    def _client_for(self, endpoint: Endpoint) -> Etcd3Client:
        session, _url = self.session(endpoint)
        # (connect, read) timeouts: requests takes a pair where etcd3gw's annotation says a number
        timeout = cast(float, (CONNECT_TIMEOUT, self.timeout))
        return Etcd3Client(host=endpoint.host, port=endpoint.port, protocol=endpoint.scheme, timeout=timeout,
                           api_path=API_PATH, session=session)

    def session(self, endpoint: Endpoint) -> tuple[requests.Session, str]:
        """A new HTTP session for `endpoint`, with the TLS settings, and the API's base URL (one per thread:
        the watch stream reads its own)."""
        session = requests.Session()
        # the flags alone say how to reach etcd: no proxy from the environment, and REQUESTS_CA_BUNDLE would
        # override --etcd-cafile (requests prefers it to the session's own)
        session.trust_env = False
        if self.config.ca_file is not None:
            session.verify = str(self.config.ca_file)
        if self.config.cert_file is not None and self.config.key_file is not None:
            session.cert = (str(self.config.cert_file), str(self.config.key_file))
        return session, f"{endpoint}{API_PATH}"

    def next_endpoint(self) -> None:
        self._current = (self._current + 1) % len(self._clients)

    def close(self) -> None:
        for client in self._clients:
            client.session.close()

    # ---- calls

    def call(self, path: str, payload: dict[str, Any]) -> dict[str, Any]:
        """POST one request, trying each endpoint once; EtcdUnavailable when none answers."""
        last: Exception | None = None
        for _attempt in range(len(self._clients)):
            client = self._clients[self._current]
            try:
                result: dict[str, Any] = client.post(client.base_url + API_PATH + path, json=payload)
                return result
            except Etcd3Exception as error:
                detail = str(getattr(error, "detail_text", "") or error)
                if COMPACTED in detail:
                    raise EtcdCompacted(detail) from None
                if isinstance(error, ConnectionFailedError | ConnectionTimeoutError) or _is_unavailable(detail):
                    last = error
                    self.next_endpoint()
                    continue
                raise EtcdError(detail) from None
            except requests.RequestException as error:
                last = error
                self.next_endpoint()
        raise EtcdUnavailable(_describe(last))

    def txn(self, compare: list[dict[str, Any]], success: list[dict[str, Any]],
            failure: list[dict[str, Any]]) -> dict[str, Any]:
        return self.call("kv/txn", {"compare": compare, "success": success, "failure": failure})

    def put_if(self, key: str, value: bytes, mod_revision: int) -> TxnResult:
        """Put `key` if its mod_revision is `mod_revision` (0: the key must be missing)."""
        return self._conditional(key, mod_revision, {"request_put": {"key": b64(key), "value": b64(value)}})

    def delete_if(self, key: str, mod_revision: int | None) -> TxnResult:
        """Delete `key` if its mod_revision is `mod_revision` (None: whatever it is, if it exists)."""
        return self._conditional(key, mod_revision, {"request_delete_range": {"key": b64(key), "prev_kv": True}})

    def _conditional(self, key: str, mod_revision: int | None, operation: dict[str, Any]) -> TxnResult:
        encoded = b64(key)
        compare = {"key": encoded, "target": "MOD"}
        if mod_revision is None:
            compare.update(result="GREATER", mod_revision="0")
        else:
            compare.update(result="EQUAL", mod_revision=str(mod_revision))
        result = self.txn([compare], [operation], [{"request_range": {"key": encoded}}])
        revision = int(result["header"]["revision"])
        if result.get("succeeded"):
            deleted = result["responses"][0].get("response_delete_range", {}).get("prev_kvs") or []
            return TxnResult(True, revision, None, key_value(deleted[0]) if deleted else None)
        kvs = result["responses"][0]["response_range"].get("kvs") or []
        return TxnResult(False, revision, key_value(kvs[0]) if kvs else None)

    def get(self, key: str) -> KeyValue | None:
        kvs = self.call("kv/range", {"key": b64(key)}).get("kvs") or []
        return key_value(kvs[0]) if kvs else None

    def revision(self) -> int:
        """etcd's current revision, from a linearizable (quorum) read."""
        return int(self.call("kv/range", {"key": b64("\0"), "count_only": True})["header"]["revision"])

    def range_prefix(self, prefix: str, revision: int | None = None,
                     page: int = 2000) -> tuple[int, Iterator[KeyValue]]:
        """Every key under `prefix` at one revision (the current one by default), read in pages: the
        revision, and the keys in key order."""
        end = prefix_end(prefix)
        first = self._range(prefix, end, revision, page)
        at = int(first["header"]["revision"]) if revision is None else revision

        def pages() -> Iterator[KeyValue]:
            result = first
            while True:
                kvs = result.get("kvs") or []
                for kv in kvs:
                    yield key_value(kv)
                if not result.get("more") or not kvs:
                    return
                result = self._range(unb64(kvs[-1]["key"]).decode() + "\0", end, at, page)

        return at, pages()

    def _range(self, start: str, end: str, revision: int | None, limit: int) -> dict[str, Any]:
        payload: dict[str, Any] = {"key": b64(start), "range_end": b64(end), "limit": limit}
        if revision is not None:
            payload["revision"] = str(revision)
        return self.call("kv/range", payload)

    def delete_prefix(self, prefix: str) -> int:
        return int(self.call("kv/deleterange", {"key": b64(prefix), "range_end": b64(prefix_end(prefix))})
                   ["header"]["revision"])

    def compact(self, revision: int) -> None:
        try:
            self.call("kv/compaction", {"revision": str(revision)})
        except EtcdCompacted:
            pass  # (compacted there already, by another server)

    def healthy(self) -> bool:
        try:
            self.call("maintenance/status", {})
        except (EtcdUnavailable, EtcdError):
            return False
        return True


def _is_unavailable(detail: str) -> bool:
    """etcd's answers that mean it cannot serve now (no leader, stopping), as lost connections are."""
    return any(text in detail for text in ("no leader", "server stopped", "timed out", "unavailable",
                                           "too many requests", "leader changed"))


def _describe(error: Exception | None) -> str:
    """Why no endpoint answered, in a few words."""
    detail = str(getattr(error, "detail_text", "") or error or "")
    if "SSL" in detail or isinstance(error, requests.exceptions.SSLError):
        return "the TLS handshake failed: check --etcd-cafile, --etcd-certfile and --etcd-keyfile"
    if isinstance(error, ConnectionTimeoutError | requests.Timeout):
        return "no answer in time"
    if isinstance(error, ConnectionFailedError | requests.ConnectionError):
        return "connection refused or lost"
    return detail or "no endpoint"
