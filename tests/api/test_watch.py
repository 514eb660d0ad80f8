"""Watch over HTTP: framing, initial events, replay, filters, bookmarks, WatchList, timeouts, slow
watchers, disconnects and shutdown, with exact event sequences."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import aiohttp
import pytest
from aiohttp import web

from fakeapi.app import create_app
from fakeapi.config import ServerConfig
from fakeapi.http.keys import api_key, watch_hub_key
from fakeapi.registry.options import WriteOptions

PODS = "/api/v1/namespaces/default/pods"
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"
MERGE = {"Content-Type": "application/merge-patch+json"}


async def create(client: Any, pod: dict[str, Any], namespace: str = "default") -> dict[str, Any]:
    response = await client.post(f"/api/v1/namespaces/{namespace}/pods", json=pod)
    assert response.status == 201, await response.text()
    created: dict[str, Any] = await response.json()
    return created


async def relabel(client: Any, name: str, labels: dict[str, str | None]) -> dict[str, Any]:
    response = await client.patch(f"{PODS}/{name}", data=json.dumps({"metadata": {"labels": labels}}),
                                  headers=MERGE)
    assert response.status == 200, await response.text()
    patched: dict[str, Any] = await response.json()
    return patched


async def delete(client: Any, name: str) -> dict[str, Any]:
    response = await client.delete(f"{PODS}/{name}")
    assert response.status == 200, await response.text()
    deleted: dict[str, Any] = await response.json()
    return deleted


async def watch(client: Any, path: str = PODS, **params: str) -> Any:
    response = await client.get(path, params={"watch": "true", **params})
    assert response.status == 200, await response.text()
    return response


async def next_event(response: Any, timeout: float = 2.0) -> Any:
    line = await asyncio.wait_for(response.content.readline(), timeout)
    assert line.endswith(b"\n"), line
    return json.loads(line)


async def events(response: Any, count: int) -> list[tuple[str, str, str]]:
    """(type, name, resourceVersion) of the next `count` events."""
    out = []
    for _ in range(count):
        event = await next_event(response)
        meta = event["object"]["metadata"]
        out.append((event["type"], meta.get("name", ""), meta["resourceVersion"]))
    return out


def rv(obj: dict[str, Any]) -> str:
    return str(obj["metadata"]["resourceVersion"])


def deletion(gone: dict[str, Any]) -> list[tuple[str, str, str]]:
    """An unscheduled pod's delete, as upstream writes it: deletionTimestamp set (MODIFIED), then gone."""
    name, version = gone["metadata"]["name"], int(rv(gone))
    return [("MODIFIED", name, str(version - 1)), ("DELETED", name, str(version))]


async def test_watch_is_a_chunked_stream_of_json_lines(client: Any, make_pod: Any) -> None:
    pod = await create(client, make_pod("a"))
    response = await watch(client)
    assert response.headers["Content-Type"] == "application/json"
    assert response.headers["Transfer-Encoding"] == "chunked"
    line = await asyncio.wait_for(response.content.readline(), 2)
    assert json.loads(line) == {"type": "ADDED", "object": pod}


@pytest.mark.parametrize("flag", ["true", "1", "True"])
async def test_watch_flag_values(client: Any, flag: str) -> None:
    response = await client.get(PODS, params={"watch": flag})
    assert response.headers["Transfer-Encoding"] == "chunked"
    listed = await (await client.get(PODS, params={"watch": "false"})).json()
    assert listed["kind"] == "PodList"


async def test_watch_without_version_sends_current_objects_then_changes(client: Any, make_pod: Any) -> None:
    a = await create(client, make_pod("a"))
    b = await create(client, make_pod("b"))
    response = await watch(client)
    assert await events(response, 2) == [("ADDED", "a", rv(a)), ("ADDED", "b", rv(b))]
    a2 = await relabel(client, "a", {"x": "1"})
    gone = await delete(client, "b")
    assert await events(response, 3) == [("MODIFIED", "a", rv(a2)), *deletion(gone)]


async def test_watch_from_version_0_is_like_no_version(client: Any, make_pod: Any) -> None:
    a = await create(client, make_pod("a"))
    response = await watch(client, resourceVersion="0")
    assert await events(response, 1) == [("ADDED", "a", rv(a))]


async def test_watch_from_a_version_replays_without_gap_or_duplicate(client: Any, make_pod: Any) -> None:
    await create(client, make_pod("a"))
    listed = await (await client.get(PODS)).json()
    b = await create(client, make_pod("b"))
    a2 = await relabel(client, "a", {"x": "1"})
    gone = await delete(client, "a")
    response = await watch(client, resourceVersion=listed["metadata"]["resourceVersion"])
    c = await create(client, make_pod("c"))
    assert await events(response, 5) == [("ADDED", "b", rv(b)), ("MODIFIED", "a", rv(a2)),
                                         *deletion(gone), ("ADDED", "c", rv(c))]


async def test_deleted_event_carries_the_last_state_at_a_new_version(client: Any, make_pod: Any) -> None:
    a = await create(client, make_pod("a", labels={"app": "web"}))
    response = await watch(client, resourceVersion=rv(a))
    gone = await delete(client, "a")
    assert (await next_event(response))["type"] == "MODIFIED"
    event = await next_event(response)
    assert event == {"type": "DELETED", "object": gone}
    assert int(rv(gone)) > int(rv(a)) and gone["metadata"]["labels"] == {"app": "web"}


async def test_watch_from_a_forgotten_version_gets_one_410_error_event(aiohttp_client: Any,
                                                                       make_pod: Any) -> None:
    client = await aiohttp_client(create_app(ServerConfig(watch_history=2)))
    for name in "abcd":
        await create(client, make_pod(name))
    response = await watch(client, resourceVersion="1")
    replayable_after = client.app[api_key].store.resource_version - 2  # the last two changes are kept
    assert await next_event(response) == {"type": "ERROR", "object": {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": f"too old resource version: 1 ({replayable_after})", "reason": "Expired",
        "code": 410}}
    assert await asyncio.wait_for(response.content.readline(), 2) == b""


async def test_a_large_object_rewritten_is_kept_in_history_only_up_to_its_byte_bound(aiohttp_client: Any) -> None:
    client = await aiohttp_client(create_app(ServerConfig(watch_history_bytes=4 * 1024 * 1024)))
    path = "/api/v1/namespaces/default/configmaps"
    async with client.post(path, json={"metadata": {"name": "big"}, "data": {"blob": "x" * 900_000}}) as response:
        first = await response.json()
    for index in range(10):
        patch = {"data": {"blob": str(index) * 900_000}}
        async with client.patch(path + "/big", json=patch,
                                headers={"Content-Type": "application/merge-patch+json"}) as response:
            assert response.status == 200
    store = client.app[api_key].store
    assert store.history_bytes <= 4 * 1024 * 1024  # two changes or so, not eleven megabyte-sized ones
    async with client.get(path, params={"watch": "true", "resourceVersion": rv(first)}) as response:
        event = json.loads(await response.content.readline())
    assert (event["type"], event["object"]["code"], event["object"]["reason"]) == ("ERROR", 410, "Expired")
    async with client.get(path, params={"watch": "true", "resourceVersion": str(store.resource_version - 1),
                                        "timeoutSeconds": "1"}) as response:
        event = json.loads((await response.read()).splitlines()[0])  # (a line longer than readline takes)
    assert (event["type"], event["object"]["data"]["blob"][:1]) == ("MODIFIED", "9")


async def test_filtered_watch_sends_added_and_deleted_as_objects_enter_and_leave(client: Any,
                                                                                  make_pod: Any) -> None:
    await create(client, make_pod("a", labels={"app": "db"}))
    b = await create(client, make_pod("b", labels={"app": "web"}))
    response = await watch(client, labelSelector="app=web")
    assert await events(response, 1) == [("ADDED", "b", rv(b))]
    a_in = await relabel(client, "a", {"app": "web"})
    a_still = await relabel(client, "a", {"tier": "front"})
    b_out = await relabel(client, "b", {"app": "db"})
    await relabel(client, "b", {"tier": "back"})  # changes outside the selection are not sent
    a_gone = await delete(client, "a")
    assert await events(response, 5) == [("ADDED", "a", rv(a_in)), ("MODIFIED", "a", rv(a_still)),
                                         ("DELETED", "b", rv(b_out)), *deletion(a_gone)]


async def test_deleted_for_an_object_leaving_the_selection_shows_its_old_content(client: Any,
                                                                                 make_pod: Any) -> None:
    b = await create(client, make_pod("b", labels={"app": "web"}))
    response = await watch(client, labelSelector="app=web", resourceVersion=rv(b))
    moved = await relabel(client, "b", {"app": "db"})
    event = await next_event(response)
    expected = {**b, "metadata": {**b["metadata"], "resourceVersion": rv(moved)}}
    assert event == {"type": "DELETED", "object": expected}


async def test_field_selector_watch_follows_status_changes(client: Any, make_pod: Any) -> None:
    a = await create(client, make_pod("a"))
    response = await watch(client, fieldSelector="status.phase=Running", resourceVersion=rv(a))
    running = await client.patch(f"{PODS}/a/status", data=json.dumps({"status": {"phase": "Running"}}),
                                 headers=MERGE)
    done = await client.patch(f"{PODS}/a/status", data=json.dumps({"status": {"phase": "Succeeded"}}),
                              headers=MERGE)
    assert await events(response, 2) == [("ADDED", "a", rv(await running.json())),
                                         ("DELETED", "a", rv(await done.json()))]


async def test_watch_one_object_by_name(client: Any, make_pod: Any) -> None:
    a = await create(client, make_pod("a"))
    await create(client, make_pod("b"))
    response = await watch(client, fieldSelector="metadata.name=a", resourceVersion="0")
    assert await events(response, 1) == [("ADDED", "a", rv(a))]
    await relabel(client, "b", {"x": "1"})
    a2 = await relabel(client, "a", {"x": "1"})
    assert await events(response, 1) == [("MODIFIED", "a", rv(a2))]


async def test_legacy_watch_paths(client: Any, make_pod: Any) -> None:
    a = await create(client, make_pod("a"))
    await create(client, make_pod("b"))
    one = await client.get("/api/v1/watch/namespaces/default/pods/a")
    assert await events(one, 1) == [("ADDED", "a", rv(a))]
    collection = await client.get("/api/v1/watch/namespaces/default/pods")
    assert [event[1] for event in await events(collection, 2)] == ["a", "b"]
    namespace = await client.get("/api/v1/watch/namespaces/default")
    assert (await next_event(namespace))["object"]["metadata"]["name"] == "default"
    mismatch = await client.get("/api/v1/watch/namespaces/default/pods/a",
                                params={"fieldSelector": "metadata.name=b"})
    assert (await mismatch.json())["message"] == "fieldSelector metadata.name doesn't match requested name"


async def test_watch_across_namespaces(client: Any, make_pod: Any) -> None:
    await client.post("/api/v1/namespaces", json={"metadata": {"name": "other"}})
    start = client.app[api_key].store.resource_version
    response = await watch(client, "/api/v1/pods", resourceVersion=str(start))
    x = await create(client, make_pod("x"), "other")
    y = await create(client, make_pod("y"))
    assert await events(response, 2) == [("ADDED", "x", rv(x)), ("ADDED", "y", rv(y))]


async def test_watch_from_a_future_version_sends_only_later_events(client: Any, make_pod: Any) -> None:
    future = client.app[api_key].store.resource_version + 2
    response = await watch(client, resourceVersion=str(future))
    for name in "abc":
        last = await create(client, make_pod(name))
    assert await events(response, 1) == [("ADDED", "c", rv(last))]


async def test_watch_with_malformed_version_is_a_reasonless_500(client: Any) -> None:
    response = await client.get(PODS, params={"watch": "1", "resourceVersion": "-1"})
    assert response.status == 500
    assert await response.json() == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": 'resourceVersion: Invalid value: "-1": strconv.ParseUint: parsing "-1": invalid syntax',
        "code": 500}


# ---- bookmarks and WatchList


async def test_bookmarks_carry_only_the_resource_version(aiohttp_client: Any, make_pod: Any) -> None:
    client = await aiohttp_client(create_app(ServerConfig(bookmark_interval=0.05)))
    start = client.app[api_key].store.resource_version
    response = await watch(client, resourceVersion=str(start), allowWatchBookmarks="true")
    a = await create(client, make_pod("a"))
    assert await events(response, 1) == [("ADDED", "a", rv(a))]
    assert await next_event(response) == {"type": "BOOKMARK", "object": {
        "kind": "Pod", "apiVersion": "v1", "metadata": {"resourceVersion": rv(a)}}}


async def test_no_bookmarks_unless_allowed(aiohttp_client: Any, make_pod: Any) -> None:
    client = await aiohttp_client(create_app(ServerConfig(bookmark_interval=0.02)))
    response = await watch(client, resourceVersion=str(client.app[api_key].store.resource_version))
    await create(client, make_pod("a"))
    assert (await next_event(response))["type"] == "ADDED"
    with pytest.raises(asyncio.TimeoutError):
        await next_event(response, timeout=0.2)


async def test_send_initial_events_ends_with_an_annotated_bookmark(client: Any, make_pod: Any) -> None:
    a = await create(client, make_pod("a"))
    b = await create(client, make_pod("b"))
    response = await watch(client, sendInitialEvents="true", resourceVersionMatch="NotOlderThan",
                           allowWatchBookmarks="true", resourceVersion="")
    assert await events(response, 2) == [("ADDED", "a", rv(a)), ("ADDED", "b", rv(b))]
    assert await next_event(response) == {"type": "BOOKMARK", "object": {
        "kind": "Pod", "apiVersion": "v1",
        "metadata": {"resourceVersion": rv(b), "annotations": {"k8s.io/initial-events-end": "true"}}}}
    c = await create(client, make_pod("c"))
    assert await events(response, 1) == [("ADDED", "c", rv(c))]


async def test_send_initial_events_false_starts_from_now(client: Any, make_pod: Any) -> None:
    await create(client, make_pod("a"))
    response = await watch(client, sendInitialEvents="false", resourceVersionMatch="NotOlderThan")
    b = await create(client, make_pod("b"))
    assert await events(response, 1) == [("ADDED", "b", rv(b))]


def _invalid(*causes: tuple[str, str, str]) -> dict[str, Any]:
    texts = [f"{field}: {message}" for field, _reason, message in causes]
    shown = texts[0] if len(texts) == 1 else "[" + ", ".join(texts) + "]"
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": f'ListOptions.meta.k8s.io "" is invalid: {shown}', "reason": "Invalid",
            "details": {"group": "meta.k8s.io", "kind": "ListOptions", "causes": [
                {"reason": reason, "message": message, "field": field} for field, reason, message in causes]},
            "code": 422}


@pytest.mark.parametrize(("params", "causes"), [
    ({"sendInitialEvents": "true"},
     [("resourceVersionMatch", "FieldValueForbidden",
       "Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan")]),
    ({"resourceVersionMatch": "NotOlderThan"},
     [("resourceVersionMatch", "FieldValueForbidden",
       "Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided")]),
    ({"sendInitialEvents": "true", "resourceVersionMatch": "Exact"},
     [("resourceVersionMatch", "FieldValueForbidden",
       "Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"),
      ("resourceVersionMatch", "FieldValueNotSupported",
       'Unsupported value: "Exact": supported values: "NotOlderThan"')]),
])
async def test_invalid_watch_options_are_422(client: Any, params: dict[str, str],
                                             causes: list[tuple[str, str, str]]) -> None:
    response = await client.get(PODS, params={"watch": "true", **params})
    assert response.status == 422
    assert await response.json() == _invalid(*causes)


# ---- Table watches


async def test_table_watch_sends_one_row_tables_with_columns_first(client: Any, make_pod: Any) -> None:
    a = await create(client, make_pod("a"))
    await create(client, make_pod("b"))
    response = await client.get(PODS, params={"watch": "1"}, headers={"Accept": TABLE})
    first, second = await next_event(response), await next_event(response)
    assert first["type"] == "ADDED" and first["object"]["kind"] == "Table"
    assert first["object"]["metadata"] == {"resourceVersion": rv(a)}
    assert [c["name"] for c in first["object"]["columnDefinitions"]][:2] == ["Name", "Ready"]
    assert [row["cells"][0] for row in first["object"]["rows"]] == ["a"]
    assert second["object"]["columnDefinitions"] is None
    assert second["object"]["rows"][0]["object"]["kind"] == "PartialObjectMetadata"


# ---- lifecycle: timeouts, disconnects, slow watchers, shutdown


async def test_timeout_seconds_ends_the_stream_cleanly(client: Any) -> None:
    started = time.monotonic()
    response = await watch(client, timeoutSeconds="1")
    assert await asyncio.wait_for(response.content.read(), 3) == b""
    assert 0.9 <= time.monotonic() - started < 2.5
    assert client.app[watch_hub_key].count() == 0


async def test_a_client_that_goes_away_is_forgotten_at_once(client: Any) -> None:
    hub = client.app[watch_hub_key]
    response = await watch(client)
    assert hub.count() == 1
    response.close()
    for _ in range(100):
        if hub.count() == 0:
            break
        await asyncio.sleep(0.01)
    assert hub.count() == 0


async def test_a_gone_client_is_noticed_without_handler_cancellation(make_pod: Any) -> None:
    app = create_app(ServerConfig(bookmark_interval=0.2))
    runner = web.AppRunner(app, handler_cancellation=False)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    url = f"http://127.0.0.1:{runner.addresses[0][1]}{PODS}?watch=1"
    try:
        async with aiohttp.ClientSession() as session:
            response = await session.get(url)
            assert app[watch_hub_key].count() == 1
            response.close()
        for _ in range(150):
            if app[watch_hub_key].count() == 0:
                break
            await asyncio.sleep(0.01)
        assert app[watch_hub_key].count() == 0
    finally:
        await runner.cleanup()


async def test_a_slow_watcher_is_cut_off_with_410_and_others_go_on(client: Any, make_pod: Any) -> None:
    hub = client.app[watch_hub_key]
    api = client.app[api_key]
    start = api.store.resource_version
    hub.buffer_limit = 3
    slow = await watch(client, resourceVersion=str(start))
    hub.buffer_limit = 1000
    healthy = await watch(client, resourceVersion=str(start))
    pods = api.registry("pods")
    for index in range(10):  # ten writes in one go: the slow watcher's writer never runs in between
        pods.create("default", make_pod(f"p{index}"), WriteOptions())
    assert await next_event(slow) == {"type": "ERROR", "object": {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": f"too old resource version: {start} ({start + 4})", "reason": "Expired", "code": 410}}
    assert await asyncio.wait_for(slow.content.readline(), 2) == b""
    assert [event[1] for event in await events(healthy, 10)] == [f"p{index}" for index in range(10)]
    assert hub.count() == 1


async def test_server_shutdown_ends_every_watch_cleanly() -> None:
    app = create_app()
    runner = web.AppRunner(app, handler_cancellation=True)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    url = f"http://127.0.0.1:{runner.addresses[0][1]}"
    async with aiohttp.ClientSession() as session:
        now = str(app[api_key].store.resource_version)
        streams = [await session.get(url + path, params={"watch": "1", "resourceVersion": now})
                   for path in (PODS, "/api/v1/pods", "/api/v1/namespaces")]
        assert app[watch_hub_key].count() == 3
        started = time.monotonic()
        await runner.cleanup()
        assert time.monotonic() - started < 2
        for stream in streams:
            assert await asyncio.wait_for(stream.content.read(), 2) == b""  # a clean end, not an abort


async def test_a_lagging_reader_gets_every_event_in_order_once_it_reads(client: Any, make_pod: Any) -> None:
    hub = client.app[watch_hub_key]
    pods = client.app[api_key].registry("pods")
    start = client.app[api_key].store.resource_version
    response = await watch(client, resourceVersion=str(start))
    bulky = {"blob": "x" * 200_000}  # ~200 KB events fill the socket buffers after a few dozen
    for index in range(60):
        pods.create("default", make_pod(f"p{index:02}", annotations=bulky), WriteOptions())
        await asyncio.sleep(0)  # let the hub flush between writes while nobody reads
    assert hub.count() == 1
    received = [event[1] for event in await events(response, 60)]
    assert received == [f"p{index:02}" for index in range(60)]
