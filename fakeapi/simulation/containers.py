"""The container half of the simulated kubelets: images, starts, exits and restarts, as a v1.32 kubelet and
containerd show them. What a container does beyond running is chosen by its pod's `fakeapi.dev/`
annotations (behaviour.py).

Starting: init containers one by one, then the sidecars and containers. An image that is not on the node
(or pull policy Always) is pulled in a second (`Pulling`, `Pulled`), else `Pulled` (already present). A
pull that fails leaves the container waiting in `ErrImagePull` (`Failed` events), then, at the next sync,
in `ImagePullBackOff` (`BackOff`) until it is pulled again once the back-off has passed (10 s, doubling
to 5 min). Then `Created`, `Started`, and the container's log gets its start line and the pod's lines.

Exits: an init container exits 0 after a second; the others run until the pod goes, unless asked to exit
or be OOM-killed (`OOMKilled`, 137), or killed for a failing liveness probe. The pod's restartPolicy decides
what follows (a sidecar is always restarted): a restart at once, then only after a back-off since the last
exit (`CrashLoopBackOff`, a `BackOff` event, the exited instance in `lastState`), the back-off starting
over once the container ran for 10 min; or, once no container will run again, the pod is terminal
(Succeeded when they all exited 0, else Failed) and its sidecars are stopped.
"""

from __future__ import annotations

from collections.abc import Callable

from fakeapi.machinery.clock import Clock, rfc3339
from fakeapi.machinery.types import JSON
from fakeapi.simulation import images
from fakeapi.simulation.behaviour import PULL_FAILS, PULL_HANGS, behaviour_of
from fakeapi.simulation.client import Client
from fakeapi.simulation.commands import Commands
from fakeapi.simulation.events import EventRecorder, pod_reference
from fakeapi.simulation.nodes import NodeAgents
from fakeapi.simulation.podstatus import terminated_state
from fakeapi.simulation.podtimers import PodTimers
from fakeapi.simulation.probes import Prober
from fakeapi.simulation.runtime import (
    INIT,
    MAIN,
    RUNNING,
    SIDECAR,
    TERMINATED,
    WAITING,
    Container,
    PodRuntime,
    field_path,
    format_pod,
    restarts,
)
from fakeapi.simulation.statusmanager import StatusManager

PULL_SECONDS = 1.0  # an image pull
INIT_RUN_SECONDS = 1.0  # an init container's run, to exit 0
STOP_SECONDS = 1.0  # a container's stop after SIGTERM
RESYNC_SECONDS = 1.0  # the pod's next sync after a failed pull (the PLEG's relist): it finds the back-off
DEFAULT_GRACE_SECONDS = 30
OOM_KILLED = "OOMKilled"
CONFIG_ERROR = "CreateContainerConfigError"
CONFIG_RETRY_SECONDS = 10.0  # the pod worker's back-off before it syncs a pod whose sync failed


class ContainerRuntime:
    def __init__(self, client: Client, agents: NodeAgents, timers: PodTimers, status: StatusManager,
                 commands: Commands, finished: Callable[[PodRuntime], None]) -> None:
        self.client = client
        self.agents = agents
        self.timers = timers
        self.status = status
        self.commands = commands
        self.on_finished = finished  # the pod is terminal: its sandbox goes
        self.prober = Prober(client, agents, timers, status, self.advance, self.kill)

    @property
    def clock(self) -> Clock:
        return self.client.api.clock

    def halted(self, runtime: PodRuntime) -> bool:
        """Nothing more starts or exits: the pod is stopping or stopped, or its kubelet is."""
        node = self.agents.nodes.get(runtime.node)
        return runtime.terminating or runtime.done or node is None or node.stopped

    # ---- starting

    def advance(self, runtime: PodRuntime) -> None:
        """Start the next container the pod waits for: its init containers one by one (each after the one
        before succeeded, a sidecar once it started), then the others; pulls go one at a time."""
        if self.halted(runtime):
            return
        for container in runtime.containers:
            if container.kind == INIT and container.succeeded:
                continue
            if container.pulling:
                return
            if container.state == WAITING and container.held is None:
                self.start(runtime, container)
                return  # (what it starts calls this again)
            if container.kind == INIT or (container.kind == SIDECAR and not container.started):
                return

    def start(self, runtime: PodRuntime, container: Container) -> None:
        """Get the container's image (pulling it if need be), then run a new instance of it."""
        pod = self._pod(runtime)
        if pod is None:
            return
        container.behaviour = behaviour_of(pod["metadata"].get("annotations") or {}, container.name,
                                           init=container.kind != MAIN)
        node = self.agents.nodes[runtime.node]
        ref = pod_reference(pod, field_path(container))
        behaviour = container.behaviour
        policy = container.pull_policy
        present = behaviour.image_pull != PULL_FAILS and images.normalized(container.image) in node.images
        if policy == "Never" and not present:
            message = f'Container image "{container.image}" is not present with pull policy of Never'
            node.events.warning(ref, "ErrImageNeverPull", message)
            container.held = ("ErrImageNeverPull", message)
            self.status.set(runtime)
            return
        if policy == "Always" or not present:
            node.events.normal(ref, "Pulling", f'Pulling image "{container.image}"')
            container.pulling = True
            if behaviour.image_pull != PULL_HANGS:
                seconds = PULL_SECONDS if behaviour.pull_seconds is None else behaviour.pull_seconds
                self.timers.later(runtime, seconds, lambda: self._pulled(runtime, container, seconds))
            return
        node.events.normal(ref, "Pulled", f'Container image "{container.image}" already present on machine')
        self.run(runtime, container, pod)

    def _pulled(self, runtime: PodRuntime, container: Container, seconds: float) -> None:
        container.pulling = False
        pod = self._pod(runtime)
        if pod is None or self.halted(runtime):
            return
        node = self.agents.nodes[runtime.node]
        ref = pod_reference(pod, field_path(container))
        if container.behaviour.image_pull == PULL_FAILS:
            self._pull_failed(runtime, container, node.events, ref)
            return
        node.images.add(images.normalized(container.image))
        took, size = images.go_duration(seconds), images.image_size(container.image)
        node.events.normal(ref, "Pulled", f'Successfully pulled image "{container.image}" in {took} ({took} '
                                          f"including waiting). Image size: {size} bytes.")
        self.run(runtime, container, pod)

    def _pull_failed(self, runtime: PodRuntime, container: Container, events: EventRecorder, ref: JSON) -> None:
        reference = images.normalized(container.image)
        error = (f'rpc error: code = NotFound desc = failed to pull and unpack image "{reference}": failed to '
                 f'resolve reference "{reference}": {reference}: not found')
        events.warning(ref, "Failed", f'Failed to pull image "{container.image}": {error}')
        events.warning(ref, "Failed", "Error: ErrImagePull")
        failed = self.clock.monotonic()
        runtime.backoff.next(("image", container.image), failed, failed)
        container.held = ("ErrImagePull", error)
        self.status.set(runtime)
        self.timers.later(runtime, RESYNC_SECONDS, lambda: self._pull_backoff(runtime, container, failed))
        self.advance(runtime)

    def _pull_backoff(self, runtime: PodRuntime, container: Container, failed: float) -> None:
        """The sync after a failed pull finds the image in back-off; it is pulled again once that ends."""
        pod = self._pod(runtime)
        if pod is None or self.halted(runtime):
            return
        events = self.agents.nodes[runtime.node].events
        ref = pod_reference(pod, field_path(container))
        message = f'Back-off pulling image "{container.image}"'
        events.normal(ref, "BackOff", message)
        events.warning(ref, "Failed", "Error: ImagePullBackOff")
        container.held = ("ImagePullBackOff", message)
        self.status.set(runtime)
        remaining = runtime.backoff.remaining(("image", container.image), failed, self.clock.monotonic())
        self.timers.later(runtime, remaining, lambda: self._pull_again(runtime, container))

    def _pull_again(self, runtime: PodRuntime, container: Container) -> None:
        if not self.halted(runtime):
            self.start(runtime, container)  # (it stays held, as ImagePullBackOff, until it runs)

    def run(self, runtime: PodRuntime, container: Container, pod: JSON) -> None:
        """Create and start a new instance of the container (unless its environment cannot be made)."""
        problem = self.commands.config_error(pod, container)
        if problem is not None:
            self._config_failed(runtime, container, pod, problem)
            return
        if container.ran:  # a restart: the instance that exited becomes lastState
            if container.state == TERMINATED:
                container.last_state = terminated_state(container)
            container.restart_count += 1
        container.container_id = images.container_id(runtime.uid, container.name, container.restart_count)
        events = self.agents.nodes[runtime.node].events
        ref = pod_reference(pod, field_path(container))
        events.normal(ref, "Created", f"Created container: {container.name}")
        events.normal(ref, "Started", f"Started container {container.name}")
        container.state, container.reason, container.message, container.held = RUNNING, "", "", None
        container.started_at = rfc3339(self.clock.now())
        container.started = container.ready = False
        container.commanded = self.commands.runs(container, pod)
        self._log_start(runtime, container)
        if container.kind == INIT:
            container.started = True
        else:
            self.prober.container_started(runtime, container)
        if container.commanded:
            instance = container.container_id
            self.commands.start(runtime, container, pod, lambda code: self.exited(runtime, container, instance, code))
        else:
            self._arm_exits(runtime, container, 0.0)
        self.status.set(runtime)
        self.advance(runtime)

    def _config_failed(self, runtime: PodRuntime, container: Container, pod: JSON, message: str) -> None:
        """CreateContainerConfigError: tried again at the pod's next sync (or at once when a ConfigMap or
        Secret of its namespace changes)."""
        self.agents.nodes[runtime.node].events.warning(pod_reference(pod, field_path(container)), "Failed",
                                                       f"Error: {message}")
        container.held = (CONFIG_ERROR, message)
        self.status.set(runtime)
        self.timers.later(runtime, CONFIG_RETRY_SECONDS, lambda: self.retry_config(runtime, container))
        self.advance(runtime)

    def retry_config(self, runtime: PodRuntime, container: Container) -> None:
        if not self.halted(runtime) and container.held is not None and container.held[0] == CONFIG_ERROR:
            self.start(runtime, container)

    def _arm_exits(self, runtime: PodRuntime, container: Container, ran: float) -> None:
        """The exits the container's behaviour calls for, `ran` seconds into its run: an init container's
        (after a second by default), `exit-after`'s, `oom-after`'s."""
        instance, behaviour = container.container_id, container.behaviour
        exit_after = behaviour.exit_after
        if container.kind == INIT and exit_after is None:
            exit_after = INIT_RUN_SECONDS
        if behaviour.oom_after is not None and container.kind != INIT:
            self.timers.later(runtime, behaviour.oom_after - ran,
                              lambda: self.exited(runtime, container, instance, 137, OOM_KILLED))
        if exit_after is not None:
            self.timers.later(runtime, exit_after - ran,
                              lambda: self.exited(runtime, container, instance, behaviour.exit_code))

    def resume(self, runtime: PodRuntime, seconds_since: Callable[[str], float]) -> None:
        """Carry on with a pod taken over as its status shows it (after a restore): containers that exited
        and are to be restarted start again (the back-off went with the kubelet that counted it), running
        ones exit when the pod's annotations say, counted from their start."""
        pod = self._pod(runtime)
        if pod is None:
            return
        annotations = pod["metadata"].get("annotations") or {}
        for container in runtime.containers:
            container.behaviour = behaviour_of(annotations, container.name, init=container.kind != MAIN)
            if container.state == RUNNING:
                self._arm_exits(runtime, container, seconds_since(container.started_at))
            elif container.state == TERMINATED and restarts(container, runtime.restart_policy):
                self._restart(runtime, container, None)

    # ---- exits

    def exited(self, runtime: PodRuntime, container: Container, instance: str, code: int, reason: str = "") -> None:
        """The instance exited by itself (or the OOM killer ended it)."""
        if container.container_id != instance or container.state != RUNNING or self.halted(runtime):
            return
        self.end(runtime, container, code, reason or ("Completed" if code == 0 else "Error"))
        container.ready = container.kind == INIT and code == 0  # a finished init container reads ready
        self._after_exit(runtime, container, restarts(container, runtime.restart_policy), container.finished)

    def kill(self, runtime: PodRuntime, container: Container, why: str) -> None:
        """Kill a running container (its liveness probe failed): `Killing`, then it stops as a deleted pod's
        containers do; it is restarted unless the pod's restartPolicy is Never (a sidecar always is)."""
        pod = self._pod(runtime)
        if pod is None:
            return
        restart = container.kind != MAIN or runtime.restart_policy != "Never"
        message = f"{why}, will be restarted" if restart else why
        self.agents.nodes[runtime.node].events.normal(pod_reference(pod, field_path(container)), "Killing", message)
        container.ready = False
        self.status.set(runtime)
        # the restart's back-off counts from the exit before this one (upstream decides it as it kills)
        since = container.finished if container.restart_count else None
        grace = grace_seconds(pod, container.probes.get("livenessProbe") or {})
        instance = container.container_id

        def stopped() -> None:
            if container.container_id != instance or container.state != RUNNING or self.halted(runtime):
                return
            graceful = STOP_SECONDS <= grace
            self.end(runtime, container, 0 if graceful else 137, "Completed" if graceful else "Error")
            self._after_exit(runtime, container, restart, since)

        self.timers.later(runtime, min(grace, STOP_SECONDS), stopped)

    def end(self, runtime: PodRuntime, container: Container, code: int, reason: str, message: str = "") -> None:
        """The container's instance is gone, with this exit code."""
        container.state, container.exit_code, container.reason, container.message = TERMINATED, code, reason, message
        container.finished_at = rfc3339(self.clock.now())
        container.finished = self.clock.monotonic()
        container.ready = container.started = False
        if container.ran:
            self.commands.stop(runtime, container)
            if not container.commanded:
                suffix = f" ({reason})" if reason == OOM_KILLED else ""
                self._log(runtime, container,
                          f'fakeapi: container "{container.name}" exited with code {code}{suffix}\n')
            self.client.api.pod_logs.end(runtime.key[0], runtime.key[1], container.name)

    def _after_exit(self, runtime: PodRuntime, container: Container, restart: bool, since: float | None) -> None:
        """A container exited: its status shows it terminated first, then (a step later) it is restarted or
        held in back-off, as the kubelet writes the exit before its next sync restarts the container."""
        if restart:
            instance = container.container_id

            def restart_later() -> None:
                if container.container_id == instance and container.state == TERMINATED and not self.halted(runtime):
                    self._restart(runtime, container, since)
                    self.status.set(runtime)
                    self.advance(runtime)

            self.status.set(runtime)
            self.timers.work.soon(("restart", runtime.uid, container.name, instance), restart_later)
            return
        if self._finished(runtime):
            self._finish(runtime)
        self.status.set(runtime)
        self.advance(runtime)

    def _restart(self, runtime: PodRuntime, container: Container, since: float | None) -> None:
        """The kubelet's doBackOff: restart at once (counting the try), or wait in CrashLoopBackOff until the
        back-off since the last exit (`since`) has passed."""
        key, now = container.name, self.clock.monotonic()
        if since is None or not runtime.backoff.in_backoff_since(key, since, now):
            if since is not None:
                runtime.backoff.next(key, since, now)
            self.start(runtime, container)
            return
        pod = self._pod(runtime)
        if pod is None:
            return
        delay = runtime.backoff.delay(key)
        container.held = ("CrashLoopBackOff", f"back-off {images.go_duration(delay)} restarting failed "
                                              f"container={container.name} pod={format_pod(runtime)}")
        self.agents.nodes[runtime.node].events.warning(
            pod_reference(pod, field_path(container)), "BackOff",
            f"Back-off restarting failed container {container.name} in pod {format_pod(runtime)}")

        def backed_off() -> None:
            if not self.halted(runtime) and container.held is not None:
                runtime.backoff.next(key, since, self.clock.monotonic())
                self.start(runtime, container)

        self.timers.later(runtime, runtime.backoff.remaining(key, since, now), backed_off)

    def _finished(self, runtime: PodRuntime) -> bool:
        """No container will run again: every container exited for good (or, under restartPolicy Never, an
        init container failed)."""
        policy = runtime.restart_policy
        if policy == "Never" and any(c.kind == INIT and c.state == TERMINATED and c.exit_code != 0
                                     for c in runtime.containers):
            return True
        main = runtime.of_kind(MAIN)
        return bool(main) and all(c.state == TERMINATED and c.held is None and not restarts(c, policy) for c in main)

    def _finish(self, runtime: PodRuntime) -> None:
        """The pod is terminal: what still runs (its sidecars) is stopped, and its sandbox goes."""
        pod = self._pod(runtime)
        events = self.agents.nodes[runtime.node].events
        for container in reversed(runtime.containers):
            if container.state == RUNNING:
                if pod is not None:
                    events.normal(pod_reference(pod, field_path(container)), "Killing",
                                  f"Stopping container {container.name}")
                self.end(runtime, container, 0, "Completed")
            container.pulling, container.held = False, None
        self.timers.cancel(runtime)
        runtime.done, runtime.sandbox_ready = True, False
        self.on_finished(runtime)

    # ---- logs

    def _log_start(self, runtime: PodRuntime, container: Container) -> None:
        """A new instance's log: a start line (unless the pod gives the lines it writes, or its command
        runs and writes its own), then the lines the pod asks it to write."""
        namespace, name = runtime.key
        self.client.api.pod_logs.start(namespace, name, container.name, container.container_id)
        if container.commanded:
            return
        lines = list(container.behaviour.log_lines) or [
            f'fakeapi: started container "{container.name}" (image "{container.image}")']
        self._log(runtime, container, "".join(line + "\n" for line in lines))

    def _log(self, runtime: PodRuntime, container: Container, text: str) -> None:
        api = self.client.api
        api.pod_logs.append(runtime.key[0], runtime.key[1], container.name, text, api.clock.now())

    def _pod(self, runtime: PodRuntime) -> JSON | None:
        pod = self.client.api.registry("pods").find(*runtime.key)
        return pod if pod is not None and pod["metadata"].get("uid") == runtime.uid else None


def grace_seconds(pod: JSON, probe: JSON) -> int:
    """How long a killed container has to stop: the probe's terminationGracePeriodSeconds, else the pod's."""
    for value in (probe.get("terminationGracePeriodSeconds"),
                  (pod.get("spec") or {}).get("terminationGracePeriodSeconds")):
        if isinstance(value, int):
            return value
    return DEFAULT_GRACE_SECONDS
