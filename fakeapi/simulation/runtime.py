"""What a simulated kubelet's container runtime holds for a pod: its sandbox and each container's state."""

from __future__ import annotations

from dataclasses import dataclass, field

from fakeapi.machinery.clock import Timer
from fakeapi.machinery.types import JSON
from fakeapi.simulation.view import PodKey

INIT, SIDECAR, MAIN = "init", "sidecar", "main"


@dataclass(slots=True, eq=False)
class Container:
    name: str
    image: str  # as the spec names it
    kind: str  # INIT, SIDECAR (an init container with restartPolicy Always) or MAIN
    spec: JSON
    state: str = "waiting"  # waiting | running | terminated
    reason: str = "ContainerCreating"  # while waiting or terminated
    message: str = ""
    exit_code: int = 0
    started_at: str = ""
    finished_at: str = ""
    container_id: str = ""
    pulling: bool = False
    ready: bool = False
    started: bool = False
    restart_count: int = 0

    @property
    def ran(self) -> bool:
        """Whether the runtime ever created it (it has an id and a resolved image)."""
        return bool(self.container_id)


@dataclass(slots=True, eq=False)
class PodRuntime:
    key: PodKey
    uid: str
    node: str
    containers: list[Container]
    host_ip: str = ""
    pod_ip: str = ""
    start_time: str = ""
    sandbox_ready: bool = False
    gated: bool = False  # it has readiness gates (conditions other clients write decide its readiness)
    terminating: bool = False  # its containers are being stopped
    done: bool = False  # its containers stopped; the kubelet deletes it
    timers: set[Timer] = field(default_factory=set)

    def of_kind(self, *kinds: str) -> list[Container]:
        return [container for container in self.containers if container.kind in kinds]


def containers_of(spec: JSON) -> list[Container]:
    """The pod's containers in the order the kubelet starts them: init containers, then the others."""
    found = [Container(str(c.get("name", "")), str(c.get("image", "")),
                       SIDECAR if c.get("restartPolicy") == "Always" else INIT, c,
                       reason="PodInitializing") for c in spec.get("initContainers") or []]
    waiting = "PodInitializing" if found else "ContainerCreating"
    found += [Container(str(c.get("name", "")), str(c.get("image", "")), MAIN, c, reason=waiting)
              for c in spec.get("containers") or []]
    return found
