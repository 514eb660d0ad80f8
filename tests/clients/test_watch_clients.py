"""Real clients against a live server: the official client's list-then-watch, its resume after a dropped
connection and its 410 handling, and kubernetes_asyncio's watch."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from kubernetes import client as k8s
from kubernetes import watch as k8s_watch
from kubernetes.client.rest import ApiException

from fakeapi.app import create_app
from fakeapi.config import ServerConfig
from fakeapi.http.keys import watch_hub_key

TIMEOUT = (5, 5)  # connect and read timeouts for every client request, so no test can hang


@pytest.fixture
def core_api() -> Iterator[Callable[[str], Any]]:
    """`core_api(url)`: a CoreV1Api on the official client; its connections are closed after the test."""
    api_clients: list[Any] = []

    def make(url: str) -> Any:
        configuration = k8s.Configuration()
        configuration.host = url
        api_clients.append(k8s.ApiClient(configuration))
        return k8s.CoreV1Api(api_clients[-1])

    yield make
    for api_client in api_clients:
        api_client.close()


def pod(name: str, **labels: str) -> Any:
    return k8s.V1Pod(metadata=k8s.V1ObjectMeta(name=name, labels=labels or None),
                     spec=k8s.V1PodSpec(containers=[k8s.V1Container(name="main", image="nginx:1.27")]))


def summary(event: dict[str, Any]) -> tuple[str, str]:
    return event["type"], event["object"].metadata.name


def take(stream: Iterator[dict[str, Any]], count: int) -> list[dict[str, Any]]:
    return [next(stream) for _ in range(count)]


def test_list_then_watch_from_the_list_version(live_server: str, core_api: Any) -> None:
    v1 = core_api(live_server)
    v1.create_namespaced_pod("default", pod("a", app="web"))
    listed = v1.list_namespaced_pod("default", _request_timeout=TIMEOUT)
    assert [p.metadata.name for p in listed.items] == ["a"]
    # changes between the list and the watch must not be lost
    v1.create_namespaced_pod("default", pod("b", app="web"))
    v1.patch_namespaced_pod("a", "default", {"metadata": {"labels": {"tier": "front"}}})
    watcher = k8s_watch.Watch()
    stream = watcher.stream(v1.list_namespaced_pod, "default",
                            resource_version=listed.metadata.resource_version, timeout_seconds=5,
                            _request_timeout=TIMEOUT)
    replayed = take(stream, 2)
    assert [summary(e) for e in replayed] == [("ADDED", "b"), ("MODIFIED", "a")]
    assert isinstance(replayed[0]["object"], k8s.V1Pod)
    assert replayed[1]["object"].metadata.labels == {"app": "web", "tier": "front"}
    v1.delete_namespaced_pod("b", "default", grace_period_seconds=0)
    assert [summary(e) for e in take(stream, 2)] == [("MODIFIED", "b"), ("DELETED", "b")]
    watcher.stop()
    stream.close()
    versions = [int(e["object"].metadata.resource_version) for e in replayed]
    assert versions == sorted(versions) and versions[0] > int(listed.metadata.resource_version)


def test_watch_resumes_after_a_dropped_connection(live_server_factory: Any, core_api: Any) -> None:
    server = live_server_factory()
    v1 = core_api(server.url)
    listed = v1.list_namespaced_pod("default", _request_timeout=TIMEOUT)
    watcher = k8s_watch.Watch()
    # no timeout_seconds: the official client re-watches from the last version it saw
    stream = watcher.stream(v1.list_namespaced_pod, "default",
                            resource_version=listed.metadata.resource_version, _request_timeout=TIMEOUT)
    v1.create_namespaced_pod("default", pod("a"))
    assert summary(next(stream)) == ("ADDED", "a")
    assert server.call(server.app[watch_hub_key].end_all) == 1  # the server drops the watch
    v1.create_namespaced_pod("default", pod("b"))
    v1.patch_namespaced_pod("a", "default", {"metadata": {"labels": {"x": "y"}}})
    # resumed from a's version: b and a's change, no second ADDED a
    assert [summary(e) for e in take(stream, 2)] == [("ADDED", "b"), ("MODIFIED", "a")]
    watcher.stop()
    stream.close()


def test_expired_version_raises_410_and_a_relist_recovers(live_server_factory: Any, core_api: Any) -> None:
    server = live_server_factory(create_app(ServerConfig(watch_history=3)))
    v1 = core_api(server.url)
    old = v1.list_namespaced_pod("default", _request_timeout=TIMEOUT).metadata.resource_version
    for name in "abcde":
        v1.create_namespaced_pod("default", pod(name))
    watcher = k8s_watch.Watch()
    # without timeout_seconds the client retries a 410 once, then raises it
    expired = watcher.stream(v1.list_namespaced_pod, "default", resource_version=old,
                             _request_timeout=TIMEOUT)
    with pytest.raises(ApiException) as raised:
        next(expired)
    assert raised.value.status == 410
    assert raised.value.reason.startswith(f"Expired: too old resource version: {old} (")
    # the informer's answer: list again, watch from the new list's version
    relisted = v1.list_namespaced_pod("default", _request_timeout=TIMEOUT)
    assert [p.metadata.name for p in relisted.items] == list("abcde")
    stream = watcher.stream(v1.list_namespaced_pod, "default",
                            resource_version=relisted.metadata.resource_version, timeout_seconds=5,
                            _request_timeout=TIMEOUT)
    v1.create_namespaced_pod("default", pod("f"))
    assert summary(next(stream)) == ("ADDED", "f")
    watcher.stop()
    stream.close()


def test_watch_with_timeout_seconds_ends_quietly(live_server: str, core_api: Any) -> None:
    v1 = core_api(live_server)
    v1.create_namespaced_pod("default", pod("a"))
    events = list(k8s_watch.Watch().stream(v1.list_namespaced_pod, "default", timeout_seconds=1,
                                           _request_timeout=TIMEOUT))
    assert [summary(e) for e in events] == [("ADDED", "a")]


def test_watch_bookmarks_reach_the_official_client(live_server_factory: Any, core_api: Any) -> None:
    server = live_server_factory(create_app(ServerConfig(bookmark_interval=0.05)))
    v1 = core_api(server.url)
    v1.create_namespaced_pod("default", pod("a"))
    watcher = k8s_watch.Watch()
    stream = watcher.stream(v1.list_namespaced_pod, "default", allow_watch_bookmarks=True, timeout_seconds=5,
                            _request_timeout=TIMEOUT)
    assert summary(next(stream)) == ("ADDED", "a")
    # bookmarks come once something changed since the watch began, as upstream's cache sends them
    v1.create_namespaced_pod("default", pod("b"))
    added, bookmark = take(stream, 2)
    assert summary(added) == ("ADDED", "b")
    assert bookmark["type"] == "BOOKMARK"
    version = added["object"].metadata.resource_version
    assert bookmark["raw_object"] == {"kind": "Pod", "apiVersion": "v1",
                                      "metadata": {"resourceVersion": version}}
    assert watcher.resource_version == version
    watcher.stop()
    stream.close()


async def test_kubernetes_asyncio_list_then_watch(live_server: str) -> None:
    from kubernetes_asyncio import client as aclient
    from kubernetes_asyncio import watch as awatch

    configuration = aclient.Configuration()
    configuration.host = live_server
    async with aclient.ApiClient(configuration) as api:
        v1 = aclient.CoreV1Api(api)
        await v1.create_namespaced_pod("default", {"metadata": {"name": "a", "labels": {"app": "web"}},
                                                   "spec": {"containers": [{"name": "m", "image": "nginx"}]}})
        listed = await v1.list_namespaced_pod("default", label_selector="app=web")
        await v1.create_namespaced_pod("default", {"metadata": {"name": "b", "labels": {"app": "web"}},
                                                   "spec": {"containers": [{"name": "m", "image": "nginx"}]}})
        await v1.create_namespaced_pod("default", {"metadata": {"name": "c"},
                                                   "spec": {"containers": [{"name": "m", "image": "nginx"}]}})
        seen = []
        watcher = awatch.Watch()
        async with watcher.stream(v1.list_namespaced_pod, "default", label_selector="app=web",
                                  resource_version=listed.metadata.resource_version,
                                  timeout_seconds=5) as stream:
            async for event in stream:
                seen.append((event["type"], event["object"].metadata.name))
                if len(seen) == 2:
                    watcher.stop()
                    break
                await v1.patch_namespaced_pod("a", "default", {"metadata": {"labels": {"app": "db"}}})
        assert seen == [("ADDED", "b"), ("DELETED", "a")]
