"""kr8s, sync and `kr8s.asyncio`, against a live server with its defaults: it connects (it asks
`GET /version/` first), then creates, reads, lists with selectors, patches, watches, refreshes, tolerates
and deletes pods, and reads discovery."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Generator, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import kr8s
import kr8s.asyncio
import pytest
from kr8s._async_utils import Portal
from kr8s.asyncio.objects import Pod as AsyncPod
from kr8s.objects import Pod

WAIT = 10  # seconds for a watch event that is already due (kr8s watches have no timeout of their own)


def first(events: Generator[tuple[str, Any]]) -> tuple[str, Any]:
    """The first event of a kr8s watch, waited for at most WAIT seconds; the watch is then closed."""
    with ThreadPoolExecutor(1) as pool:
        try:
            return pool.submit(next, events).result(WAIT)
        finally:
            events.close()


def manifest(name: str, **labels: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": labels or {"app": "web"}},
            "spec": {"containers": [{"name": "main", "image": "nginx:1.27"}]}}


# kr8s keeps its httpx session open for the life of the process: the fixtures close it, or its socket
# would be reported unclosed in a later test
@pytest.fixture
def api(live_server: str) -> Iterator[Any]:
    sync_api = kr8s.api(url=live_server)
    yield sync_api
    if sync_api._session is not None:
        Portal().call(sync_api._session.aclose)  # the loop kr8s runs its sync calls on


@pytest.fixture
async def async_api(live_server: str) -> AsyncIterator[Any]:
    api = await kr8s.asyncio.api(url=live_server)
    yield api
    if api._session is not None:
        await api._session.aclose()


def test_sync_connects_and_reads_the_version_and_discovery(api: Any) -> None:
    assert api.version()["minor"] == "32"
    names = {resource["name"] for resource in api.api_resources()}
    assert {"pods", "namespaces", "events", "bindings", "selfsubjectaccessreviews", "selfsubjectreviews"} <= names
    assert "authorization.k8s.io/v1" in api.api_versions()
    assert api.lookup_kind("pods")[:2] == ("pod/v1", "pods")


def test_sync_pod_lifecycle(api: Any) -> None:
    pod = Pod(manifest("web"), api=api)
    pod.create()
    other = Pod(manifest("db", app="db"), api=api)
    other.create()
    # DefaultTolerationSeconds gave every pod its tolerations, so tolerate() can append to them
    pod.tolerate("dedicated", operator="Equal", value="web", effect="NoSchedule")
    pod.refresh()
    assert [t["key"] for t in pod.spec.tolerations] == [
        "node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable", "dedicated"]

    assert Pod.get("web", namespace="default", api=api).labels == {"app": "web"}
    assert [p.name for p in api.get("pods", namespace="default", label_selector={"app": "web"})] == ["web"]
    assert [p.name for p in api.get("pods", namespace=kr8s.ALL, label_selector="app in (db)")] == ["db"]
    assert [p.name for p in api.get("pods", namespace="default", field_selector="metadata.name=db")] == ["db"]

    pod.patch({"metadata": {"labels": {"tier": "front"}}})
    pod.label({"release": "1"})
    pod.refresh()
    assert pod.labels == {"app": "web", "tier": "front", "release": "1"}
    pod.patch([{"op": "add", "path": "/metadata/annotations", "value": {"note": "json-patch"}}], type="json")
    pod.refresh()
    assert pod.annotations == {"note": "json-patch"}

    version = pod.metadata.resourceVersion
    pod.patch({"metadata": {"labels": {"tier": "back"}}})
    # from the version before the patch (what Pod.watch does from the pod's own): the patch comes next
    events = api.watch("pods", namespace="default", field_selector="metadata.name=web", since=version)
    event, seen = first(events)
    assert (event, seen.labels["tier"]) == ("MODIFIED", "back")
    assert seen.metadata.resourceVersion != version

    pod.delete(grace_period=0)
    assert not pod.exists()
    assert [p.name for p in api.get("pods", namespace="default")] == ["db"]


def test_sync_watch_from_scratch_starts_with_what_exists(api: Any) -> None:
    Pod(manifest("web"), api=api).create()
    event, pod = first(api.watch("pods", namespace="default", label_selector="app=web"))
    assert (event, pod.name) == ("ADDED", "web")


async def test_async_pod_lifecycle(async_api: Any) -> None:
    assert (await async_api.version())["minor"] == "32"
    pod = await AsyncPod(manifest("web"), api=async_api)
    await pod.create()
    await (await AsyncPod(manifest("db", app="db"), api=async_api)).create()
    await pod.tolerate("dedicated", operator="Exists", effect="NoSchedule")

    fetched = await AsyncPod.get("web", namespace="default", api=async_api)
    assert fetched.spec.tolerations[-1]["key"] == "dedicated"
    listed = [p.name async for p in async_api.async_get("pods", namespace="default", label_selector={"app": "db"})]
    assert listed == ["db"]
    by_field = [p.name async for p in async_api.async_get("pods", namespace=kr8s.ALL,
                                                          field_selector={"metadata.name": "web"})]
    assert by_field == ["web"]

    await pod.patch({"metadata": {"labels": {"tier": "front"}}})
    await pod.refresh()
    assert pod.labels == {"app": "web", "tier": "front"}
    watch = async_api.async_watch("pods", namespace="default", label_selector="app=web")
    event, seen = await asyncio.wait_for(anext(watch), WAIT)
    await watch.aclose()
    assert (event, seen.name, seen.labels["tier"]) == ("ADDED", "web", "front")

    await pod.delete(grace_period=0)
    assert not await pod.exists()
