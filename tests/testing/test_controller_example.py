"""The example controller (examples/pod_controller.py) under injected faults, and its request log."""

from __future__ import annotations

import importlib.util
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from fakeapi.testing import FakeAPIServer

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "pod_controller.py"
_spec = importlib.util.spec_from_file_location("pod_controller", EXAMPLE)
assert _spec is not None and _spec.loader is not None
pod_controller = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(pod_controller)


def eventually(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        time.sleep(0.01)


def all_running(server: FakeAPIServer, count: int) -> Callable[[], bool]:
    def check() -> bool:
        pods = server.list("pods")
        return len(pods) == count and all(p["status"]["phase"] == "Running" for p in pods)
    return check


@pytest.fixture
def start_controller(fakeapi: FakeAPIServer) -> Iterator[Callable[[], Any]]:
    """Start the example controller in a thread; it is stopped (and its watch ended) after the test."""
    started: list[tuple[Any, threading.Thread]] = []
    errors: list[BaseException] = []

    def start() -> Any:
        controller = pod_controller.PodStarter(fakeapi.kubernetes_client())

        def run() -> None:
            try:
                controller.run()
            except BaseException as error:  # surfaced by the fixture, not lost in the thread
                errors.append(error)

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        started.append((controller, thread))
        return controller

    yield start
    for controller, thread in started:
        controller.stop()
        fakeapi.close_watches()  # wakes the watch the controller blocks on
        thread.join(5)
        assert not thread.is_alive()
    assert errors == []


def test_the_controller_retries_conflicts_and_converges(fakeapi: FakeAPIServer, make_pod: Any,
                                                        start_controller: Callable[[], Any]) -> None:
    fakeapi.seed([make_pod(f"web-{i}") for i in range(3)])
    conflicts = fakeapi.inject(verb="update", resource="pods", subresource="status", status=409, times=4)
    controller = start_controller()
    eventually(all_running(fakeapi, 3))
    assert conflicts.fired == 4 == controller.conflicts
    assert all(p["status"]["conditions"][0]["type"] == "Ready" for p in fakeapi.list("pods"))


def test_the_controller_resumes_cut_watches_without_relisting(fakeapi: FakeAPIServer, make_pod: Any,
                                                              start_controller: Callable[[], Any]) -> None:
    cuts = fakeapi.inject(verb="watch", resource="pods", cut_watch_after=1, times=3)
    controller = start_controller()
    eventually(lambda: any(r.verb == "watch" for r in fakeapi.requests))
    for i in range(4):
        fakeapi.seed(make_pod(f"web-{i}"))
        eventually(all_running(fakeapi, i + 1))
    assert cuts.fired == 3
    assert controller.lists == 1  # every cut stream was resumed from its last resourceVersion
    assert len([r for r in fakeapi.requests if r.verb == "watch"]) >= 4


def test_the_controller_relists_after_410_and_rides_out_server_errors(
        fakeapi: FakeAPIServer, make_pod: Any, start_controller: Callable[[], Any]) -> None:
    fakeapi.seed(make_pod("early"))
    expired = fakeapi.inject(verb="watch", resource="pods", status=410, times=1)
    unavailable = fakeapi.inject(verb="list", resource="pods", status=503, nth=2)
    controller = start_controller()
    eventually(lambda: controller.lists == 2)
    fakeapi.seed(make_pod("late"))
    eventually(all_running(fakeapi, 2))
    assert (expired.fired, unavailable.fired) == (1, 1)
    assert [r.status for r in fakeapi.requests if r.verb == "list"] == [200, 503, 200]


def test_the_request_log_shows_the_controller_writes_only_status(fakeapi: FakeAPIServer, make_pod: Any,
                                                                 start_controller: Callable[[], Any]) -> None:
    fakeapi.seed(make_pod("web"))
    start_controller()
    eventually(all_running(fakeapi, 1))
    eventually(lambda: any(r.verb == "watch" for r in fakeapi.requests))
    requests = fakeapi.requests
    writes = [r for r in requests if r.method not in ("GET", "HEAD")]
    assert [(r.verb, r.resource, r.subresource, r.name) for r in writes] == [
        ("update", "pods", "status", "web")]
    [update] = writes
    assert update.query["fieldManager"] == "pod-starter"
    assert update.json()["status"]["phase"] == "Running"
    assert update.status == 200 and update.user_agent.startswith("OpenAPI-Generator/")
    first_list, first_watch = requests[0], next(r for r in requests if r.verb == "watch")
    assert first_list.verb == "list"
    # the watch starts at the version of the list (the pod's, its last write), so no change is missed
    assert first_watch.query["resourceVersion"] == update.json()["metadata"]["resourceVersion"]
