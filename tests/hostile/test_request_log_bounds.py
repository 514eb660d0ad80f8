"""The request log stays small whatever clients send, and never holds their credentials or Secret values."""

from __future__ import annotations

import base64
from datetime import UTC, datetime
from typing import Any

import aiohttp
import orjson
import pytest
from multidict import CIMultiDict, CIMultiDictProxy

from fakeapi.config import DEFAULT_REQUEST_LOG_BYTES, ServerConfig
from fakeapi.http.requestlog import BODY_LIMIT, RequestLog
from fakeapi.testing import FakeAPIServer
from tests.hostile.checks import CONTROL, PODS

BODY = 3 * 1024 * 1024  # the largest body the server reads
SECRETS = "/api/v1/namespaces/default/secrets"
TOKEN = "s3cr3t-t0ken-value"
# aiohttp's client warns of large bytes bodies; a stream would triple the test's time
pytestmark = pytest.mark.filterwarnings("ignore:Sending a large body directly:ResourceWarning")


async def listing(http: aiohttp.ClientSession) -> bytes:
    async with http.get(CONTROL + "/requests") as response:
        assert response.status == 200
        return await response.read()


async def send_rejected_bodies(http: aiohttp.ClientSession, count: int) -> None:
    """`count` bodies of 3 MiB, each read whole (for the log) and then refused for their media type."""
    body = b"x" * BODY
    for _ in range(count):
        async with http.post(PODS, data=body, headers={"Content-Type": "text/plain"}) as response:
            assert response.status == 415


async def test_200_rejected_3_mib_requests_keep_the_log_small(http: aiohttp.ClientSession,
                                                              async_fakeapi: FakeAPIServer) -> None:
    await send_rejected_bodies(http, 200)
    listed = await listing(http)
    assert len(listed) < DEFAULT_REQUEST_LOG_BYTES  # not 200 x 3 MiB
    entries = orjson.loads(listed)["items"]
    assert len(entries) == 200
    assert {(len(e["body"]), e["bodyTruncated"], e["bodySize"], e["status"]) for e in entries} == {
        (BODY_LIMIT, True, BODY, 415)}
    [recorded, *_] = async_fakeapi.requests
    assert (len(recorded.body), recorded.body_size, recorded.body_truncated) == (BODY_LIMIT, BODY, True)
    with pytest.raises(ValueError, match="the body was cut at 65536 of its 3145728 bytes"):
        recorded.json()


async def test_the_log_is_bounded_in_bytes_dropping_the_oldest_requests() -> None:
    config = ServerConfig(request_log_bytes=1024 * 1024)
    async with FakeAPIServer(config=config) as server, \
            aiohttp.ClientSession(base_url=server.url, headers={"X-Fakeapi-Control": "1"}) as http:
        await send_rejected_bodies(http, 40)
        async with http.get(PODS + "/last"):
            pass
        entries = orjson.loads(await listing(http))["items"]
    assert 10 < len(entries) < 17  # 1 MiB holds 15 bodies cut at 64 KiB, and the last request
    assert sum(len(e["body"]) for e in entries) <= 1024 * 1024
    assert (entries[-1]["path"], entries[-1]["status"]) == (PODS + "/last", 404)


@pytest.mark.parametrize(("header", "value", "recorded"), [
    ("Authorization", "Basic " + base64.b64encode(f"admin:{TOKEN}".encode()).decode(), "Basic <redacted>"),
    ("Authorization", TOKEN, "<redacted>"),
    ("Proxy-Authorization", f"Bearer {TOKEN}", "Bearer <redacted>"),
    ("Sec-WebSocket-Protocol", f"v4.channel.k8s.io, base64url.bearer.authorization.k8s.io.{TOKEN}",
     "v4.channel.k8s.io, base64url.bearer.authorization.k8s.io.<redacted>"),
])
async def test_credentials_in_headers_are_redacted(http: aiohttp.ClientSession, async_fakeapi: FakeAPIServer,
                                                   header: str, value: str, recorded: str) -> None:
    async with http.get(PODS, headers={header: value}):
        pass
    listed = await listing(http)
    assert TOKEN.encode() not in listed and base64.b64encode(f"admin:{TOKEN}".encode()) not in listed
    assert orjson.loads(listed)["items"][0]["headers"][header] == recorded
    assert async_fakeapi.requests[0].headers[header] == recorded


async def test_a_bearer_token_is_redacted(http: aiohttp.ClientSession) -> None:
    """(A token the server knows: an unknown one is a 401, which is not recorded.)"""
    async with http.post("/api/v1/namespaces/default/serviceaccounts/default/token", json={}) as response:
        token = (await response.json())["status"]["token"]
    async with http.get(PODS, headers={"Authorization": f"Bearer {token}"}) as response:
        assert response.status == 200
    listed = await listing(http)
    assert token.encode() not in listed
    assert orjson.loads(listed)["items"][-1]["headers"]["Authorization"] == "Bearer <redacted>"


SECRET = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "db"},
          "data": {"password": base64.b64encode(TOKEN.encode()).decode()}, "stringData": {"token": TOKEN}}


@pytest.mark.parametrize(("method", "path", "content_type", "body", "recorded"), [
    ("POST", SECRETS, "application/json", SECRET,
     {**SECRET, "data": {"password": "<redacted>"}, "stringData": {"token": "<redacted>"}}),
    ("PATCH", SECRETS + "/db", "application/merge-patch+json", {"stringData": {"token": TOKEN}},
     {"stringData": {"token": "<redacted>"}}),
    ("PATCH", SECRETS + "/db", "application/json-patch+json",
     [{"op": "add", "path": "/stringData/token", "value": TOKEN}, {"op": "add", "path": "/data", "value": {"a": TOKEN}},
      {"op": "replace", "path": "", "value": SECRET}, {"op": "test", "path": "/metadata/name", "value": "db"}],
     [{"op": "add", "path": "/stringData/token", "value": "<redacted>"},
      {"op": "add", "path": "/data", "value": {"a": "<redacted>"}},
      {"op": "replace", "path": "", "value": {**SECRET, "data": {"password": "<redacted>"},
                                                "stringData": {"token": "<redacted>"}}},
      {"op": "test", "path": "/metadata/name", "value": "db"}]),
    ("PUT", SECRETS + "/db", "application/yaml", f"kind: Secret\nstringData: {{token: {TOKEN}}}\n", "<redacted>"),
])
async def test_secret_values_are_redacted(http: aiohttp.ClientSession, method: str, path: str, content_type: str,
                                          body: Any, recorded: Any) -> None:
    data = body.encode() if isinstance(body, str) else orjson.dumps(body)
    async with http.request(method, path, data=data, headers={"Content-Type": content_type}):
        pass
    listed = await listing(http)
    assert TOKEN.encode() not in listed and base64.b64encode(TOKEN.encode()) not in listed
    logged = orjson.loads(listed)["items"][0]["body"]
    assert (logged if isinstance(body, str) else orjson.loads(logged)) == recorded


LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
APPLIED = {**SECRET, "metadata": {"name": "db", "annotations": {LAST_APPLIED: orjson.dumps(SECRET).decode()}}}
APPLIED_REDACTED = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "db"},
                    "data": {"password": "<redacted>"}, "stringData": {"token": "<redacted>"}}


def _applied(logged: Any) -> Any:
    """A logged body whose last-applied annotation is parsed (to compare it as an object)."""
    annotations = logged["metadata"]["annotations"]
    return {**logged, "metadata": {**logged["metadata"], "annotations": {
        LAST_APPLIED: orjson.loads(annotations[LAST_APPLIED])}}}


@pytest.mark.parametrize(("method", "path", "body", "recorded"), [
    ("POST", "/apis/authentication.k8s.io/v1/tokenreviews",
     {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": {"token": TOKEN}},
     {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": {"token": "<redacted>"}}),
    ("PATCH", SECRETS + "/db", APPLIED,  # kubectl apply: the values again in the annotation
     _applied({**APPLIED_REDACTED, "metadata": {"name": "db", "annotations": {
         LAST_APPLIED: orjson.dumps(APPLIED_REDACTED).decode()}}})),
    ("POST", SECRETS, {"apiVersion": "v1", "kind": "SecretList", "items": [SECRET, SECRET]},  # refused
     {"apiVersion": "v1", "kind": "SecretList", "items": [APPLIED_REDACTED, APPLIED_REDACTED]}),
    ("POST", PODS, {"apiVersion": "v1", "kind": "List", "items": [SECRET]},  # refused: not a pod
     {"apiVersion": "v1", "kind": "List", "items": [APPLIED_REDACTED]}),
    ("POST", "/api/v1/namespaces/default/configmaps", SECRET, APPLIED_REDACTED),  # refused: not a ConfigMap
    ("PATCH", SECRETS + "/db", [{"op": "add", "path": "/metadata/annotations/" + LAST_APPLIED.replace("/", "~1"),
                                  "value": orjson.dumps(SECRET).decode()}],
     [{"op": "add", "path": "/metadata/annotations/" + LAST_APPLIED.replace("/", "~1"),
       "value": orjson.dumps(APPLIED_REDACTED).decode() + "\n"}]),
])
async def test_tokens_and_secret_values_elsewhere_in_bodies_are_redacted(
        http: aiohttp.ClientSession, method: str, path: str, body: Any, recorded: Any) -> None:
    content_type = "application/json-patch+json" if isinstance(body, list) else \
        "application/strategic-merge-patch+json" if method == "PATCH" else "application/json"
    async with http.request(method, path, data=orjson.dumps(body), headers={"Content-Type": content_type}):
        pass
    listed = await listing(http)
    assert TOKEN.encode() not in listed and base64.b64encode(TOKEN.encode()) not in listed
    logged = orjson.loads(orjson.loads(listed)["items"][0]["body"])
    if isinstance(logged, dict) and LAST_APPLIED in logged.get("metadata", {}).get("annotations", {}):
        logged = _applied(logged)
    assert logged == recorded


async def test_a_body_with_nothing_to_redact_is_kept_as_sent(http: aiohttp.ClientSession) -> None:
    sent = b'{"apiVersion": "v1", "kind": "List", "items": [{"kind": "ConfigMap", "metadata": {"name": "a"}}]}'
    async with http.post(PODS, data=sent, headers={"Content-Type": "application/json"}):
        pass
    assert orjson.loads(await listing(http))["items"][0]["body"] == sent.decode()


async def test_the_log_is_read_only_with_the_control_header(async_fakeapi: FakeAPIServer) -> None:
    async with aiohttp.ClientSession(base_url=async_fakeapi.url) as plain, plain.get(CONTROL + "/requests") as response:
        assert response.status == 403
        assert (await response.json())["message"] == (
            "reading the request log takes the header X-Fakeapi-Control: 1 (the log holds what clients sent; web "
            "pages cannot send the header to another site)")


def test_the_log_counts_the_bytes_of_what_it_keeps() -> None:
    log = RequestLog(limit=3, max_bytes=10_000)
    headers = CIMultiDictProxy(CIMultiDict({"Accept": "application/json"}))
    for index in range(5):
        log.set_body(log.record("POST", f"/p{index}", {}, headers, datetime.now(UTC)), b"x" * 1000)
    assert [entry.path for entry in log] == ["/p2", "/p3", "/p4"]
    assert log.size == 3 * (3 + len("Accept") + len("application/json") + 1000)
    big = log.record("POST", "/big", {}, headers, datetime.now(UTC))
    log.set_body(big, b"y" * 100_000)  # alone over the limit: kept, cut, and the rest dropped
    assert [entry.path for entry in log] == ["/big"] and log.size == 4 + 22 + BODY_LIMIT
    log.clear()
    assert (len(log), log.size) == (0, 0)
