"""Property: whatever the interleaving of writes, every watcher's stream applied to its starting list gives
the final filtered state, with strictly increasing resourceVersions (over real HTTP, as informers do)."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

from aiohttp.test_utils import TestClient, TestServer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fakeapi.app import create_app
from fakeapi.config import ServerConfig
from fakeapi.http.keys import api_key

NAMESPACES = ("default", "ns1")
NAMES = ("p0", "p1", "p2", "p3")
PHASES = ("Pending", "Running", "Succeeded", "Failed")
# (labelSelector, fieldSelector, namespace of the URL or None for /api/v1/pods)
SELECTORS = (
    ("", "", None),
    ("app=a", "", None),
    ("app!=a", "", "default"),
    ("tier", "status.phase=Running", None),
    ("", "metadata.name=p1", None),
    ("", "status.phase!=Pending", "ns1"),
    ("app in (a,b)", "metadata.namespace=ns1", None),
)
MERGE = {"Content-Type": "application/merge-patch+json"}

labels = st.fixed_dictionaries({}, optional={"app": st.sampled_from(["a", "b"]), "tier": st.just("x")})
target = st.tuples(st.sampled_from(NAMESPACES), st.sampled_from(NAMES))
write = st.one_of(
    st.tuples(st.just("create"), target, labels),
    st.tuples(st.just("relabel"), target, labels),
    st.tuples(st.just("phase"), target, st.sampled_from(PHASES)),
    st.tuples(st.just("delete"), target),
)
watch_start = st.tuples(st.just("watch"), st.integers(0, len(SELECTORS) - 1),
                        st.sampled_from(["list", "past", "initial"]), st.integers(0, 1000))


@st.composite
def interleavings(draw: st.DrawFn) -> list[tuple[Any, ...]]:
    """Writes with one to four watches started at random points among them."""
    ops: list[tuple[Any, ...]] = draw(st.lists(write, min_size=1, max_size=24))
    for start in draw(st.lists(watch_start, min_size=1, max_size=4)):
        ops.insert(draw(st.integers(0, len(ops))), start)
    return ops


@dataclass
class Watch:
    """One watcher: its stream, the state it started from, and what it needs to reach."""

    response: Any
    start_rv: int
    state: dict[tuple[str, str], Any]
    selector: tuple[str, str, str | None]
    initial: bool  # sendInitialEvents: ADDED events first, then a bookmark ending them
    versions: list[int] = field(default_factory=list)


def path(namespace: str | None) -> str:
    return f"/api/v1/namespaces/{namespace}/pods" if namespace else "/api/v1/pods"


def query(selector: tuple[str, str, str | None], **params: str) -> dict[str, str]:
    label, fields, _namespace = selector
    return {"labelSelector": label, "fieldSelector": fields, **params}


def key(obj: Any) -> tuple[str, str]:
    return obj["metadata"]["namespace"], obj["metadata"]["name"]


async def apply(client: TestClient[Any, Any], op: tuple[Any, ...]) -> None:
    kind = op[0]
    if kind == "create":
        (namespace, name), pod_labels = op[1], op[2]
        body = {"metadata": {"name": name, "labels": pod_labels},
                "spec": {"containers": [{"name": "main", "image": "nginx"}]}}
        await client.post(path(namespace), json=body)
    elif kind == "relabel":
        (namespace, name), pod_labels = op[1], op[2]
        patch = {"metadata": {"labels": {"app": pod_labels.get("app"), "tier": pod_labels.get("tier")}}}
        await client.patch(f"{path(namespace)}/{name}", data=json.dumps(patch), headers=MERGE)
    elif kind == "phase":
        (namespace, name), phase = op[1], op[2]
        await client.patch(f"{path(namespace)}/{name}/status", data=json.dumps({"status": {"phase": phase}}),
                           headers=MERGE)
    elif kind == "delete":
        namespace, name = op[1]
        await client.delete(f"{path(namespace)}/{name}", params={"gracePeriodSeconds": "0"})


async def open_watch(client: TestClient[Any, Any], op: tuple[Any, ...], seen_rvs: list[int]) -> Watch:
    _kind, index, mode, pick = op
    selector = SELECTORS[index]
    url = path(selector[2])
    if mode == "initial":
        response = await client.get(url, params=query(selector, watch="1", sendInitialEvents="true",
                                                      resourceVersionMatch="NotOlderThan",
                                                      allowWatchBookmarks="true"))
        start = client.app[api_key].store.resource_version
        return Watch(response, start, {}, selector, initial=True)
    if mode == "past":  # an Exact list at an earlier version, then a watch from it
        listed = await (await client.get(url, params=query(selector, resourceVersion=str(
            seen_rvs[pick % len(seen_rvs)]), resourceVersionMatch="Exact"))).json()
    else:
        listed = await (await client.get(url, params=query(selector))).json()
    start = int(listed["metadata"]["resourceVersion"])
    response = await client.get(url, params=query(selector, watch="1", resourceVersion=str(start),
                                                  allowWatchBookmarks="true"))
    return Watch(response, start, {key(item): item for item in listed["items"]}, selector, initial=False)


async def follow(watch: Watch, final_rv: int) -> None:
    """Apply the stream to the starting state until a bookmark says everything up to final_rv is in."""
    initial_done = not watch.initial
    if initial_done and watch.start_rv >= final_rv:
        return
    while True:
        line = await asyncio.wait_for(watch.response.content.readline(), 5)
        assert line, "the watch ended early"
        event = json.loads(line)
        kind, obj = event["type"], event["object"]
        version = int(obj["metadata"]["resourceVersion"])
        if kind == "BOOKMARK":
            if obj["metadata"].get("annotations") == {"k8s.io/initial-events-end": "true"}:
                assert not initial_done
                initial_done = True
                watch.start_rv = version
            if initial_done and version >= final_rv:
                return
            continue
        assert kind in ("ADDED", "MODIFIED", "DELETED"), event
        if initial_done:  # synthetic ADDED events carry the objects' own versions; changes must grow
            assert version > (watch.versions[-1] if watch.versions else watch.start_rv)
            watch.versions.append(version)
        else:
            assert kind == "ADDED"
        present = key(obj) in watch.state
        assert present == (kind != "ADDED"), (kind, key(obj))
        if kind == "DELETED":
            del watch.state[key(obj)]
        else:
            watch.state[key(obj)] = obj


async def scenario(ops: list[tuple[Any, ...]]) -> None:
    app = create_app(ServerConfig(bookmark_interval=0.02))
    async with TestClient(TestServer(app)) as client:
        await client.post("/api/v1/namespaces", json={"metadata": {"name": "ns1"}})
        seen_rvs = [app[api_key].store.resource_version]
        watches: list[Watch] = []
        for op in ops:
            if op[0] == "watch":
                watches.append(await open_watch(client, op, seen_rvs))
            else:
                await apply(client, op)
            seen_rvs.append(app[api_key].store.resource_version)
        final_rv = app[api_key].store.resource_version
        for watch in watches:
            await follow(watch, final_rv)
            listed = await (await client.get(path(watch.selector[2]), params=query(watch.selector))).json()
            assert listed["metadata"]["resourceVersion"] == str(final_rv)
            assert watch.state == {key(item): item for item in listed["items"]}, watch.selector
            watch.response.close()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(interleavings())
def test_every_watch_stream_rebuilds_the_final_filtered_state(ops: list[tuple[Any, ...]]) -> None:
    asyncio.run(scenario(ops))
