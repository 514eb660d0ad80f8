"""GET pods/{name}/log: container choice, options and their validation, follow streams."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

import aiohttp
import pytest

from fakeapi.testing import FakeAPIServer

PODS = "/api/v1/namespaces/default/pods"
LINES = "one\ntwo\nthree\n"


def _containers(*names: str) -> list[dict[str, str]]:
    return [{"name": name, "image": "nginx"} for name in names]


async def _log(http: aiohttp.ClientSession, path: str) -> tuple[int, str]:
    async with http.get(PODS + path) as response:
        return response.status, await response.text()


async def test_a_pod_without_log_text_has_an_empty_log(async_fakeapi: FakeAPIServer,
                                                       http: aiohttp.ClientSession, make_pod: Any) -> None:
    async_fakeapi.seed(make_pod("web"))
    async with http.get(PODS + "/web/log") as response:
        assert (response.status, response.content_type, await response.text()) == (200, "text/plain", "")


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("", LINES),
        ("?container=main", LINES),
        ("?tailLines=2", "two\nthree\n"),
        ("?tailLines=0", ""),
        ("?tailLines=10", LINES),
        ("?limitBytes=6", "one\ntw"),
        ("?tailLines=1&limitBytes=3", "thr"),
    ],
)
async def test_log_options_cut_the_text_as_the_kubelet_does(async_fakeapi: FakeAPIServer,
                                                            http: aiohttp.ClientSession, make_pod: Any,
                                                            query: str, expected: str) -> None:
    async_fakeapi.seed(make_pod("web"))
    async_fakeapi.set_log("default", "web", "main", LINES)
    assert await _log(http, "/web/log" + query) == (200, expected)


async def test_timestamps_and_since_follow_the_server_clock(async_fakeapi: FakeAPIServer,
                                                            http: aiohttp.ClientSession,
                                                            make_pod: Any) -> None:
    async_fakeapi.seed(make_pod("web"))
    async_fakeapi.clock.freeze(datetime(2030, 1, 1, 12, 0, 0, 250000, tzinfo=UTC))
    async_fakeapi.set_log("default", "web", "main", "old\n")
    async_fakeapi.clock.advance(60)
    async_fakeapi.append_log("default", "web", "main", "new\n")
    assert await _log(http, "/web/log?timestamps=true") == (
        200, "2030-01-01T12:00:00.250000000Z old\n2030-01-01T12:01:00.250000000Z new\n")
    assert await _log(http, "/web/log?sinceSeconds=30") == (200, "new\n")
    assert await _log(http, "/web/log?sinceTime=2030-01-01T12:00:30Z") == (200, "new\n")


async def test_multi_container_pods_need_a_container_unless_one_is_the_default(
        async_fakeapi: FakeAPIServer, http: aiohttp.ClientSession, make_pod: Any) -> None:
    async_fakeapi.seed([
        make_pod("multi", containers=_containers("a", "b"), initContainers=_containers("setup")),
        make_pod("pair", containers=_containers("a", "b")),
        make_pod("annotated", containers=_containers("a", "b"),
                 annotations={"kubectl.kubernetes.io/default-container": "b"}),
    ])
    async_fakeapi.set_log("default", "annotated", "b", "from b\n")
    async_fakeapi.set_log("default", "multi", "setup", "init\n")
    async with http.get(PODS + "/multi/log") as response:
        assert response.status == 400
        assert (await response.json())["message"] == (
            "a container name must be specified for pod multi, choose one of: [a b] or one of the init "
            "containers: [setup]")
    async with http.get(PODS + "/pair/log") as response:
        assert (await response.json())["message"] == (
            "a container name must be specified for pod pair, choose one of: [a b]")
    assert await _log(http, "/annotated/log") == (200, "from b\n")
    assert await _log(http, "/multi/log?container=setup") == (200, "init\n")
    async with http.get(PODS + "/pair/log?container=c") as response:
        assert (response.status, (await response.json())["message"]) == (400, "container c is not valid for "
                                                                               "pod pair")


@pytest.mark.parametrize(
    ("query", "status", "message"),
    [
        ("?tailLines=-1", 422, 'PodLogOptions "web" is invalid: tailLines: Invalid value: -1: must be '
                               "greater than or equal to 0"),
        ("?limitBytes=0", 422, 'PodLogOptions "web" is invalid: limitBytes: Invalid value: 0: must be '
                               "greater than 0"),
        ("?sinceSeconds=0", 422, 'PodLogOptions "web" is invalid: sinceSeconds: Invalid value: 0: must be '
                                 "greater than 0"),
        ("?sinceSeconds=5&sinceTime=2030-01-01T00:00:00Z", 422,
         'PodLogOptions "web" is invalid: Forbidden: at most one of `sinceTime` or `sinceSeconds` may be '
         "specified"),
        ("?tailLines=many", 400, 'strconv.ParseInt: parsing "many": invalid syntax'),
        ("?follow=maybe", 400, 'strconv.ParseBool: parsing "maybe": invalid syntax'),
        ("?previous=true", 400, 'previous terminated container "main" in pod "web" not found'),
    ],
)
async def test_bad_log_options_are_refused_as_upstream(async_fakeapi: FakeAPIServer,
                                                       http: aiohttp.ClientSession, make_pod: Any, query: str,
                                                       status: int, message: str) -> None:
    async_fakeapi.seed(make_pod("web"))
    async with http.get(PODS + "/web/log" + query) as response:
        assert response.status == status
        assert (await response.json())["message"] == message


async def test_the_log_of_a_missing_pod_is_not_found(http: aiohttp.ClientSession) -> None:
    async with http.get(PODS + "/nope/log") as response:
        assert (response.status, (await response.json())["message"]) == (404, 'pods "nope" not found')


async def test_follow_streams_appended_text_until_the_pod_is_deleted(async_fakeapi: FakeAPIServer,
                                                                     http: aiohttp.ClientSession,
                                                                     make_pod: Any) -> None:
    async_fakeapi.seed(make_pod("web"))
    async_fakeapi.set_log("default", "web", "main", "first\n")
    async with http.get(PODS + "/web/log?follow=true") as response:
        assert await response.content.readline() == b"first\n"
        async_fakeapi.append_log("default", "web", "main", "second\n")
        assert await asyncio.wait_for(response.content.readline(), 2) == b"second\n"
        async with http.delete(PODS + "/web?gracePeriodSeconds=0"):
            pass
        assert await asyncio.wait_for(response.content.read(), 2) == b""
    assert async_fakeapi.api.pod_logs.text("default", "web", "main") == ""  # a deleted pod loses its logs


async def test_follow_ends_once_limit_bytes_are_sent(async_fakeapi: FakeAPIServer,
                                                     http: aiohttp.ClientSession, make_pod: Any) -> None:
    async_fakeapi.seed(make_pod("web"))
    async with http.get(PODS + "/web/log?follow=true&limitBytes=8") as response:
        async_fakeapi.append_log("default", "web", "main", "abcd")
        async_fakeapi.append_log("default", "web", "main", "efghijkl")
        assert await asyncio.wait_for(response.content.read(), 2) == b"abcdefgh"


def test_the_official_client_reads_logs(fakeapi: FakeAPIServer, make_pod: Any) -> None:
    from kubernetes import client

    fakeapi.seed(make_pod("web"))
    fakeapi.set_log("default", "web", "main", LINES)
    v1 = client.CoreV1Api(fakeapi.kubernetes_client())
    assert v1.read_namespaced_pod_log("web", "default", tail_lines=1) == "three\n"


async def test_previous_reads_the_instance_the_status_names(async_fakeapi: FakeAPIServer,
                                                            http: aiohttp.ClientSession, make_pod: Any) -> None:
    exited = {"exitCode": 1, "reason": "Error", "containerID": "containerd://1"}
    async_fakeapi.seed(make_pod("web", status={"containerStatuses": [{
        "name": "main", "image": "nginx", "imageID": "", "ready": True, "restartCount": 1,
        "containerID": "containerd://2", "state": {"running": {}}, "lastState": {"terminated": exited}}]}))
    async_fakeapi.set_log("default", "web", "main", "before the crash\n", previous=True)
    async_fakeapi.set_log("default", "web", "main", "now\n")
    assert await _log(http, "/web/log?previous=true") == (200, "before the crash\n")
    assert await _log(http, "/web/log") == (200, "now\n")
    async with http.get("/fakeapi/v1/logs/default/web/main?previous=true") as response:
        assert await response.text() == "before the crash\n"
