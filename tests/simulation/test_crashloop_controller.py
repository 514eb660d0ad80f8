"""A controller under test that replaces crash-looping pods: a tiny one written here, with the official client
and a watch, as a user would write it, against a simulated cluster on a frozen clock the test steps."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from kubernetes import watch

from fakeapi.testing import FakeAPIServer
from tests import builders

NAMESPACE = "default"
WAIT_SECONDS = 10.0  # how long the test waits for the controller to react (it polls)


class Replacer:
    """Pods owned by the ConfigMap `worker` are its generations, `worker-<n>`. A pod whose container is in
    CrashLoopBackOff is deleted and replaced by the next generation, built from the owner's data as it is
    now; the owner counts the restarts."""

    def __init__(self, core: Any) -> None:
        self.core = core
        self.handled: set[str] = set()
        self.stopping = threading.Event()

    def create(self, generation: int) -> None:
        owner = self.core.read_namespaced_config_map("worker", NAMESPACE)
        annotations = {"fakeapi.dev/crash-loop": "true"} if owner.data["crash"] == "true" else {}
        self.core.create_namespaced_pod(NAMESPACE, builders.pod(
            f"worker-{generation}", labels={"app": "worker"}, annotations=annotations,
            metadata={"ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "worker",
                                           "uid": owner.metadata.uid, "controller": True}]}))

    def run(self) -> None:
        events = watch.Watch().stream(self.core.list_namespaced_pod, NAMESPACE, label_selector="app=worker",
                                      timeout_seconds=int(WAIT_SECONDS * 3))
        for event in events:
            if self.stopping.is_set():
                return
            pod = event["object"]
            if event["type"] != "DELETED" and pod.metadata.deletion_timestamp is None and crash_looping(pod):
                self.replace(pod)

    def replace(self, pod: Any) -> None:
        if pod.metadata.uid in self.handled:
            return
        self.handled.add(pod.metadata.uid)
        restarts = int(self.core.read_namespaced_config_map("worker", NAMESPACE).data["restarts"]) + 1
        self.core.delete_namespaced_pod(pod.metadata.name, NAMESPACE)
        self.create(restarts)
        self.core.patch_namespaced_config_map("worker", NAMESPACE, {"data": {"restarts": str(restarts)}})


def crash_looping(pod: Any) -> bool:
    return any(status.state.waiting is not None and status.state.waiting.reason == "CrashLoopBackOff"
               for status in pod.status.container_statuses or [])


def wait_for(check: Callable[[], bool]) -> None:
    """Poll until `check` holds: the controller runs in its own thread (bounded in time and count)."""
    deadline = time.monotonic() + WAIT_SECONDS
    for _ in range(int(WAIT_SECONDS / 0.02)):
        if check() or time.monotonic() > deadline:
            break
        time.sleep(0.02)
    assert check()


@pytest.fixture
def controller(cluster: FakeAPIServer, core: Any) -> Iterator[Replacer]:
    core.create_namespaced_config_map(NAMESPACE, {"metadata": {"name": "worker"},
                                                  "data": {"restarts": "0", "crash": "true"}})
    replacer = Replacer(core)
    replacer.create(0)
    thread = threading.Thread(target=replacer.run, name="replacer", daemon=True)
    thread.start()
    yield replacer
    replacer.stopping.set()
    core.create_namespaced_pod(NAMESPACE, builders.pod("stop", labels={"app": "worker"}))  # an event to see it by
    thread.join(WAIT_SECONDS)
    assert not thread.is_alive()


def restarts(core: Any) -> str:
    return str(core.read_namespaced_config_map("worker", NAMESPACE).data["restarts"])


def pods(core: Any) -> dict[str, tuple[str | None, bool]]:
    """Each pod: its phase, and whether it is being deleted."""
    return {pod.metadata.name: (pod.status.phase, pod.metadata.deletion_timestamp is not None)
            for pod in core.list_namespaced_pod(NAMESPACE, label_selector="app=worker").items}


def test_a_controller_replaces_crash_looping_pods_until_its_owner_is_fixed(cluster: FakeAPIServer, core: Any,
                                                                            controller: Replacer) -> None:
    cluster.clock.advance(2)  # pulled, started, exited, restarted at once
    assert restarts(core) == "0"
    cluster.clock.advance(1)  # exited again: CrashLoopBackOff
    wait_for(lambda: restarts(core) == "1")
    assert pods(core) == {"worker-0": ("Running", True), "worker-1": ("Running", False)}
    core.patch_namespaced_config_map("worker", NAMESPACE, {"data": {"crash": "false"}})  # the fix
    cluster.clock.advance(1)  # worker-0 is stopped and deleted by its kubelet; worker-1 exits
    assert "worker-0" not in pods(core)
    cluster.clock.advance(1)  # worker-1 in CrashLoopBackOff
    wait_for(lambda: restarts(core) == "2")
    cluster.clock.advance(1)
    assert pods(core) == {"worker-2": ("Running", False)}
    cluster.clock.advance(600)
    worker = core.read_namespaced_pod("worker-2", NAMESPACE)
    assert (worker.status.container_statuses[0].restart_count, restarts(core)) == (0, "2")
    assert worker.metadata.owner_references[0].name == "worker"
