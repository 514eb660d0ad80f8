"""What a simulated kubelet's container runtime holds for a pod: its sandbox and each container's state."""

from __future__ import annotations

from dataclasses import dataclass, field

from fakeapi.machinery.types import JSON
from fakeapi.simulation.backoff import Backoff
from fakeapi.simulation.behaviour import NORMAL, Behaviour
from fakeapi.simulation.view import PodKey

INIT, SIDECAR, MAIN = "init", "sidecar", "main"
WAITING, RUNNING, TERMINATED = "waiting", "running", "terminated"


PROBES = ("startupProbe", "readinessProbe", "livenessProbe")
Mount = tuple[str, str, bool]  # a volume mount: name, path, read-only


@dataclass(slots=True, eq=False)
class Container:
    """A container as the runtime knows it. (Its spec is kept as the few fields the kubelet reads, in
    objects the garbage collector need not follow: a cluster holds a hundred thousand of these.)"""

    name: str
    image: str  # as the spec names it
    kind: str  # INIT, SIDECAR (an init container with restartPolicy Always) or MAIN
    pull_policy: str = "IfNotPresent"
    mounts: tuple[Mount, ...] = ()
    ports: tuple[tuple[str, int], ...] = ()  # named ports: name, number
    probes: dict[str, JSON] = field(default_factory=dict)  # the probes it has, by spec field
    # the newest instance's state: WAITING (none created yet), RUNNING or TERMINATED; and the fields of it
    state: str = WAITING
    reason: str = "ContainerCreating"  # while waiting or terminated
    message: str = ""
    exit_code: int = 0
    started_at: str = ""
    finished_at: str = ""
    finished: float = 0.0  # when it exited, on the clock's monotonic scale (where back-off counts from)
    container_id: str = ""
    last_state: JSON | None = None  # the instance before the newest one: its `terminated` state
    # why the kubelet holds the container back (waiting reason and message: CrashLoopBackOff, ErrImagePull...)
    held: tuple[str, str] | None = None
    pulling: bool = False
    ready: bool = False
    started: bool = False
    restart_count: int = 0  # the attempt number of its newest instance
    behaviour: Behaviour = NORMAL  # what the pod's annotations ask of it (read at each start)
    commanded: bool = False  # its newest instance runs its own command in the built-in shell

    @property
    def ran(self) -> bool:
        """Whether the runtime ever created it (it has an id and a resolved image)."""
        return bool(self.container_id)

    @property
    def succeeded(self) -> bool:
        """Exited 0 for good (one held back to be restarted shows as waiting, not as succeeded)."""
        return self.state == TERMINATED and self.exit_code == 0 and self.held is None


@dataclass(slots=True, eq=False)
class PodRuntime:
    key: PodKey
    uid: str
    node: str
    containers: list[Container]
    restart_policy: str = "Always"
    host_ip: str = ""
    pod_ip: str = ""
    start_time: str = ""
    sandbox_ready: bool = False
    gated: bool = False  # it has readiness gates (conditions other clients write decide its readiness)
    mounting: bool = False  # its volumes cannot be mounted yet (a ConfigMap or Secret is missing): no sandbox
    mount_retry: float = 0.0  # seconds until the next try to mount them
    mount_waiting_since: float = 0.0  # when it began to wait, on the clock's monotonic scale
    terminating: bool = False  # its containers are being stopped
    done: bool = False  # its containers stopped for good: the pod is terminal (Succeeded or Failed)
    restarts: Backoff | None = None  # restarts (by container name) and image pulls, once there are some

    @property
    def backoff(self) -> Backoff:
        if self.restarts is None:
            self.restarts = Backoff()
        return self.restarts

    def of_kind(self, *kinds: str) -> list[Container]:
        return [container for container in self.containers if container.kind in kinds]


def containers_of(spec: JSON) -> list[Container]:
    """The pod's containers in the order the kubelet starts them: init containers, then the others."""
    found = [_container(c, SIDECAR if c.get("restartPolicy") == "Always" else INIT, "PodInitializing")
             for c in spec.get("initContainers") or []]
    waiting = "PodInitializing" if found else "ContainerCreating"
    return found + [_container(c, MAIN, waiting) for c in spec.get("containers") or []]


def _container(spec: JSON, kind: str, waiting: str) -> Container:
    return Container(
        str(spec.get("name", "")), str(spec.get("image", "")), kind, spec.get("imagePullPolicy") or "IfNotPresent",
        tuple((str(m.get("name", "")), str(m.get("mountPath", "")), bool(m.get("readOnly")))
              for m in spec.get("volumeMounts") or []),
        tuple((str(p["name"]), int(p.get("containerPort") or 0)) for p in spec.get("ports") or [] if p.get("name")),
        {name: spec[name] for name in PROBES if spec.get(name)}, reason=waiting)


def restarts(container: Container, restart_policy: str) -> bool:
    """ShouldContainerBeRestarted, for a container that exited: a sidecar always; an init container that
    failed unless the policy is Never; another container under Always, or under OnFailure if it failed."""
    if container.kind == SIDECAR:
        return True
    if restart_policy == "Never":
        return False
    return restart_policy == "Always" and container.kind == MAIN or container.exit_code != 0


def format_pod(runtime: PodRuntime) -> str:
    """format.Pod: `name_namespace(uid)`, as the kubelet's messages name a pod."""
    return f"{runtime.key[1]}_{runtime.key[0]}({runtime.uid})"


def field_path(container: Container) -> str:
    """How events name the container (the involvedObject's fieldPath)."""
    section = "containers" if container.kind == MAIN else "initContainers"
    return f"spec.{section}{{{container.name}}}"
