"""Containers that exit, crash-loop, fail their image pull or run out of memory, as the pod's `fakeapi.dev/`
annotations ask; restartPolicy decides restarts and the final phase. Through the official client, on a
frozen clock stepped by the test (the image is pulled in the first second, then the container starts)."""

from __future__ import annotations

from typing import Any

from fakeapi.simulation.images import image_size
from fakeapi.testing import FakeAPIServer
from tests import builders
from tests.simulation.conftest import START, events_of


def read(core: Any, name: str) -> Any:
    return core.read_namespaced_pod(name, "default")


def state(pod: Any, index: int = 0) -> tuple[str, str | None, int]:
    """(state, its reason, restartCount) of a container."""
    status = pod.status.container_statuses[index]
    for kind in ("running", "waiting", "terminated"):
        found = getattr(status.state, kind)
        if found is not None:
            return kind, getattr(found, "reason", None), status.restart_count
    raise AssertionError(status)


def conditions(pod: Any) -> dict[str, tuple[str, str | None]]:
    return {c.type: (c.status, c.reason) for c in pod.status.conditions}


def test_a_crash_looping_container_restarts_with_upstreams_back_off(cluster: FakeAPIServer, core: Any) -> None:
    core.create_namespaced_pod("default", builders.pod("crash", annotations={"fakeapi.dev/crash-loop": "true"}))
    cluster.clock.advance(1)  # pulled, started
    assert state(read(core, "crash")) == ("running", None, 0)
    cluster.clock.advance(1)  # exits 1: the first exit is restarted at once
    pod = read(core, "crash")
    assert state(pod) == ("running", None, 1)
    first = pod.status.container_statuses[0].last_state.terminated
    assert (first.exit_code, first.reason, first.started_at.second, first.finished_at.second) == (1, "Error", 1, 2)
    cluster.clock.advance(1)  # exits again: back-off 10 s
    pod = read(core, "crash")
    web = pod.status.container_statuses[0]
    uid = pod.metadata.uid
    assert state(pod) == ("waiting", "CrashLoopBackOff", 1)
    assert web.state.waiting.message == f"back-off 10s restarting failed container=web pod=crash_default({uid})"
    assert (web.last_state.terminated.exit_code, web.last_state.terminated.container_id) == (1, web.container_id)
    assert (pod.status.phase, web.ready, web.started) == ("Running", False, False)
    assert conditions(pod)["Ready"] == ("False", "ContainersNotReady")
    assert ("Warning", "BackOff", f"Back-off restarting failed container web in pod crash_default({uid})") in \
        events_of(core, "crash")
    cluster.clock.advance(9)
    assert state(read(core, "crash")) == ("waiting", "CrashLoopBackOff", 1)
    cluster.clock.advance(1)  # the back-off has passed: the third instance
    assert state(read(core, "crash")) == ("running", None, 2)
    cluster.clock.advance(1)
    assert read(core, "crash").status.container_statuses[0].state.waiting.message.startswith("back-off 20s ")
    cluster.clock.advance(20 + 1 + 40 + 1 + 80 + 1 + 160 + 1)  # 40s, 1m20s, 2m40s, then the cap
    assert read(core, "crash").status.container_statuses[0].state.waiting.message.startswith("back-off 5m0s ")
    back_offs = [event for event in core.list_namespaced_event("default").items if event.reason == "BackOff"]
    assert [event.count for event in back_offs] == [6]


def test_a_container_that_ran_ten_minutes_is_restarted_at_once(cluster: FakeAPIServer, core: Any) -> None:
    core.create_namespaced_pod("default", builders.pod("slow", annotations={"fakeapi.dev/exit-after": "11m"}))
    cluster.clock.advance(1 + 660)  # ran 11 min, exited 0: restarted at once (restartPolicy Always)
    pod = read(core, "slow")
    assert state(pod) == ("running", None, 1)
    assert pod.status.container_statuses[0].last_state.terminated.reason == "Completed"
    cluster.clock.advance(660)  # 10 min after the last back-off update: the back-off starts over
    assert state(read(core, "slow")) == ("running", None, 2)


def test_a_job_like_pod_that_exits_0_succeeds(cluster: FakeAPIServer, core: Any) -> None:
    core.create_namespaced_pod("default", builders.pod("job", restartPolicy="Never",
                                                       annotations={"fakeapi.dev/exit-after": "5s"}))
    cluster.clock.advance(1)
    assert read(core, "job").status.phase == "Running"
    cluster.clock.advance(5)
    pod = read(core, "job")
    ended = pod.status.container_statuses[0].state.terminated
    assert (pod.status.phase, ended.exit_code, ended.reason, ended.finished_at) == (
        "Succeeded", 0, "Completed", START.replace(second=6))
    assert conditions(pod) == {"PodReadyToStartContainers": ("False", None), "Initialized": ("True", "PodCompleted"),
                               "Ready": ("False", "PodCompleted"), "ContainersReady": ("False", "PodCompleted"),
                               "PodScheduled": ("True", None)}
    assert pod.metadata.deletion_timestamp is None and pod.status.pod_ip == "10.244.0.2"  # the pod stays
    cluster.clock.advance(600)
    assert read(core, "job").status.container_statuses[0].restart_count == 0
    core.create_namespaced_pod("default", builders.pod("next"))
    assert read(core, "next").status.pod_ip == "10.244.0.2"  # the finished pod's address is free again


def test_restart_policy_decides_what_a_failed_container_becomes(cluster: FakeAPIServer, core: Any) -> None:
    failing = {"fakeapi.dev/exit-after": "2s", "fakeapi.dev/exit-code": "3"}
    core.create_namespaced_pod("default", builders.pod("never", restartPolicy="Never", annotations=failing))
    core.create_namespaced_pod("default", builders.pod("on-failure", restartPolicy="OnFailure", annotations=failing))
    core.create_namespaced_pod("default", builders.pod("done", restartPolicy="OnFailure",
                                                       annotations={"fakeapi.dev/exit-after": "2s"}))
    cluster.clock.advance(3)
    never = read(core, "never")
    assert (never.status.phase, state(never)) == ("Failed", ("terminated", "Error", 0))
    assert conditions(never)["Ready"] == ("False", "PodFailed")
    on_failure = read(core, "on-failure")
    assert (on_failure.status.phase, state(on_failure)) == ("Running", ("running", None, 1))
    done = read(core, "done")
    assert (done.status.phase, state(done)) == ("Succeeded", ("terminated", "Completed", 0))


def test_an_oom_killed_container(cluster: FakeAPIServer, core: Any) -> None:
    core.create_namespaced_pod("default", builders.pod("hungry", annotations={"fakeapi.dev/oom-after": "10s"}))
    cluster.clock.advance(11)
    web = read(core, "hungry").status.container_statuses[0]
    killed = web.last_state.terminated
    assert (killed.exit_code, killed.reason, web.restart_count) == (137, "OOMKilled", 1)
    assert core.read_namespaced_pod_log("hungry", "default", previous=True).splitlines()[-1] == (
        'fakeapi: container "web" exited with code 137 (OOMKilled)')


def test_an_image_that_cannot_be_pulled(cluster: FakeAPIServer, core: Any) -> None:
    core.create_namespaced_pod("default", builders.pod("missing", image="example.com/nope:1",
                                                       annotations={"fakeapi.dev/image-pull": "fail"}))
    cluster.clock.advance(1)
    pod = read(core, "missing")
    error = ('rpc error: code = NotFound desc = failed to pull and unpack image "example.com/nope:1": failed to '
             'resolve reference "example.com/nope:1": example.com/nope:1: not found')
    waiting = pod.status.container_statuses[0].state.waiting
    assert (pod.status.phase, waiting.reason, waiting.message) == ("Pending", "ErrImagePull", error)
    cluster.clock.advance(1)  # the next sync finds the image in back-off
    waiting = read(core, "missing").status.container_statuses[0].state.waiting
    assert (waiting.reason, waiting.message) == ("ImagePullBackOff", 'Back-off pulling image "example.com/nope:1"')
    assert events_of(core, "missing")[1:] == [
        ("Normal", "Pulling", 'Pulling image "example.com/nope:1"'),
        ("Warning", "Failed", f'Failed to pull image "example.com/nope:1": {error}'),
        ("Warning", "Failed", "Error: ErrImagePull"),
        ("Normal", "BackOff", 'Back-off pulling image "example.com/nope:1"'),
        ("Warning", "Failed", "Error: ImagePullBackOff")]
    cluster.clock.advance(9)  # 10 s after the failure: pulled again (waiting as it was meanwhile)
    assert read(core, "missing").status.container_statuses[0].state.waiting.reason == "ImagePullBackOff"
    assert pulls(core) == 2
    cluster.clock.advance(1)  # failed again: the back-off is 20 s
    assert read(core, "missing").status.container_statuses[0].state.waiting.reason == "ErrImagePull"
    cluster.clock.advance(19)
    assert pulls(core) == 2
    cluster.clock.advance(1)
    assert pulls(core) == 3


def pulls(core: Any) -> int:
    return sum(event.count for event in core.list_namespaced_event("default").items if event.reason == "Pulling")


def test_an_image_pull_that_never_ends_or_takes_its_time(cluster: FakeAPIServer, core: Any) -> None:
    core.create_namespaced_pod("default", builders.pod("stuck", image="example.com/stuck:1",
                                                       annotations={"fakeapi.dev/image-pull": "never"}))
    core.create_namespaced_pod("default", builders.pod("slow", image="example.com/slow:1",
                                                       annotations={"fakeapi.dev/image-pull": "30s"}))
    cluster.clock.advance(29)
    assert state(read(core, "stuck")) == state(read(core, "slow")) == ("waiting", "ContainerCreating", 0)
    cluster.clock.advance(1)
    assert state(read(core, "slow")) == ("running", None, 0)
    assert ("Normal", "Pulled", 'Successfully pulled image "example.com/slow:1" in 30s (30s including waiting). '
                                f"Image size: {image_size('example.com/slow:1')} bytes.") in events_of(core, "slow")
    cluster.clock.advance(3600)
    assert state(read(core, "stuck")) == ("waiting", "ContainerCreating", 0)


def test_init_containers_that_fail(cluster: FakeAPIServer, core: Any) -> None:
    init = [{"name": "migrate", "image": "nginx:1.27"}]
    failing = {"fakeapi.dev/exit-code.migrate": "1"}
    core.create_namespaced_pod("default", builders.pod("once", restartPolicy="Never", initContainers=init,
                                                       annotations=failing))
    core.create_namespaced_pod("default", builders.pod("again", initContainers=init, annotations=failing))
    cluster.clock.advance(2)  # pulled, ran a second, exited 1
    once = read(core, "once")
    ended = once.status.init_container_statuses[0].state.terminated
    assert (once.status.phase, ended.exit_code, ended.reason) == ("Failed", 1, "Error")
    assert once.status.container_statuses[0].state.waiting.reason == "PodInitializing"
    again = read(core, "again")
    assert again.status.phase == "Pending"
    assert again.status.init_container_statuses[0].restart_count == 1  # restarted at once, running
    cluster.clock.advance(1)
    waiting = read(core, "again").status.init_container_statuses[0].state.waiting
    assert waiting.reason == "CrashLoopBackOff"


def test_a_job_with_a_sidecar_completes_and_its_sidecar_is_stopped(cluster: FakeAPIServer, core: Any) -> None:
    sidecar = [{"name": "proxy", "image": "nginx:1.27", "restartPolicy": "Always"}]
    core.create_namespaced_pod("default", builders.pod("job", restartPolicy="Never", initContainers=sidecar,
                                                       annotations={"fakeapi.dev/exit-after": "5s"}))
    cluster.clock.advance(1)
    assert read(core, "job").status.phase == "Running"
    cluster.clock.advance(5)
    pod = read(core, "job")
    assert pod.status.phase == "Succeeded"
    assert pod.status.init_container_statuses[0].state.terminated.reason == "Completed"
    assert ("Normal", "Killing", "Stopping container proxy") in events_of(core, "job")


def test_a_changed_annotation_applies_from_the_next_start(cluster: FakeAPIServer, core: Any) -> None:
    core.create_namespaced_pod("default", builders.pod("crash", annotations={"fakeapi.dev/crash-loop": "true"}))
    cluster.clock.advance(3)
    assert state(read(core, "crash"))[1] == "CrashLoopBackOff"
    core.patch_namespaced_pod("crash", "default", {"metadata": {"annotations": {"fakeapi.dev/crash-loop": None}}})
    cluster.clock.advance(10)
    cluster.clock.advance(60)
    pod = read(core, "crash")
    assert state(pod) == ("running", None, 2) and pod.status.container_statuses[0].ready


def test_annotations_the_kubelet_cannot_read_are_reported(cluster: FakeAPIServer, core: Any) -> None:
    core.create_namespaced_pod("default", builders.pod("typo", annotations={"fakeapi.dev/exit-after": "soon"}))
    assert ("Warning", "InvalidAnnotation", 'fakeapi.dev/exit-after: "soon" is not a duration (such as "5s", '
                                            '"1m30s" or "90"); ignored') in events_of(core, "typo")
    cluster.clock.advance(60)
    assert state(read(core, "typo")) == ("running", None, 0)


def test_a_crash_looping_pod_is_deleted_as_any_other(cluster: FakeAPIServer, core: Any) -> None:
    core.create_namespaced_pod("default", builders.pod("crash", annotations={"fakeapi.dev/crash-loop": "true"}))
    cluster.clock.advance(3)
    core.delete_namespaced_pod("crash", "default")
    final = read(core, "crash").status.container_statuses[0]
    assert (final.state.terminated.exit_code, final.state.terminated.reason) == (1, "Error")  # no more waiting
    cluster.clock.advance(1)
    assert core.list_namespaced_pod("default").items == []
