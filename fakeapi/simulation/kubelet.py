"""The pod half of the simulated kubelets: admission, the pod's sandbox and status, graceful deletion.

A pod bound to a simulated node is admitted as the kubelet's admission does (admission.py). A pod that
does not fit is rejected (phase Failed, `OutOfcpu`, `OutOfmemory`, `OutOfpods`, `NodeAffinity`...), its
status written without `qosClass` as kubelets before v1.32 wrote it; the server keeps the class.

An admitted pod's volumes are mounted first: while a ConfigMap or Secret one needs (not optional) is
missing, it waits without a sandbox (ContainerCreating, `FailedMount` events: `MountVolume.SetUp failed for
volume "config" : configmap "app" not found`), tried again with the volume manager's back-off (0.5 s
doubling to 2m2s) and at once when a ConfigMap or Secret of its namespace changes; every 2m3s of waiting
the pod worker gives up once more (`Unable to attach or mount volumes: ...`). Then it gets a sandbox with an
address from the node's pod CIDR, and its containers run as containers.py says (init containers, pulls,
starts, probes, exits, restarts); its status goes out through the status manager. `fakeapi.dev/`
annotations the kubelet cannot read are reported in `InvalidAnnotation` events when it admits the pod.

A pod being deleted has its containers stopped (`Killing`, Ready False): they exit 0 a second later,
or with 137 when the grace period ends first; the kubelet writes the terminal status (Succeeded or
Failed) and deletes the pod with grace period 0. Every delay runs on the server clock. While a node's
kubelet is stopped (`fail()`), nothing moves for its pods; it picks up where it was on `recover()`.
"""

from __future__ import annotations

import functools

from fakeapi.machinery.clock import Clock, parse_rfc3339, rfc3339
from fakeapi.machinery.types import JSON
from fakeapi.processes.containers import Containers
from fakeapi.processes.volumes import mount_problems
from fakeapi.simulation import admission, behaviour, podstatus
from fakeapi.simulation.behaviour import NORMAL
from fakeapi.simulation.client import Client
from fakeapi.simulation.commands import Commands
from fakeapi.simulation.containers import CONFIG_ERROR, DEFAULT_GRACE_SECONDS, STOP_SECONDS, ContainerRuntime
from fakeapi.simulation.events import pod_reference
from fakeapi.simulation.nodes import NodeAgents, NodeKubelet
from fakeapi.simulation.podaddresses import PodAddresses
from fakeapi.simulation.podtimers import PodTimers
from fakeapi.simulation.runtime import (
    INIT,
    MAIN,
    RUNNING,
    SIDECAR,
    TERMINATED,
    WAITING,
    PodRuntime,
    containers_of,
    field_path,
)
from fakeapi.simulation.statusmanager import StatusManager
from fakeapi.simulation.view import ClusterView, PodInfo, PodKey
from fakeapi.simulation.work import Work

LOST = ("ContainerStatusUnknown", "The container could not be located when the pod was terminated")
MOUNT_RETRY_FIRST, MOUNT_RETRY_MAX = 0.5, 122.0  # the volume manager's back-off between mount attempts
MOUNT_TIMEOUT = 123.0  # how long the pod worker waits for volumes before it reports them unmounted


class Kubelet:
    def __init__(self, client: Client, work: Work, view: ClusterView, agents: NodeAgents,
                 containers: Containers) -> None:
        self.client = client
        self.work = work
        self.view = view
        self.agents = agents
        self.pods: dict[PodKey, PodRuntime] = {}
        # pods that run quietly, their runtime let go (their status says all of it): uid, node, pod IP
        self._parked: dict[PodKey, tuple[str, str, str]] = {}
        self._on_node: dict[str, set[PodKey]] = {}  # the pods each node's kubelet admitted and runs
        self.addresses = PodAddresses(view)
        self.timers = PodTimers(work)
        self.status = StatusManager(client, work, self._stopped, self._settled)
        commands = Commands(containers, client, self.timers, work)
        self.containers = ContainerRuntime(client, agents, self.timers, self.status, commands, self._sandbox_gone)

    @property
    def clock(self) -> Clock:
        return self.client.api.clock

    def stop(self) -> None:
        for runtime in self.pods.values():
            self.timers.cancel(runtime)
        self.timers.clear()
        self.pods.clear()
        self._parked.clear()
        self._on_node.clear()
        self.addresses.clear()

    # ---- changes

    def pod_changed(self, old: PodInfo | None, new: PodInfo | None) -> None:
        key = (new or old).key  # type: ignore[union-attr]
        runtime = self.pods.get(key)
        parked = self._parked.get(key)
        runs = runtime.uid if runtime is not None else parked[0] if parked is not None else None
        if runs is not None and (new is None or new.uid != runs):
            self._forget(key)
            runtime = parked = None
        if new is None or new.node not in self.agents.nodes:
            return
        if runtime is None and parked is None:
            if not new.terminal:
                self._sync_soon(key)
        elif (new.deleting and not (runtime and runtime.terminating)) or (old is not None and old.spec != new.spec) \
                or (runtime and runtime.gated):
            self._sync_soon(key)  # (with readiness gates, a condition another client writes may change Ready)

    def run_node(self, node: str) -> None:
        """The node's kubelet started, or is back: each of its pods starts, or carries on where it was."""
        for key in sorted(self.view.usage_of(node).pods):
            self._sync_soon(key)

    def _sync_soon(self, key: PodKey) -> None:
        self.work.soon(("kubelet", key), lambda: self.sync(key))

    # ---- syncing a pod

    def sync(self, key: PodKey) -> None:
        info = self.view.pods.get(key)
        pod = self.client.api.registry("pods").find(*key)
        node = self.agents.nodes.get(info.node) if info is not None else None
        if info is None or pod is None or node is None or node.stopped:
            return
        runtime = self.pods.get(key)
        if runtime is None:
            if info.terminal:
                return
            self._parked.pop(key, None)
            status: JSON = pod.get("status") or {}
            if status.get("hostIP") or status.get("containerStatuses"):
                runtime = self._adopt(info, pod, node)  # a pod this kubelet ran before (parked, or restored)
            elif not self._admit(info, pod, node):
                return
            else:
                runtime = self._track(info, pod, node)
                self._report_annotations(pod, node)
                runtime.mounting = True
                runtime.mount_waiting_since = self.clock.monotonic()
        if info.deleting:
            self._terminate(runtime, pod)
            return
        if runtime.mounting and not self._mount(runtime, pod, node):
            self.status.set(runtime)
            return
        if not runtime.done:
            self.status.set(runtime)
            self.containers.advance(runtime)

    def _admit(self, info: PodInfo, pod: JSON, node: NodeKubelet) -> bool:
        """The kubelet's admission: a rejected pod gets a Warning event and the pre-1.32 rejection status."""
        node_info = self.view.nodes.get(node.name)
        if node_info is None:
            return False
        admitted = (self.view.pods[other] for other in self._on_node.get(node.name, ()) if other in self.view.pods)
        rejected = admission.rejection(info, pod.get("spec") or {}, node_info, admitted)
        if rejected is None:
            return True
        reason, message = rejected
        node.events.warning(pod_reference(pod), reason, message)
        old: JSON = pod.get("status") or {}
        self.status.patch(pod, old, podstatus.rejected(reason, message, old.get("startTime") or self._now()))
        return False

    def _track(self, info: PodInfo, pod: JSON, node: NodeKubelet) -> PodRuntime:
        spec: JSON = pod.get("spec") or {}
        runtime = PodRuntime(info.key, info.uid, node.name, containers_of(spec),
                             restart_policy=spec.get("restartPolicy") or "Always", host_ip=node.internal_ip,
                             start_time=(pod.get("status") or {}).get("startTime") or self._now(),
                             gated=bool(spec.get("readinessGates")))
        self.pods[info.key] = runtime
        self._on_node.setdefault(node.name, set()).add(info.key)
        return runtime

    def _mount(self, runtime: PodRuntime, pod: JSON, node: NodeKubelet) -> bool:
        """Mount the pod's volumes and make its sandbox; False while a source is missing (tried again)."""
        problems = mount_problems(pod, self.client.api.find)
        if not problems:
            runtime.mounting = False
            self._sandbox(runtime, pod)
            return True
        ref = pod_reference(pod)
        for volume, message in problems:
            node.events.warning(ref, "FailedMount", f'MountVolume.SetUp failed for volume "{volume}" : {message}')
        now = self.clock.monotonic()
        if now - runtime.mount_waiting_since >= MOUNT_TIMEOUT:
            names = " ".join(sorted(volume for volume, _message in problems))
            node.events.warning(ref, "FailedMount", f"Unable to attach or mount volumes: unmounted volumes=[{names}], "
                                                    "unattached volumes=[], failed to process volumes=[]: "
                                                    "context deadline exceeded")
            runtime.mount_waiting_since = now
        runtime.mount_retry = min(max(runtime.mount_retry * 2, MOUNT_RETRY_FIRST), MOUNT_RETRY_MAX)
        key = runtime.key
        self.timers.later(runtime, runtime.mount_retry, lambda: self._sync_soon(key))
        return False

    def references_changed(self, namespace: str) -> None:
        """A ConfigMap or Secret of `namespace` changed: the pods waiting for one try again now."""
        for key, runtime in self.pods.items():
            if key[0] != namespace or runtime.done:
                continue
            if runtime.mounting:
                self._sync_soon(key)
            for container in runtime.containers:
                if container.held is not None and container.held[0] == CONFIG_ERROR:
                    self.work.soon(("config", runtime.uid, container.name),
                                   functools.partial(self.containers.retry_config, runtime, container))

    def _sandbox(self, runtime: PodRuntime, pod: JSON) -> None:
        """The pod sandbox: its network namespace and address (the node's, for hostNetwork pods)."""
        if (pod.get("spec") or {}).get("hostNetwork"):
            runtime.pod_ip = runtime.host_ip
        else:
            runtime.pod_ip = self.addresses.allocate(runtime.node)
        runtime.sandbox_ready = True

    def _sandbox_gone(self, runtime: PodRuntime) -> None:
        """The pod is terminal: its address is free, and it counts no more against its node."""
        self.addresses.release(runtime.node, runtime.pod_ip)
        self._on_node.get(runtime.node, set()).discard(runtime.key)

    def _report_annotations(self, pod: JSON, node: NodeKubelet) -> None:
        annotations: dict[str, str] = pod["metadata"].get("annotations") or {}
        if not any(key.startswith(behaviour.PREFIX) for key in annotations):
            return
        spec: JSON = pod.get("spec") or {}
        names = [c.get("name", "") for key in ("initContainers", "containers") for c in spec.get(key) or []]
        for problem in behaviour.problems(annotations, names):
            node.events.warning(pod_reference(pod), "InvalidAnnotation", f"{problem}; ignored")

    def _adopt(self, info: PodInfo, pod: JSON, node: NodeKubelet) -> PodRuntime:
        """Take over a pod as its status shows it (a kubelet carrying on after a restore): containers that
        wait to be restarted start again, and exits the pod's annotations ask for come as they would have."""
        runtime = self._track(info, pod, node)
        status: JSON = pod.get("status") or {}
        runtime.host_ip = status.get("hostIP") or runtime.host_ip
        runtime.pod_ip = status.get("podIP") or ""
        runtime.sandbox_ready = bool(runtime.pod_ip)
        self.addresses.reserve(runtime.node, runtime.pod_ip)
        statuses = {item.get("name"): item for key in ("initContainerStatuses", "containerStatuses")
                    for item in status.get(key) or []}
        for container in runtime.containers:
            seen: JSON = statuses.get(container.name) or {}
            state: JSON = seen.get("state") or {}
            last: JSON | None = (seen.get("lastState") or {}).get("terminated")
            container.container_id = seen.get("containerID") or ""
            container.ready, container.started = bool(seen.get("ready")), bool(seen.get("started"))
            container.restart_count = int(seen.get("restartCount") or 0)
            container.last_state = last
            if "running" in state:
                container.state, container.reason = RUNNING, ""
                container.started_at = state["running"].get("startedAt") or ""
            elif "terminated" in state or last is not None and "waiting" in state:
                ended: JSON = state.get("terminated") or last or {}
                container.last_state = last if "terminated" in state else None
                container.state, container.reason = TERMINATED, ended.get("reason") or ""
                container.exit_code = int(ended.get("exitCode") or 0)
                container.started_at = ended.get("startedAt") or ""
                container.finished_at = ended.get("finishedAt") or ""
        self.containers.resume(runtime, self._seconds_since)
        return runtime

    # ---- stopping a deleted pod

    def _terminate(self, runtime: PodRuntime, pod: JSON) -> None:
        """Stop the containers of a pod being deleted: Killing, Ready False, then they exit."""
        if runtime.done:
            self._delete(runtime)
            return
        if runtime.terminating:
            if not self.timers.waiting(runtime):  # its kubelet was stopped meanwhile: stop them now
                self._stop_containers(runtime, graceful=True)
            return
        runtime.terminating = True
        self.timers.cancel(runtime)
        events = self.agents.nodes[runtime.node].events
        for container in runtime.containers:
            container.pulling = False
            container.held = None  # a deleted pod's containers are not restarted: no more waiting reasons
            if container.state == RUNNING:
                events.normal(pod_reference(pod, field_path(container)), "Killing",
                              f"Stopping container {container.name}")
            container.ready = False
        self.status.set(runtime)
        grace = pod["metadata"].get("deletionGracePeriodSeconds")
        grace = DEFAULT_GRACE_SECONDS if grace is None else grace
        self.timers.later(runtime, min(grace, STOP_SECONDS),
                          lambda: self._stop_containers(runtime, STOP_SECONDS <= grace))

    def _stop_containers(self, runtime: PodRuntime, graceful: bool) -> None:
        """The containers are gone (0 after a clean SIGTERM, 137 when killed): the terminal status, then the
        kubelet's delete. Containers that never ran, in a pod past its init containers, were lost (137)."""
        if self._stopped(runtime):
            self.timers.cancel(runtime)  # picked up again when the node recovers
            return
        initialized = all(container.succeeded or container.kind == SIDECAR
                          for container in runtime.of_kind(INIT, SIDECAR))
        for container in runtime.containers:
            if container.state == RUNNING:
                self.containers.end(runtime, container, 0 if graceful else 137,
                                    "Completed" if graceful else "Error")
            elif container.state == WAITING and (initialized or container.kind != MAIN):
                self.containers.end(runtime, container, 137, *LOST)
        runtime.done, runtime.sandbox_ready = True, False
        self._sandbox_gone(runtime)
        self.status.set(runtime)
        self.work.soon(("kubelet-delete", runtime.uid), lambda: self._delete(runtime))

    def _delete(self, runtime: PodRuntime) -> None:
        """The status manager's last step: once the terminal status is written, delete the pod with grace
        period 0."""
        self.status.sync(runtime)
        self.client.as_node(runtime.node).delete("pods", *runtime.key, grace_period=0, uid=runtime.uid)

    # ---- bookkeeping

    def _forget(self, key: PodKey) -> None:
        """The pod this kubelet ran under that name is gone (or replaced)."""
        runtime = self.pods.pop(key, None)
        parked = self._parked.pop(key, None)
        if runtime is not None:
            self.timers.cancel(runtime)
            if not runtime.done:
                self._sandbox_gone(runtime)
        elif parked is not None:
            _uid, node, pod_ip = parked
            self.addresses.release(node, pod_ip)
            self._on_node.get(node, set()).discard(key)

    def _settled(self, runtime: PodRuntime) -> None:
        """Its status is written: a pod that now runs quietly is parked (a hundred thousand runtimes would
        weigh on memory and on every pass of the garbage collector); its status brings it back."""
        if self.pods.get(runtime.key) is not runtime or not self._quiet(runtime):
            return
        self._parked[runtime.key] = (runtime.uid, runtime.node, "" if runtime.done else runtime.pod_ip)
        del self.pods[runtime.key]

    def _quiet(self, runtime: PodRuntime) -> bool:
        """Nothing happens to the pod until it changes: it finished, or its containers run ready with nothing
        asked of them, and it waits for nothing."""
        if runtime.terminating or runtime.gated or self.timers.waiting(runtime):
            return False
        return runtime.done or all(
            container.held is None and not container.pulling and container.behaviour == NORMAL
            and (container.succeeded if container.kind == INIT else container.state == RUNNING and container.ready)
            for container in runtime.containers)

    def _stopped(self, runtime: PodRuntime) -> bool:
        node = self.agents.nodes.get(runtime.node)
        return node is None or node.stopped

    def _seconds_since(self, when: str) -> float:
        try:
            return (self.clock.now() - parse_rfc3339(when)).total_seconds()
        except ValueError:
            return 0.0

    def _now(self) -> str:
        return rfc3339(self.clock.now())

