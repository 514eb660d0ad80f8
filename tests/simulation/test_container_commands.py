"""Containers that run their own command in the built-in shell, on a frozen clock: what it prints is the
container's log, its exit the container's (written terminated before the restart), a sleep waits on the
server clock; a stdinOnce container's command waits for its first attach; ConfigMaps and Secrets a pod needs
hold it back until they exist; a stopped kubelet cannot be reached."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
import websocket
from kubernetes import client as k8s
from kubernetes import watch

from fakeapi.testing import FakeAPIServer
from tests import builders
from tests.simulation.conftest import events_of


def command_pod(name: str, script: str, **overrides: Any) -> dict[str, Any]:
    made = builders.pod(name, image="busybox:1.36", **overrides)
    made["spec"]["containers"][0]["command"] = ["sh", "-c", script]
    return made


def log(core: Any, name: str, **options: Any) -> str:
    return str(core.read_namespaced_pod_log(name, "default", **options))


def web(core: Any, name: str) -> Any:
    return core.read_namespaced_pod(name, "default").status.container_statuses[0]


def test_a_command_logs_its_output_and_exits_with_its_code(cluster: FakeAPIServer, core: Any) -> None:
    core.create_namespaced_pod("default", command_pod("job", "echo start; sleep 30; echo done >&2; exit 2",
                                                      restartPolicy="Never"))
    cluster.clock.advance(1)  # pulled and started: the command runs until its sleep
    assert (log(core, "job"), web(core, "job").state.running is not None) == ("start\n", True)
    cluster.clock.advance(29)
    assert web(core, "job").state.running is not None
    cluster.clock.advance(1)
    terminated = web(core, "job").state.terminated
    assert (terminated.exit_code, terminated.reason, log(core, "job")) == (2, "Error", "start\ndone\n")
    assert core.read_namespaced_pod("job", "default").status.phase == "Failed"


def test_an_exit_is_written_terminated_before_the_restart(cluster: FakeAPIServer, core: Any) -> None:
    since = core.list_namespaced_pod("default").metadata.resource_version
    core.create_namespaced_pod("default", command_pod("crash", "sleep 1; exit 1"))
    cluster.clock.advance(3)  # pulled (1 s), ran a second, restarted at once, ran another
    seen: list[str] = []
    for event in watch.Watch().stream(core.list_namespaced_pod, "default", field_selector="metadata.name=crash",
                                      resource_version=since, timeout_seconds=1):
        statuses = event["object"].status.container_statuses or []
        for kind in ("running", "terminated", "waiting"):
            found = getattr(statuses[0].state, kind) if statuses else None
            if found is not None:
                seen.append(f"{kind}:{getattr(found, 'reason', '') or ''}")
    changes = [state for index, state in enumerate(seen) if index == 0 or seen[index - 1] != state]
    assert changes == ["waiting:ContainerCreating", "running:", "terminated:Error", "running:", "terminated:Error",
                       "waiting:CrashLoopBackOff"]


def test_unknown_commands_run_until_stopped_and_init_containers_run_theirs(cluster: FakeAPIServer,
                                                                          core: Any) -> None:
    made = command_pod("server", "echo setting up; exec nginx -g 'daemon off;'")
    made["spec"]["initContainers"] = [{"name": "migrate", "image": "busybox:1.36",
                                       "command": ["sh", "-c", "echo migrated"]}]
    core.create_namespaced_pod("default", made)
    cluster.clock.advance(5)
    pod = core.read_namespaced_pod("server", "default")
    assert pod.status.init_container_statuses[0].state.terminated.reason == "Completed"
    assert log(core, "server", container="migrate") == "migrated\n"
    assert (pod.status.phase, log(core, "server", container="web")) == ("Running", "setting up\n")
    cluster.clock.advance(3600)
    assert web(core, "server").state.running is not None


def test_a_stdin_once_container_starts_its_command_at_its_first_attach(cluster: FakeAPIServer, core: Any) -> None:
    made = command_pod("it", "echo hi; read answer; echo got $answer")
    made["spec"]["containers"][0].update(stdin=True, stdinOnce=True)
    core.create_namespaced_pod("default", made)
    cluster.clock.advance(2)
    assert (web(core, "it").ready, log(core, "it")) == (True, "")
    url = cluster.url.replace("http", "ws") + "/api/v1/namespaces/default/pods/it/attach?stdin=1&stdout=1&stderr=1"
    attached = websocket.create_connection(url, subprotocols=["v5.channel.k8s.io"], timeout=10)
    try:
        assert attached.recv() == b"\x01"  # connected
        assert attached.recv() == b"\x01hi\n"
        attached.send_binary(b"\x00yes\n")
        assert attached.recv() == b"\x01got yes\n"
        assert json.loads(attached.recv()[1:]) == {"metadata": {}, "status": "Success"}  # the container exited
    finally:
        attached.close()
    assert web(core, "it").last_state.terminated.exit_code == 0


def test_missing_references_hold_a_pod_back_until_they_exist(cluster: FakeAPIServer, core: Any) -> None:
    env = builders.pod("env")
    env["spec"]["containers"][0]["env"] = [{"name": "MODE",
                                            "valueFrom": {"secretKeyRef": {"name": "db", "key": "mode"}}}]
    volume = builders.pod("volume", volumes=[{"name": "config", "configMap": {"name": "app"}}])
    volume["spec"]["containers"][0]["volumeMounts"] = [{"name": "config", "mountPath": "/etc/config"}]
    core.create_namespaced_pod("default", env)
    core.create_namespaced_pod("default", volume)
    cluster.clock.advance(1)
    held = web(core, "env").state.waiting
    assert (held.reason, held.message) == ("CreateContainerConfigError", 'secret "db" not found')
    assert ("Warning", "Failed", 'Error: secret "db" not found') in events_of(core, "env")
    pod = core.read_namespaced_pod("volume", "default")
    assert (pod.status.phase, pod.status.pod_ip, web(core, "volume").state.waiting.reason) == (
        "Pending", None, "ContainerCreating")
    cluster.clock.advance(130)  # the volume manager tries again and again; the pod worker gives up once
    mount_events = [event for event in events_of(core, "volume") if event[1] == "FailedMount"]
    assert mount_events[0] == ("Warning", "FailedMount",
                               'MountVolume.SetUp failed for volume "config" : configmap "app" not found')
    assert ("Warning", "FailedMount", "Unable to attach or mount volumes: unmounted volumes=[config], unattached "
            "volumes=[], failed to process volumes=[]: context deadline exceeded") in mount_events
    core.create_namespaced_config_map("default", {"metadata": {"name": "app"}, "data": {"mode": "fast"}})
    core.create_namespaced_secret("default", {"metadata": {"name": "db"}, "stringData": {"mode": "safe"}})
    cluster.clock.advance(1)
    assert web(core, "env").ready and web(core, "volume").ready
    assert core.read_namespaced_pod("volume", "default").status.pod_ip


def test_a_followed_log_of_a_deleted_pod_gets_its_last_lines(cluster: FakeAPIServer, core: Any) -> None:
    core.create_namespaced_pod("default", builders.pod("going"))
    cluster.clock.advance(2)
    stream = core.read_namespaced_pod_log("going", "default", follow=True, _preload_content=False)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.extend(stream.stream(16)), daemon=True)
    reader.start()
    core.delete_namespaced_pod("going", "default")
    cluster.clock.advance(2)  # stopped, then deleted by its kubelet
    reader.join(10)
    assert not reader.is_alive()
    assert b"".join(received).decode().endswith('fakeapi: container "web" exited with code 0\n')


def test_a_stopped_kubelet_cannot_be_reached(cluster: FakeAPIServer, core: Any) -> None:
    core.create_namespaced_pod("default", builders.pod("web"))
    cluster.clock.advance(2)
    cluster.node("node-1").fail()
    url = cluster.url.replace("http", "ws") + "/api/v1/namespaces/default/pods/web/exec?command=true&stdout=1"
    with pytest.raises(websocket.WebSocketBadStatusException) as refused:
        websocket.create_connection(url, subprotocols=["v4.channel.k8s.io"], timeout=10)
    assert refused.value.status_code == 500
    assert refused.value.resp_body == b"error dialing backend: dial tcp 172.18.0.2:10250: connect: connection refused"
    cluster.node("node-1").recover()
    core_ok = k8s.CoreV1Api(cluster.kubernetes_client())
    assert core_ok.read_namespaced_pod("web", "default").status.phase == "Running"
