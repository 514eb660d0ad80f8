"""The logs of simulated containers: each instance's start line (unless the pod gives its lines), exit line
and the lines the pod asks for,
the previous instance after a restart, timestamps on the server clock, follow streams that end with the
instance, and the kubelet's answers for containers with no log yet."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
from kubernetes import client as k8s

from fakeapi.testing import FakeAPIServer
from tests import builders

LINES = {"fakeapi.dev/log-lines": "connecting to db\ndb is gone", "fakeapi.dev/exit-after": "2s",
         "fakeapi.dev/exit-code": "1"}


def log(core: Any, name: str, **options: Any) -> str:
    return str(core.read_namespaced_pod_log(name, "default", **options))


def refusal(core: Any, name: str, **options: Any) -> tuple[int, str]:
    with pytest.raises(k8s.ApiException) as caught:
        log(core, name, **options)
    return caught.value.status, json.loads(caught.value.body)["message"]


def test_each_instance_logs_the_lines_the_pod_asks_for_and_its_exit(cluster: FakeAPIServer, core: Any) -> None:
    core.create_namespaced_pod("default", builders.pod("app", annotations=LINES))
    cluster.clock.advance(1)
    assert log(core, "app") == "connecting to db\ndb is gone\n"
    assert refusal(core, "app", previous=True) == (400, 'previous terminated container "web" in pod "app" not found')
    cluster.clock.advance(2)  # exited 1, restarted at once
    first = "connecting to db\ndb is gone\n" + 'fakeapi: container "web" exited with code 1\n'
    assert log(core, "app", previous=True) == first
    assert log(core, "app") == "connecting to db\ndb is gone\n"
    cluster.clock.advance(2)  # exited again: CrashLoopBackOff, and the log is the instance that exited
    assert log(core, "app") == first
    assert log(core, "app", previous=True) == first
    assert log(core, "app", timestamps=True, tail_lines=2) == (
        "2030-06-01T12:00:03.000000000Z db is gone\n"
        '2030-06-01T12:00:05.000000000Z fakeapi: container "web" exited with code 1\n')


def test_a_container_with_no_log_yet_is_waiting_to_start(cluster: FakeAPIServer, core: Any) -> None:
    core.create_namespaced_pod("default", builders.pod("pulling"))
    core.create_namespaced_pod("default", builders.pod("missing", annotations={"fakeapi.dev/image-pull": "fail"}))
    assert refusal(core, "pulling") == (400, 'container "web" in pod "pulling" is waiting to start: ContainerCreating')
    cluster.clock.advance(1)
    assert refusal(core, "missing") == (400, 'container "web" in pod "missing" is waiting to start: image can\'t be '
                                             "pulled")
    cluster.clock.advance(1)
    assert refusal(core, "missing")[1].endswith("is waiting to start: trying and failing to pull image")


def test_following_a_log_ends_when_the_instance_exits(cluster: FakeAPIServer, core: Any) -> None:
    core.create_namespaced_pod("default", builders.pod("job", restartPolicy="Never", annotations=LINES))
    cluster.clock.advance(1)
    stream = core.read_namespaced_pod_log("job", "default", follow=True, _preload_content=False)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.extend(stream.stream(16)), daemon=True)
    reader.start()
    cluster.clock.advance(2)
    reader.join(10)
    assert not reader.is_alive()  # the stream ended by itself
    assert b"".join(received).decode() == "connecting to db\ndb is gone\n" + (
        'fakeapi: container "web" exited with code 1\n')


def test_a_tests_log_text_goes_to_the_current_or_previous_instance(cluster: FakeAPIServer, core: Any) -> None:
    core.create_namespaced_pod("default", builders.pod("app", annotations={"fakeapi.dev/crash-loop": "true"}))
    cluster.clock.advance(2)  # restarted once
    cluster.append_log("default", "app", "web", "from the test\n")
    cluster.set_log("default", "app", "web", "replaced\n", previous=True)
    assert log(core, "app").endswith("from the test\n")
    assert log(core, "app", previous=True) == "replaced\n"
