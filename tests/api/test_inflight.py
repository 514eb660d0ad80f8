"""In-flight limits as upstream's max-in-flight filter applies them: reads and writes counted apart, 429
with Retry-After past a limit, watches and pod logs exempt, 0 for no limit.

A request is held in flight by a fault that delays it; the others are sent while it waits.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from fakeapi.config import ServerConfig
from fakeapi.testing import FakeAPIServer

PODS = "/api/v1/namespaces/default/pods"
HOLD = 30  # seconds a held request would wait; it is cancelled long before


@pytest.fixture
async def session() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as opened:
        yield opened


async def hold_one(server: FakeAPIServer, session: aiohttp.ClientSession, verb: str, method: str,
                   path: str, body: Any = None) -> asyncio.Task[Any]:
    """Send a request that a fault keeps in flight; returns once the server is holding it."""
    server.inject(verb=verb, resource="pods", delay=HOLD, times=1)
    held = asyncio.create_task(session.request(method, server.url + path, json=body))
    for _ in range(200):  # bounded: the server takes the request at once
        if server.fired_faults:
            return held
        await asyncio.sleep(0.01)
    raise AssertionError("the held request never reached the server")


async def release(held: asyncio.Task[Any]) -> None:
    held.cancel()
    await asyncio.gather(held, return_exceptions=True)


async def test_reads_past_the_limit_get_upstreams_429(session: aiohttp.ClientSession, make_pod: Any) -> None:
    config = ServerConfig(max_requests_inflight=1, max_mutating_requests_inflight=1)
    async with FakeAPIServer(config=config) as server:
        server.seed([make_pod("held"), make_pod("web")])
        held = await hold_one(server, session, "get", "GET", PODS + "/held")
        try:
            async with session.get(server.url + PODS + "/web") as response:
                # upstream writes Go's http.Error here: plain text, not a Status
                assert (response.status, await response.text()) == (429, "Too many requests, please try "
                                                                          "again later.\n")
                assert response.headers["Retry-After"] == "1"
                assert response.headers["Content-Type"] == "text/plain; charset=utf-8"
                assert response.headers["X-Content-Type-Options"] == "nosniff"
            async with session.post(server.url + PODS, json=make_pod("new")) as response:
                assert response.status == 201  # writes are counted apart
            # long-running requests are not counted
            async with session.get(server.url + PODS + "/web/log") as response:
                assert response.status == 200
            async with session.get(server.url + PODS + "?watch=true") as response:
                assert response.status == 200
        finally:
            await release(held)
        async with session.get(server.url + PODS + "/web") as response:
            assert response.status == 200  # the slot is free again


async def test_writes_past_the_limit_get_upstreams_429(session: aiohttp.ClientSession, make_pod: Any) -> None:
    config = ServerConfig(max_requests_inflight=1, max_mutating_requests_inflight=1)
    async with FakeAPIServer(config=config) as server:
        held = await hold_one(server, session, "create", "POST", PODS, make_pod("held"))
        try:
            async with session.post(server.url + PODS, json=make_pod("web")) as response:
                assert (response.status, response.headers["Retry-After"]) == (429, "1")
            async with session.get(server.url + PODS) as response:
                assert response.status == 200  # reads are counted apart
            assert [pod["metadata"]["name"] for pod in server.list("pods")] == []
        finally:
            await release(held)


async def test_a_limit_of_0_is_no_limit(session: aiohttp.ClientSession, make_pod: Any) -> None:
    config = ServerConfig(max_requests_inflight=0, max_mutating_requests_inflight=0)
    async with FakeAPIServer(config=config) as server:
        server.seed([make_pod("held"), make_pod("web")])
        held = await hold_one(server, session, "get", "GET", PODS + "/held")
        try:
            replies = await asyncio.gather(*(session.get(server.url + PODS + "/web") for _ in range(5)))
            assert [reply.status for reply in replies] == [200] * 5
            for reply in replies:
                reply.release()
        finally:
            await release(held)


async def test_a_handler_past_the_request_timeout_gets_upstreams_504(session: aiohttp.ClientSession,
                                                                     make_pod: Any) -> None:
    async with FakeAPIServer(config=ServerConfig(request_timeout=0.2)) as server:
        server.seed(make_pod("held"))
        server.inject(verb="get", name="held", delay=HOLD)
        async with session.get(server.url + PODS + "/held") as response:
            assert (response.status, await response.json()) == (504, {
                "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                "message": "Timeout: request did not complete within the allotted timeout", "reason": "Timeout",
                "details": {}, "code": 504})
