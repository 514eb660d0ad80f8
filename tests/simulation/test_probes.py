"""Probes as simulated: readiness that never comes (`fakeapi.dev/never-ready`), and a liveness probe that
starts failing (`fakeapi.dev/liveness-fails-after`) and gets the container restarted."""

from __future__ import annotations

from typing import Any

from fakeapi.testing import FakeAPIServer
from tests import builders
from tests.simulation.conftest import events_of


def with_probe(name: str, kind: str, probe: dict[str, Any], **overrides: Any) -> dict[str, Any]:
    manifest = builders.pod(name, **overrides)
    manifest["spec"]["containers"][0][kind] = probe
    return manifest


def test_a_container_that_never_becomes_ready(cluster: FakeAPIServer, core: Any) -> None:
    probe = {"httpGet": {"path": "/ready", "port": 80}, "periodSeconds": 5}
    core.create_namespaced_pod("default", with_probe("probed", "readinessProbe", probe,
                                                     annotations={"fakeapi.dev/never-ready": "true"}))
    core.create_namespaced_pod("default", builders.pod("plain", annotations={"fakeapi.dev/never-ready": "true"}))
    cluster.clock.advance(1 + 30)
    for name in ("probed", "plain"):
        pod = core.read_namespaced_pod(name, "default")
        ready = next(c for c in pod.status.conditions if c.type == "Ready")
        assert (pod.status.phase, ready.status, pod.status.container_statuses[0].started) == ("Running", "False", True)
    unhealthy = [event for event in core.list_namespaced_event("default").items if event.reason == "Unhealthy"]
    assert [(event.involved_object.name, event.message, event.count) for event in unhealthy] == [
        ("probed", "Readiness probe failed: HTTP probe failed with statuscode: 503", 7)]  # t = 1, 6 ... 31


def test_a_failing_liveness_probe_restarts_the_container(cluster: FakeAPIServer, core: Any) -> None:
    probe = {"tcpSocket": {"port": 8080}, "periodSeconds": 10, "failureThreshold": 3}
    core.create_namespaced_pod("default", with_probe("live", "livenessProbe", probe,
                                                     annotations={"fakeapi.dev/liveness-fails-after": "30s"}))
    cluster.clock.advance(1 + 30)  # started at 1; probes fail from 31 on, every 10 s
    assert [(kind, reason) for kind, reason, _ in events_of(core, "live")][-1] == ("Warning", "Unhealthy")
    cluster.clock.advance(20)  # the third failure: killed
    events = events_of(core, "live")
    assert events[-2:] == [
        ("Warning", "Unhealthy", "Liveness probe failed: dial tcp 10.244.0.2:8080: connect: connection refused"),
        ("Normal", "Killing", "Container web failed liveness probe, will be restarted")]
    web = core.read_namespaced_pod("live", "default").status.container_statuses[0]
    assert (web.ready, web.state.running is not None, web.restart_count) == (False, True, 0)
    cluster.clock.advance(1)  # it stopped, and is restarted at once
    web = core.read_namespaced_pod("live", "default").status.container_statuses[0]
    assert (web.restart_count, web.ready, web.last_state.terminated.reason) == (1, True, "Completed")
    unhealthy = next(event for event in core.list_namespaced_event("default").items if event.reason == "Unhealthy")
    assert unhealthy.count == 3


def test_under_restart_policy_never_a_failing_liveness_probe_ends_the_pod(cluster: FakeAPIServer,
                                                                           core: Any) -> None:
    probe = {"exec": {"command": ["true"]}, "periodSeconds": 5, "failureThreshold": 1}
    core.create_namespaced_pod("default", with_probe("once", "livenessProbe", probe, restartPolicy="Never",
                                                     annotations={"fakeapi.dev/liveness-fails-after": "5s"}))
    cluster.clock.advance(1 + 5)
    assert events_of(core, "once")[-2:] == [("Warning", "Unhealthy", "Liveness probe failed: "),
                                            ("Normal", "Killing", "Container web failed liveness probe")]
    cluster.clock.advance(1)
    pod = core.read_namespaced_pod("once", "default")
    assert (pod.status.phase, pod.status.container_statuses[0].restart_count) == ("Succeeded", 0)
