"""The simulated kubelet's prober: startup, readiness and liveness probes as their results would come.

Every probe passes unless the pod's annotations say otherwise. A container is started once its startup
probe's initialDelaySeconds have passed (at once without one), then ready once its readiness probe's
initialDelaySeconds have (since it started). `fakeapi.dev/never-ready` keeps it unready: a readiness
probe then fails every periodSeconds (`Unhealthy`). `fakeapi.dev/liveness-fails-after` makes a liveness
probe fail from that time on: each failure is an `Unhealthy` event, and after failureThreshold of them
in a row the container is killed (`Killing`, `Container c failed liveness probe, will be restarted`).
Probes tick every periodSeconds from the container's start, as the kubelet's probe workers do.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from fakeapi.machinery.types import JSON
from fakeapi.simulation.client import Client
from fakeapi.simulation.events import pod_reference
from fakeapi.simulation.nodes import NodeAgents
from fakeapi.simulation.podtimers import PodTimers
from fakeapi.simulation.runtime import RUNNING, Container, PodRuntime, field_path
from fakeapi.simulation.statusmanager import StatusManager

PERIOD_SECONDS, FAILURE_THRESHOLD = 10, 3  # the probes' defaults

Kill = Callable[[PodRuntime, Container, str], None]


def initial_delay(probe: JSON) -> float:
    delay = probe.get("initialDelaySeconds")
    return float(delay) if isinstance(delay, int) and delay > 0 else 0.0


def period(probe: JSON) -> float:
    value = probe.get("periodSeconds")
    return float(value) if isinstance(value, int) and value > 0 else float(PERIOD_SECONDS)


def failure_output(probe: JSON, container: Container, pod_ip: str) -> str:
    """What a failing probe reports, by its handler."""
    if probe.get("httpGet") is not None:
        return "HTTP probe failed with statuscode: 503"
    if probe.get("tcpSocket") is not None:
        port = (probe.get("tcpSocket") or {}).get("port")
        if isinstance(port, str):  # a named port of the container
            port = next((number for name, number in container.ports if name == port), port)
        return f"dial tcp {pod_ip}:{port}: connect: connection refused"
    if probe.get("grpc") is not None:
        return 'service unhealthy (responded with "NOT_SERVING")'
    return ""  # an exec probe whose command failed without output


class Prober:
    def __init__(self, client: Client, agents: NodeAgents, timers: PodTimers, status: StatusManager,
                 started: Callable[[PodRuntime], None], kill: Kill) -> None:
        self.client = client
        self.agents = agents
        self.timers = timers
        self.status = status
        self.on_started = started  # a container started: the next one may start
        self.kill = kill

    def container_started(self, runtime: PodRuntime, container: Container) -> None:
        """A container (not an init container) runs: its probes begin."""
        startup = container.probes.get("startupProbe")
        instance = container.container_id
        if startup:
            self.timers.later(runtime, initial_delay(startup), lambda: self._started(runtime, container, instance))
        else:
            container.started = True
            self._probe_readiness(runtime, container, instance, 0.0)
            self._probe_liveness(runtime, container, instance, 0.0)

    def _started(self, runtime: PodRuntime, container: Container, instance: str) -> None:
        if not _running(runtime, container, instance):
            return
        container.started = True
        since = initial_delay(container.probes.get("startupProbe") or {})
        self._probe_readiness(runtime, container, instance, since)
        self._probe_liveness(runtime, container, instance, since)
        self.status.set(runtime)
        self.on_started(runtime)

    # ---- readiness

    def _probe_readiness(self, runtime: PodRuntime, container: Container, instance: str, ran: float) -> None:
        """`ran`: how long the container has run (its startup probe's delay)."""
        probe = container.probes.get("readinessProbe")
        if container.behaviour.never_ready:
            if probe:
                first = _first_tick(max(ran, initial_delay(probe)), period(probe))
                self.timers.later(runtime, first - ran, lambda: self._unready(runtime, container, instance))
            return
        if probe and initial_delay(probe) > ran:
            self.timers.later(runtime, initial_delay(probe) - ran, lambda: self._ready(runtime, container, instance))
            return
        container.ready = True

    def _ready(self, runtime: PodRuntime, container: Container, instance: str) -> None:
        if _running(runtime, container, instance):
            container.ready = True
            self.status.set(runtime)

    def _unready(self, runtime: PodRuntime, container: Container, instance: str) -> None:
        """A readiness probe that fails, every period while the container runs."""
        if not _running(runtime, container, instance):
            return
        probe: JSON = container.probes.get("readinessProbe") or {}
        self._unhealthy(runtime, container, "Readiness", probe)
        self.timers.later(runtime, period(probe), lambda: self._unready(runtime, container, instance))

    # ---- liveness

    def _probe_liveness(self, runtime: PodRuntime, container: Container, instance: str, ran: float) -> None:
        probe = container.probes.get("livenessProbe")
        fails_after = container.behaviour.liveness_fails_after
        if not probe or fails_after is None:
            return
        first = _first_tick(max(ran, fails_after, initial_delay(probe)), period(probe))
        self.timers.later(runtime, first - ran, lambda: self._failed_liveness(runtime, container, instance, 1))

    def _failed_liveness(self, runtime: PodRuntime, container: Container, instance: str, failures: int) -> None:
        if not _running(runtime, container, instance):
            return
        probe: JSON = container.probes.get("livenessProbe") or {}
        self._unhealthy(runtime, container, "Liveness", probe)
        threshold = probe.get("failureThreshold")
        if failures < (threshold if isinstance(threshold, int) and threshold > 0 else FAILURE_THRESHOLD):
            self.timers.later(runtime, period(probe),
                              lambda: self._failed_liveness(runtime, container, instance, failures + 1))
            return
        self.kill(runtime, container, f"Container {container.name} failed liveness probe")

    def _unhealthy(self, runtime: PodRuntime, container: Container, kind: str, probe: JSON) -> None:
        pod = self.client.api.registry("pods").find(*runtime.key)
        node = self.agents.nodes.get(runtime.node)
        if pod is not None and node is not None:
            output = failure_output(probe, container, runtime.pod_ip)
            node.events.warning(pod_reference(pod, field_path(container)), "Unhealthy",
                                f"{kind} probe failed: {output}")


def _first_tick(after: float, every: float) -> float:
    """The first probe tick (every `every` seconds from the container's start) at or after `after`."""
    return math.ceil(after / every) * every


def _running(runtime: PodRuntime, container: Container, instance: str) -> bool:
    """The container instance a probe was for still runs, in a pod that is not stopping."""
    return container.state == RUNNING and container.container_id == instance and not runtime.terminating
