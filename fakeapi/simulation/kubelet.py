"""The pod half of the simulated kubelets: admission, start, readiness, graceful deletion.

A pod bound to a simulated node is admitted as the kubelet's admission does (resources against the
node's allocatable minus the pods it admitted, node affinity, NoExecute taints). A pod that does not fit
is rejected (phase Failed, `OutOfcpu`, `OutOfmemory`, `OutOfpods`, `NodeAffinity`...), its status
written without `qosClass` as kubelets before v1.32 wrote it; the server keeps the class.

An admitted pod gets its first status (Pending, containers waiting in ContainerCreating or
PodInitializing), a sandbox with an address from the node's pod CIDR, then its init containers in
order (each runs for a second and exits 0; a sidecar keeps running), then its containers: `Pulling`
(an image not on the node, or pull policy Always, takes a second to pull), `Pulled`, `Created`,
`Started`. A container is started at once, or after its startup probe's initialDelaySeconds, and ready
at once, or after its readiness probe's initialDelaySeconds; readiness gates hold Ready as upstream.
Each start and exit writes a line to the container's log.

A pod being deleted has its containers stopped (`Killing`, Ready False): they exit 0 a second later,
or with 137 when the grace period ends first; the kubelet writes the terminal status (Succeeded or
Failed) and deletes the pod with grace period 0. Every delay runs on the server clock. While a node's
kubelet is stopped (`fail()`), nothing moves for its pods; it picks up where it was on `recover()`.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from typing import Any

from fakeapi.machinery.clock import Clock, rfc3339
from fakeapi.machinery.patch import create_two_way_merge_patch
from fakeapi.machinery.schemas.patchtree import patch_tree
from fakeapi.machinery.types import JSON
from fakeapi.simulation import conditions, images, podstatus, predicates, resources
from fakeapi.simulation.client import Client
from fakeapi.simulation.events import pod_reference
from fakeapi.simulation.nodes import NodeAgents, NodeKubelet
from fakeapi.simulation.runtime import INIT, MAIN, SIDECAR, Container, PodRuntime, containers_of
from fakeapi.simulation.view import ClusterView, PodInfo, PodKey
from fakeapi.simulation.work import Work

PULL_SECONDS = 1.0  # an image pull
INIT_RUN_SECONDS = 1.0  # an init container's run, to exit 0
STOP_SECONDS = 1.0  # a container's stop after SIGTERM
DEFAULT_GRACE_SECONDS = 30
FIRST_POD_HOST = 2  # pod addresses start at .2 of the node's pod CIDR (.1 is the bridge)


class Kubelet:
    def __init__(self, client: Client, work: Work, view: ClusterView, agents: NodeAgents) -> None:
        self.client = client
        self.work = work
        self.view = view
        self.agents = agents
        self.pods: dict[PodKey, PodRuntime] = {}
        self._on_node: dict[str, dict[PodKey, PodRuntime]] = {}  # the pods each node's kubelet runs
        self._addresses: dict[str, set[int]] = {}  # node -> pod address slots in use
        self._tree = patch_tree(client.api.registry("pods").schema)

    @property
    def clock(self) -> Clock:
        return self.client.api.clock

    def stop(self) -> None:
        for runtime in self.pods.values():
            self._cancel(runtime)
        self.pods.clear()
        self._on_node.clear()
        self._addresses.clear()

    # ---- changes

    def pod_changed(self, old: PodInfo | None, new: PodInfo | None) -> None:
        key = (new or old).key  # type: ignore[union-attr]
        runtime = self.pods.get(key)
        if runtime is not None and (new is None or new.uid != runtime.uid):
            self._forget(runtime)
            runtime = None
        if new is None or new.node not in self.agents.nodes:
            return
        if runtime is None:
            if not new.terminal:
                self._sync_soon(key)
        elif (new.deleting and not runtime.terminating) or (old is not None and old.spec != new.spec) \
                or runtime.gated:
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
            status: JSON = pod.get("status") or {}
            if status.get("hostIP") or status.get("containerStatuses"):
                runtime = self._adopt(info, pod, node)  # a pod this kubelet ran before (a restored snapshot)
            elif not self._admit(info, pod, node):
                return
            else:
                runtime = self._track(info, pod, node)
                self._write(runtime, pod)
                self._sandbox(runtime, pod)
        if info.deleting:
            self._terminate(runtime, pod)
            return
        if runtime.done:
            self._finish(runtime)
            return
        self._write(runtime)
        self._advance(runtime)

    def _admit(self, info: PodInfo, pod: JSON, node: NodeKubelet) -> bool:
        """The kubelet's admission (predicate.go): resources, node affinity, NoExecute taints. A rejected
        pod gets a Warning event and the pre-1.32 rejection status."""
        node_info = self.view.nodes.get(node.name)
        if node_info is None:
            return False
        admitted = [other for other in self._on_node.get(node.name, {}).values() if not other.done]
        used: resources.Resources = {}
        for other in admitted:
            other_info = self.view.pods.get(other.key)
            if other_info is not None:
                resources.add(used, other_info.requests)
        spec: JSON = pod.get("spec") or {}
        shortages = resources.shortages(info.requests, len(admitted), used, node_info.allocatable)
        if shortages:
            shortage = shortages[0]
            reason = f"OutOf{shortage.resource}"
            message = (f"Node didn't have enough resource: {shortage.resource}, requested: {shortage.requested}, "
                       f"used: {shortage.used}, capacity: {shortage.capacity}")
        elif not predicates.matches_node_selector(spec, node.name, node_info.labels):
            reason = "NodeAffinity"
            message = "Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector"
        elif predicates.first_untolerated(node_info.taints, spec.get("tolerations") or [], ("NoExecute",)):
            reason = "TaintToleration"
            message = "Predicate TaintToleration failed: node(s) had taints that the pod didn't tolerate"
        else:
            return True
        node.events.warning(pod_reference(pod), reason, message)
        old: JSON = pod.get("status") or {}
        new = podstatus.rejected(reason, message, old.get("startTime") or self._now())
        self._patch_status(pod, old, new)
        return False

    def _track(self, info: PodInfo, pod: JSON, node: NodeKubelet) -> PodRuntime:
        spec: JSON = pod.get("spec") or {}
        runtime = PodRuntime(info.key, info.uid, node.name, containers_of(spec), host_ip=node.internal_ip,
                             start_time=(pod.get("status") or {}).get("startTime") or self._now(),
                             gated=bool(spec.get("readinessGates")))
        self.pods[info.key] = runtime
        self._on_node.setdefault(node.name, {})[info.key] = runtime
        return runtime

    def _sandbox(self, runtime: PodRuntime, pod: JSON) -> None:
        """The pod sandbox: its network namespace and address (the node's, for hostNetwork pods)."""
        if (pod.get("spec") or {}).get("hostNetwork"):
            runtime.pod_ip = runtime.host_ip
        else:
            runtime.pod_ip = self._allocate_ip(runtime.node)
        runtime.sandbox_ready = True

    def _adopt(self, info: PodInfo, pod: JSON, node: NodeKubelet) -> PodRuntime:
        """Take over a pod as its status shows it (a kubelet carrying on after a restore)."""
        runtime = self._track(info, pod, node)
        status: JSON = pod.get("status") or {}
        runtime.host_ip = status.get("hostIP") or runtime.host_ip
        runtime.pod_ip = status.get("podIP") or ""
        runtime.sandbox_ready = bool(runtime.pod_ip)
        self._reserve_ip(runtime)
        statuses = {item.get("name"): item for key in ("initContainerStatuses", "containerStatuses")
                    for item in status.get(key) or []}
        for container in runtime.containers:
            seen: JSON = statuses.get(container.name) or {}
            state: JSON = seen.get("state") or {}
            container.container_id = seen.get("containerID") or ""
            container.ready, container.started = bool(seen.get("ready")), bool(seen.get("started"))
            container.restart_count = int(seen.get("restartCount") or 0)
            if "running" in state:
                container.state, container.reason = "running", ""
                container.started_at = state["running"].get("startedAt") or ""
            elif "terminated" in state:
                ended: JSON = state["terminated"]
                container.state, container.reason = "terminated", ended.get("reason") or ""
                container.exit_code = int(ended.get("exitCode") or 0)
                container.started_at = ended.get("startedAt") or ""
                container.finished_at = ended.get("finishedAt") or ""
        return runtime

    # ---- starting containers

    def _advance(self, runtime: PodRuntime) -> None:
        """Start the next container the pod is waiting for: init containers one by one, then the others."""
        if runtime.terminating or self._stopped(runtime):
            return
        for container in runtime.containers:
            if container.kind == INIT and container.state == "terminated" and container.exit_code == 0:
                continue
            if container.kind in (INIT, SIDECAR) and container.state != "waiting":
                if container.kind == INIT or not container.started:
                    return  # running (an init container), or a sidecar not started yet
                continue
            if container.state == "waiting":
                self._start(runtime, container)
                return

    def _start(self, runtime: PodRuntime, container: Container) -> None:
        pod = self.client.api.registry("pods").find(*runtime.key)
        if pod is None or container.pulling:
            return
        node = self.agents.nodes[runtime.node]
        ref = pod_reference(pod, _field_path(container))
        policy = container.spec.get("imagePullPolicy") or "IfNotPresent"
        present = images.normalized(container.image) in node.images
        if policy == "Never" and not present:
            message = f'Container image "{container.image}" is not present with pull policy of Never'
            node.events.warning(ref, "ErrImageNeverPull", message)
            container.reason, container.message = "ErrImageNeverPull", message
            self._write(runtime)
            return
        if policy == "Always" or not present:
            node.events.normal(ref, "Pulling", f'Pulling image "{container.image}"')
            container.pulling = True
            self._later(runtime, PULL_SECONDS, lambda: self._pulled(runtime, container))
            return
        node.events.normal(ref, "Pulled", f'Container image "{container.image}" already present on machine')
        self._run(runtime, container)

    def _pulled(self, runtime: PodRuntime, container: Container) -> None:
        container.pulling = False
        pod = self.client.api.registry("pods").find(*runtime.key)
        if pod is None or runtime.terminating or self._stopped(runtime):
            return
        node = self.agents.nodes[runtime.node]
        node.images.add(images.normalized(container.image))
        took = images.go_duration(PULL_SECONDS)
        node.events.normal(pod_reference(pod, _field_path(container)), "Pulled",
                           f'Successfully pulled image "{container.image}" in {took} ({took} including waiting). '
                           f"Image size: {images.image_size(container.image)} bytes.")
        self._run(runtime, container)

    def _run(self, runtime: PodRuntime, container: Container) -> None:
        """Create and start the container; it runs, started and ready as its probes allow."""
        pod = self.client.api.registry("pods").find(*runtime.key)
        if pod is None:
            return
        events = self.agents.nodes[runtime.node].events
        ref = pod_reference(pod, _field_path(container))
        container.container_id = images.container_id(runtime.uid, container.name, container.restart_count)
        events.normal(ref, "Created", f"Created container: {container.name}")
        events.normal(ref, "Started", f"Started container {container.name}")
        container.state, container.reason, container.message = "running", "", ""
        container.started_at = self._now()
        self._log(runtime, container, f'started container "{container.name}" (image "{container.image}")')
        if container.kind == INIT:
            container.started = True
            self._later(runtime, INIT_RUN_SECONDS, lambda: self._exited(runtime, container, 0))
        else:
            startup = container.spec.get("startupProbe")
            if startup:
                self._later(runtime, _initial_delay(startup), lambda: self._started(runtime, container))
            else:
                self._started(runtime, container, write=False)
        self._write(runtime)
        self._advance(runtime)

    def _started(self, runtime: PodRuntime, container: Container, write: bool = True) -> None:
        """The startup probe passed (or there is none): readiness probing begins."""
        if container.state != "running" or runtime.terminating:
            return
        container.started = True
        readiness = container.spec.get("readinessProbe")
        if readiness and _initial_delay(readiness) > 0:
            self._later(runtime, _initial_delay(readiness), lambda: self._ready(runtime, container))
        else:
            container.ready = True
        if write:
            self._write(runtime)
            self._advance(runtime)

    def _ready(self, runtime: PodRuntime, container: Container) -> None:
        if container.state == "running" and not runtime.terminating:
            container.ready = True
            self._write(runtime)

    def _exited(self, runtime: PodRuntime, container: Container, code: int) -> None:
        if container.state != "running" or runtime.terminating:
            return
        self._end(runtime, container, code, "Completed" if code == 0 else "Error")
        container.ready = container.kind == INIT and code == 0  # a finished init container reads ready
        self._write(runtime)
        self._advance(runtime)

    def _end(self, runtime: PodRuntime, container: Container, code: int, reason: str, message: str = "") -> None:
        container.state, container.exit_code, container.reason, container.message = "terminated", code, reason, message
        container.finished_at = self._now()
        container.ready = container.started = False
        self._log(runtime, container, f'container "{container.name}" exited with code {code}')

    # ---- stopping a deleted pod

    def _terminate(self, runtime: PodRuntime, pod: JSON) -> None:
        """Stop the containers of a pod being deleted: Killing, Ready False, then they exit."""
        if runtime.done:
            self._finish(runtime)
            return
        if runtime.terminating:
            if not runtime.timers:  # its kubelet was stopped meanwhile: stop them now
                self._stop_containers(runtime, graceful=True)
            return
        runtime.terminating = True
        self._cancel(runtime)
        events = self.agents.nodes[runtime.node].events
        for container in runtime.containers:
            container.pulling = False
            if container.state == "running":
                events.normal(pod_reference(pod, _field_path(container)), "Killing",
                              f"Stopping container {container.name}")
            container.ready = False
        self._write(runtime, pod)
        grace = pod["metadata"].get("deletionGracePeriodSeconds")
        grace = DEFAULT_GRACE_SECONDS if grace is None else grace
        self._later(runtime, min(grace, STOP_SECONDS), lambda: self._stop_containers(runtime, STOP_SECONDS <= grace))

    def _stop_containers(self, runtime: PodRuntime, graceful: bool) -> None:
        """The containers are gone (0 after a clean SIGTERM, 137 when killed): the terminal status, then the
        kubelet's delete. Containers that never ran, in a pod past its init containers, were lost (137)."""
        if self._stopped(runtime):
            runtime.timers.clear()  # picked up again when the node recovers
            return
        initialized = all(container.state == "terminated" and container.exit_code == 0
                          or container.kind == SIDECAR for container in runtime.of_kind(INIT, SIDECAR))
        for container in runtime.containers:
            if container.state == "running":
                self._end(runtime, container, 0 if graceful else 137, "Completed" if graceful else "Error")
            elif container.state == "waiting" and (initialized or container.kind != MAIN):
                self._end(runtime, container, 137, "ContainerStatusUnknown",
                          "The container could not be located when the pod was terminated")
        runtime.done, runtime.sandbox_ready = True, False
        self._release_ip(runtime)
        self._write(runtime)
        self._finish(runtime)

    def _finish(self, runtime: PodRuntime) -> None:
        """The status manager's last step: delete the pod, now terminal, with grace period 0."""
        self.client.as_node(runtime.node).delete("pods", *runtime.key, grace_period=0, uid=runtime.uid)

    # ---- status

    def _write(self, runtime: PodRuntime, pod: JSON | None = None) -> None:
        """PATCH pods/status with the status generated now, if it differs from the pod's."""
        if self._stopped(runtime):
            return
        pod = pod or self.client.api.registry("pods").find(*runtime.key)
        if pod is None or pod["metadata"].get("uid") != runtime.uid:
            return
        old: JSON = pod.get("status") or {}
        new = podstatus.generate(pod, runtime, self._now())
        if runtime.done and new["phase"] not in ("Succeeded", "Failed"):
            new["phase"] = "Failed"  # TerminatePod: a terminal pod is Failed unless it succeeded
        self._patch_status(pod, old, new)

    def _patch_status(self, pod: JSON, old: JSON, new: JSON) -> None:
        """The status manager's patch: a two-way strategic merge patch, with the pod's uid as precondition."""
        patch = create_two_way_merge_patch({"status": conditions.as_decoded(old)}, {"status": new}, self._tree)
        if patch:
            meta: JSON = pod["metadata"]
            self.client.as_node(pod["spec"].get("nodeName", "")).patch(
                "pods", meta.get("namespace", ""), meta["name"], {"metadata": {"uid": meta.get("uid", "")}, **patch},
                "status")

    # ---- addresses, logs, timers

    def _allocate_ip(self, node: str) -> str:
        info = self.view.nodes.get(node)
        if info is None or not info.pod_cidr:
            return ""
        network = ipaddress.ip_network(info.pod_cidr, strict=False)
        used = self._addresses.setdefault(node, set())
        slot = next((index for index in range(FIRST_POD_HOST, network.num_addresses - 1) if index not in used), None)
        if slot is None:
            return ""
        used.add(slot)
        return str(network.network_address + slot)

    def _reserve_ip(self, runtime: PodRuntime) -> None:
        info = self.view.nodes.get(runtime.node)
        if info is None or not info.pod_cidr or not runtime.pod_ip or runtime.pod_ip == runtime.host_ip:
            return
        try:
            slot = int(ipaddress.ip_address(runtime.pod_ip)) - int(ipaddress.ip_network(info.pod_cidr,
                                                                                          strict=False).network_address)
        except ValueError:
            return
        self._addresses.setdefault(runtime.node, set()).add(slot)

    def _release_ip(self, runtime: PodRuntime) -> None:
        info = self.view.nodes.get(runtime.node)
        used = self._addresses.get(runtime.node)
        if info is None or used is None or not runtime.pod_ip or not info.pod_cidr:
            return
        try:
            network = ipaddress.ip_network(info.pod_cidr, strict=False)
            used.discard(int(ipaddress.ip_address(runtime.pod_ip)) - int(network.network_address))
        except ValueError:
            return

    def _log(self, runtime: PodRuntime, container: Container, line: str) -> None:
        api = self.client.api
        api.pod_logs.append(runtime.key[0], runtime.key[1], container.name, f"fakeapi: {line}\n", api.clock.now())

    def _later(self, runtime: PodRuntime, seconds: float, step: Callable[[], None]) -> None:
        holder: list[Any] = []

        def run() -> None:
            runtime.timers.discard(holder[0])
            step()

        timer = self.work.later(seconds, run)
        holder.append(timer)
        runtime.timers.add(timer)

    def _cancel(self, runtime: PodRuntime) -> None:
        for timer in runtime.timers:
            self.work.cancel(timer)
        runtime.timers.clear()

    def _forget(self, runtime: PodRuntime) -> None:
        self._cancel(runtime)
        if not runtime.done:
            self._release_ip(runtime)
        self.pods.pop(runtime.key, None)
        self._on_node.get(runtime.node, {}).pop(runtime.key, None)

    def _stopped(self, runtime: PodRuntime) -> bool:
        node = self.agents.nodes.get(runtime.node)
        return node is None or node.stopped

    def _now(self) -> str:
        return rfc3339(self.clock.now())


def _field_path(container: Container) -> str:
    section = "containers" if container.kind == MAIN else "initContainers"
    return f"spec.{section}{{{container.name}}}"


def _initial_delay(probe: JSON) -> float:
    delay = probe.get("initialDelaySeconds")
    return float(delay) if isinstance(delay, int) and delay > 0 else 0.0
