"""Time control: every time the server uses comes from the one clock tests freeze, set and advance."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import aiohttp
import orjson

from fakeapi.config import ServerConfig
from fakeapi.testing import FakeAPIServer

PODS = "/api/v1/namespaces/default/pods"
NOON = datetime(2030, 6, 1, 12, 0, tzinfo=UTC)


def test_creation_timestamps_follow_the_frozen_clock(fakeapi: FakeAPIServer, make_pod: Any) -> None:
    assert fakeapi.clock.freeze(NOON) == NOON
    assert fakeapi.clock.frozen and fakeapi.clock.now() == NOON
    first = fakeapi.seed(make_pod("first"))[0]
    assert fakeapi.clock.advance(timedelta(minutes=5)) == NOON + timedelta(minutes=5)
    second = fakeapi.seed(make_pod("second"))[0]
    assert first["metadata"]["creationTimestamp"] == "2030-06-01T12:00:00Z"
    assert second["metadata"]["creationTimestamp"] == "2030-06-01T12:05:00Z"


def test_deletion_timestamps_add_the_grace_period_to_the_clock(fakeapi: FakeAPIServer, make_pod: Any) -> None:
    from kubernetes import client

    fakeapi.clock.freeze(NOON)
    fakeapi.seed(make_pod("web", nodeName="node-1"))  # scheduled, so deleting it is graceful
    v1 = client.CoreV1Api(fakeapi.kubernetes_client())
    v1.delete_namespaced_pod("web", "default", grace_period_seconds=45)
    meta = fakeapi.get("pods", "web")["metadata"]
    assert (meta["deletionTimestamp"], meta["deletionGracePeriodSeconds"]) == ("2030-06-01T12:00:45Z", 45)


def test_set_moves_live_time_which_keeps_running(fakeapi: FakeAPIServer) -> None:
    fakeapi.clock.set(NOON)
    assert not fakeapi.clock.frozen
    assert NOON <= fakeapi.clock.now() < NOON + timedelta(seconds=5)
    fakeapi.clock.freeze()
    fakeapi.clock.unfreeze()
    assert NOON <= fakeapi.clock.now() < NOON + timedelta(seconds=5)


async def _next_event(response: aiohttp.ClientResponse, timeout: float) -> dict[str, Any] | None:
    try:
        line = await asyncio.wait_for(response.content.readline(), timeout)
    except TimeoutError:
        return None
    event: dict[str, Any] = orjson.loads(line)
    return event


async def test_watch_bookmarks_come_when_the_clock_says_so(make_pod: Any) -> None:
    async with FakeAPIServer(config=ServerConfig(bookmark_interval=0.05)) as server, \
            aiohttp.ClientSession(base_url=server.url) as http:
        server.clock.freeze(NOON)
        server.seed(make_pod("web"))
        rv = server.api.store.resource_version
        query = f"?watch=true&allowWatchBookmarks=true&resourceVersion={rv - 1}"
        async with http.get(PODS + query) as response:
            assert (await _next_event(response, 2) or {}).get("type") == "ADDED"
            assert await _next_event(response, 0.2) is None  # the frozen clock never reaches the interval
            server.clock.advance(1)
            bookmark = await _next_event(response, 2)
        assert bookmark == {"type": "BOOKMARK", "object": {"kind": "Pod", "apiVersion": "v1",
                                                           "metadata": {"resourceVersion": str(rv)}}}


async def test_watch_history_ages_with_the_clock(make_pod: Any) -> None:
    async with FakeAPIServer(config=ServerConfig(watch_history_age=60)) as server, \
            aiohttp.ClientSession(base_url=server.url) as http:
        server.clock.freeze(NOON)
        server.seed(make_pod("old"))
        start = server.api.store.resource_version - 1
        server.clock.advance(30)
        async with http.get(f"{PODS}?watch=true&resourceVersion={start}") as response:
            assert (await _next_event(response, 2) or {}).get("type") == "ADDED"  # still replayable
        server.clock.advance(31)
        server.seed(make_pod("new"))
        async with http.get(f"{PODS}?watch=true&resourceVersion={start}") as response:
            [event] = [orjson.loads(line) for line in (await response.read()).splitlines()]
        assert (event["type"], event["object"]["code"], event["object"]["reason"]) == ("ERROR", 410,
                                                                                     "Expired")


def test_times_before_year_1000_are_written_with_four_digits_and_read_back(fakeapi: FakeAPIServer,
                                                                            make_pod: Any) -> None:
    from kubernetes import client

    long_ago = datetime(999, 6, 1, 12, 0, tzinfo=UTC)
    fakeapi.clock.freeze(long_ago)
    fakeapi.seed(make_pod("old", nodeName="node-1"))
    v1 = client.CoreV1Api(fakeapi.kubernetes_client())
    v1.delete_namespaced_pod("old", "default", grace_period_seconds=30)
    meta = fakeapi.get("pods", "old")["metadata"]
    assert (meta["creationTimestamp"], meta["deletionTimestamp"]) == ("0999-06-01T12:00:00Z", "0999-06-01T12:00:30Z")
    # the official client parses them back, and a write carrying them is taken as it was read
    pod = v1.read_namespaced_pod("old", "default")
    assert pod.metadata.creation_timestamp == long_ago
    pod.metadata.labels = {"read": "back"}
    replaced = v1.replace_namespaced_pod("old", "default", pod)
    assert replaced.metadata.creation_timestamp == long_ago
    assert fakeapi.get("pods", "old")["metadata"]["creationTimestamp"] == "0999-06-01T12:00:00Z"
