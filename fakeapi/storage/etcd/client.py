"""A synchronous etcd v3 client: etcd's own gRPC API, with aetcd's generated stubs on a blocking channel.

The store calls it on the event loop's thread: each call blocks for one round trip on loopback (the
store's calls stay atomic, as the in-memory store's). A call that cannot reach etcd raises
`EtcdUnavailable` at once (a refused connection) or after `timeout` (no answer); several endpoints are
tried in turn, as etcd's own clients balance over them.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

import grpc
from aetcd import rpc

from fakeapi.storage.etcd.config import Endpoint, EtcdConfig

log = logging.getLogger("fakeapi.storage")

COMPACTED = "required revision has been compacted"
# etcd's answers that mean it cannot serve now (no leader, stopping), as a lost connection does
UNAVAILABLE_DETAILS = ("no leader", "server stopped", "timed out", "unavailable", "too many requests",
                       "leader changed")
CHANNEL_OPTIONS = [
    ("grpc.max_receive_message_length", -1),  # a page of big objects is more than gRPC's 4 MiB default
    ("grpc.max_send_message_length", -1),  # (etcd's --max-request-bytes is the bound)
    # etcd coming back is noticed within half a second, not after gRPC's default backoff of up to 2 min
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.min_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 500),
    # a connection that died silently (a cut network) is noticed while a watch is open
    ("grpc.keepalive_time_ms", 10_000),
    ("grpc.keepalive_timeout_ms", 5_000),
    ("grpc.use_local_subchannel_pool", 1),  # each client its own connection: closing one leaves the others
]

Result = TypeVar("Result")


class EtcdUnavailable(Exception):
    """etcd did not answer (refused, reset, timed out): the outcome of a write is unknown."""


class EtcdCompacted(Exception):
    """A read at a revision etcd has compacted away."""


class EtcdError(Exception):
    """etcd answered with an error (not a lost connection)."""


def prefix_end(prefix: str) -> str:
    """The key after every key that starts with `prefix` (etcd's range_end for a prefix)."""
    return prefix[:-1] + chr(ord(prefix[-1]) + 1)


@dataclass(frozen=True, slots=True)
class KeyValue:
    key: str
    value: bytes
    mod_revision: int
    create_revision: int
    version: int = 0  # writes since the key was created


def key_value(kv: Any) -> KeyValue:
    return KeyValue(kv.key.decode(), kv.value, kv.mod_revision, kv.create_revision, kv.version)


@dataclass(frozen=True, slots=True)
class TxnResult:
    succeeded: bool
    revision: int  # etcd's revision after the transaction (the write's own, when it wrote)
    current: KeyValue | None  # on failure: the key as it is (None when missing)
    previous: KeyValue | None = None  # a delete that passed: the value it deleted


class WatchStream:
    """One open watch: its responses, in order, until `cancel` (from any thread) or a broken connection
    (both end the iteration with `grpc.RpcError`)."""

    def __init__(self, stub: Any, request: Any, timeout: float | None = None) -> None:
        self._done = threading.Event()
        self._call = stub.Watch(self._requests(request), timeout=timeout)

    def _requests(self, request: Any) -> Iterator[Any]:
        yield request
        self._done.wait()  # (ending the requests would half-close the stream)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._call)

    def cancel(self) -> None:
        self._done.set()
        self._call.cancel()


class EtcdClient:
    def __init__(self, config: EtcdConfig, timeout: float = 5.0) -> None:
        self.config = config
        self.timeout = timeout
        credentials = _credentials(config)
        self._channels = [_channel(endpoint, credentials) for endpoint in config.endpoints]
        self._kv = [rpc.KVStub(channel) for channel in self._channels]
        self._current = 0  # the endpoint that answered last

    def next_endpoint(self) -> None:
        self._current = (self._current + 1) % len(self._channels)

    def close(self) -> None:
        for channel in self._channels:
            channel.close()

    # ---- calls

    def _call(self, call: Callable[[int], Result]) -> Result:
        """Make one call (given the endpoint's index), trying each endpoint once; EtcdUnavailable when none
        answers."""
        last: grpc.RpcError | None = None
        for _attempt in range(len(self._channels)):
            try:
                return call(self._current)
            except grpc.RpcError as error:
                detail = _detail(error)
                if COMPACTED in detail:
                    raise EtcdCompacted(detail) from None
                if not _is_unavailable(error):
                    raise EtcdError(detail) from None
                last = error
                self.next_endpoint()
        raise EtcdUnavailable(_describe(last))

    def _txn(self, request: Any) -> Any:
        return self._call(lambda at: self._kv[at].Txn(request, timeout=self.timeout))

    def put_if(self, key: str, value: bytes, mod_revision: int) -> TxnResult:
        """Put `key` if its mod_revision is `mod_revision` (0: the key must be missing)."""
        encoded = key.encode()
        return self._conditional(encoded, rpc.Compare.EQUAL, mod_revision,
                                 rpc.RequestOp(request_put=rpc.PutRequest(key=encoded, value=value)))

    def delete_if(self, key: str, mod_revision: int | None) -> TxnResult:
        """Delete `key` if its mod_revision is `mod_revision` (None: whatever it is, if it exists)."""
        encoded = key.encode()
        operation = rpc.RequestOp(request_delete_range=rpc.DeleteRangeRequest(key=encoded, prev_kv=True))
        if mod_revision is None:
            return self._conditional(encoded, rpc.Compare.GREATER, 0, operation)
        return self._conditional(encoded, rpc.Compare.EQUAL, mod_revision, operation)

    def _conditional(self, key: bytes, result: int, mod_revision: int, operation: Any) -> TxnResult:
        response = self._txn(rpc.TxnRequest(
            compare=[rpc.Compare(key=key, target=rpc.Compare.MOD, result=result, mod_revision=mod_revision)],
            success=[operation], failure=[rpc.RequestOp(request_range=rpc.RangeRequest(key=key))]))
        revision = response.header.revision
        if response.succeeded:
            deleted = response.responses[0].response_delete_range.prev_kvs
            return TxnResult(True, revision, None, key_value(deleted[0]) if deleted else None)
        kvs = response.responses[0].response_range.kvs
        return TxnResult(False, revision, key_value(kvs[0]) if kvs else None)

    def put_if_version(self, key: str, value: bytes, version: int) -> TxnResult:
        """Put `key` if its version (writes since created; 0: missing) is `version`."""
        encoded = key.encode()
        response = self._txn(rpc.TxnRequest(
            compare=[rpc.Compare(key=encoded, target=rpc.Compare.VERSION, result=rpc.Compare.EQUAL,
                                 version=version)],
            success=[rpc.RequestOp(request_put=rpc.PutRequest(key=encoded, value=value))],
            failure=[rpc.RequestOp(request_range=rpc.RangeRequest(key=encoded))]))
        if response.succeeded:
            return TxnResult(True, response.header.revision, None)
        kvs = response.responses[0].response_range.kvs
        return TxnResult(False, response.header.revision, key_value(kvs[0]) if kvs else None)

    def put_all(self, items: list[tuple[str, bytes]]) -> int:
        """Put every key in one transaction (etcd's --max-txn-ops bounds how many): the revision after."""
        response = self._txn(rpc.TxnRequest(success=[
            rpc.RequestOp(request_put=rpc.PutRequest(key=key.encode(), value=value)) for key, value in items]))
        revision: int = response.header.revision
        return revision

    def get(self, key: str) -> KeyValue | None:
        response = self._call(lambda at: self._kv[at].Range(rpc.RangeRequest(key=key.encode()),
                                                            timeout=self.timeout))
        return key_value(response.kvs[0]) if response.kvs else None

    def revision(self) -> int:
        """etcd's current revision, from a linearizable (quorum) read."""
        response = self._call(lambda at: self._kv[at].Range(rpc.RangeRequest(key=b"\0", count_only=True),
                                                            timeout=self.timeout))
        revision: int = response.header.revision
        return revision

    def range_prefix(self, prefix: str, revision: int | None = None,
                     page: int = 2000) -> tuple[int, Iterator[KeyValue]]:
        """Every key under `prefix` at one revision (the current one by default), read in pages: the
        revision, and the keys in key order."""
        end = prefix_end(prefix).encode()
        first = self._range(prefix.encode(), end, revision or 0, page)
        at: int = first.header.revision if revision is None else revision

        def pages() -> Iterator[KeyValue]:
            response = first
            while True:
                for kv in response.kvs:
                    yield key_value(kv)
                if not response.more or not response.kvs:
                    return
                response = self._range(response.kvs[-1].key + b"\0", end, at, page)

        return at, pages()

    def _range(self, start: bytes, end: bytes, revision: int, limit: int) -> Any:
        request = rpc.RangeRequest(key=start, range_end=end, limit=limit, revision=revision)
        return self._call(lambda at: self._kv[at].Range(request, timeout=self.timeout))

    def delete_prefix(self, prefix: str) -> int:
        request = rpc.DeleteRangeRequest(key=prefix.encode(), range_end=prefix_end(prefix).encode())
        response = self._call(lambda at: self._kv[at].DeleteRange(request, timeout=self.timeout))
        revision: int = response.header.revision
        return revision

    def compact(self, revision: int) -> None:
        try:
            self._call(lambda at: self._kv[at].Compact(rpc.CompactionRequest(revision=revision),
                                                       timeout=self.timeout))
        except EtcdCompacted:
            pass  # (compacted there already, by another server)

    def healthy(self) -> bool:
        try:
            self._call(lambda at: rpc.MaintenanceStub(self._channels[at]).Status(rpc.StatusRequest(),
                                                                                 timeout=self.timeout))
        except (EtcdUnavailable, EtcdError):
            return False
        return True

    def watch(self, start_revision: int) -> WatchStream:
        """Watch every key from `start_revision` on the current endpoint (with etcd's progress notes)."""
        create = rpc.WatchCreateRequest(key=b"\0", range_end=b"\0", start_revision=start_revision,
                                        progress_notify=True)
        return WatchStream(rpc.WatchStub(self._channels[self._current]), rpc.WatchRequest(create_request=create))


def _credentials(config: EtcdConfig) -> grpc.ChannelCredentials | None:
    """TLS settings for https endpoints: the CA that verifies etcd, and the client certificate."""
    if not any(endpoint.scheme == "https" for endpoint in config.endpoints):
        return None
    ca = config.ca_file.read_bytes() if config.ca_file is not None else None
    key = config.key_file.read_bytes() if config.key_file is not None else None
    cert = config.cert_file.read_bytes() if config.cert_file is not None else None
    return grpc.ssl_channel_credentials(root_certificates=ca, private_key=key, certificate_chain=cert)


def _channel(endpoint: Endpoint, credentials: grpc.ChannelCredentials | None) -> grpc.Channel:
    target = str(endpoint).split("://", 1)[1]
    if endpoint.scheme == "https" and credentials is not None:
        return grpc.secure_channel(target, credentials, options=CHANNEL_OPTIONS)
    return grpc.insecure_channel(target, options=CHANNEL_OPTIONS)


def _detail(error: grpc.RpcError) -> str:
    details = getattr(error, "details", None)
    return str(details() if callable(details) else error) or ""


def _is_unavailable(error: grpc.RpcError) -> bool:
    code = getattr(error, "code", None)
    status = code() if callable(code) else None
    if status in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.CANCELLED):
        return True
    detail = _detail(error)
    return any(text in detail for text in UNAVAILABLE_DETAILS)


def _describe(error: grpc.RpcError | None) -> str:
    """Why no endpoint answered, in a few words."""
    if error is None:
        return "no endpoint"
    detail = _detail(error)
    lowered = detail.lower()
    if any(word in lowered for word in ("ssl", "handshake", "certificate", "tls", "tsi_")):  # (tsi: gRPC's TLS)
        return "the TLS handshake failed: check --etcd-cafile, --etcd-certfile and --etcd-keyfile"
    code = getattr(error, "code", None)
    if callable(code) and code() == grpc.StatusCode.DEADLINE_EXCEEDED:
        return "no answer in time"
    if "connect" in lowered or "refused" in lowered or "reset" in lowered:
        return "connection refused or lost"
    return detail or "no answer"
