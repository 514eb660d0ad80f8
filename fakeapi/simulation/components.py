"""The simulated cluster's components, fed with the store's changes (`Simulation` starts and stops them).

The components are API clients. The view of the cluster is kept from the store's change events (as
informers keep theirs); each component reacts by queueing steps that run after the change, and acts
through the registries as its upstream counterpart acts through the API.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial

from fakeapi.cluster import Api
from fakeapi.config import SimulationConfig
from fakeapi.http.faults import Faults
from fakeapi.http.requestlog import RequestLog
from fakeapi.machinery.errors import NotFound
from fakeapi.processes.containers import Containers
from fakeapi.simulation.client import SCHEDULER, Client, controller, kubelet
from fakeapi.simulation.controllers import names as controller_names
from fakeapi.simulation.controllers.context import Context
from fakeapi.simulation.controllers.informers import Informers
from fakeapi.simulation.controllers.manager import ControllerManager
from fakeapi.simulation.events import EventNames
from fakeapi.simulation.kubelet import Kubelet
from fakeapi.simulation.nodelifecycle import NodeLifecycle
from fakeapi.simulation.nodes import NodeAgents
from fakeapi.simulation.podcidrs import PodCIDRAllocator
from fakeapi.simulation.scheduler import Scheduler
from fakeapi.simulation.tainteviction import TaintEviction
from fakeapi.simulation.view import LEASES, ClusterView, PodInfo
from fakeapi.simulation.work import Work
from fakeapi.storage.store import Event

NODES_PER_STEP = 20  # kubelets started per step of the start, so that requests are answered meanwhile


class Components:
    def __init__(self, api: Api, requests: RequestLog, faults: Faults, config: SimulationConfig,
                 containers: Containers) -> None:
        self.api = api
        self.config = config
        self.containers = containers
        self.work = Work(api.clock, storage_waits=api.store.shared)
        self.view = ClusterView()
        names = EventNames(api.clock)
        node_controller = Client(api, requests, faults, controller("node-controller"))
        kubelets = Client(api, requests, faults, kubelet(""))  # each call made as_node(the node)
        self.nodes = NodeAgents(kubelets, names, self.work, self.view, api.ids, config.node_capacity, self._run_pods)
        self.pod_cidrs = PodCIDRAllocator(node_controller, self.work)
        self.lifecycle = NodeLifecycle(node_controller, names, self.work, self.view)
        self.scheduler = Scheduler(Client(api, requests, faults, SCHEDULER), names, self.work, self.view)
        self.eviction = TaintEviction(Client(api, requests, faults, controller("taint-eviction-controller")), names,
                                      self.work, self.view)
        self.kubelet = Kubelet(kubelets, self.work, self.view, self.nodes, containers)
        self._controller_context = (requests, faults, names)
        self.controllers = self._controller_manager()
        self._running = False
        self._starting: set[str] = set()  # the nodes whose kubelets are starting

    def _controller_manager(self) -> ControllerManager:
        """kube-controller-manager with the controllers the settings enable, and informers of its own."""
        requests, faults, names = self._controller_context
        context = Context(self.api, requests, faults, names, self.work, Informers())
        return ControllerManager(context, controller_names.enabled(self.config.controllers))

    # ---- running

    def configure(self, config: SimulationConfig) -> None:
        """New settings, taking effect at the next start (or reset)."""
        self.config = config
        self.nodes.capacity = dict(config.node_capacity)

    def start(self, fresh: bool = True) -> None:
        """Start on the running loop: take in the objects there are; then, a few nodes per step, start the
        kubelets of the nodes there are and register the configured nodes; then take up the pods (so they meet
        the nodes ready). `fresh`: the cluster starts; else it carries on after a restore."""
        if self._running:
            return
        self._running = True
        self.work.start(asyncio.get_running_loop())
        self.view.load(self.api.store)
        self.api.store.subscribe(self._on_event)
        for info in self.view.nodes.values():
            self.pod_cidrs.node_changed(None, info)
        existing = [info.name for info in self.view.nodes.values() if info.simulated]
        starts = {name: partial(self.nodes.adopt, name, fresh) for name in existing}
        for index in range(self.config.nodes if fresh else 0):
            name = f"node-{index + 1}"
            if name not in starts:
                starts[name] = partial(self.nodes.register, name, self.config.node_capacity, self.config.node_labels)
        self._starting = set(starts)
        # queued first: the first turn of the loop registers the first nodes, whatever the controllers queue
        self.work.soon(("start",), partial(self._start_nodes, list(starts.items())))
        self.lifecycle.start(record_registrations=fresh)
        self.controllers = self._controller_manager()  # (the settings may have changed since)
        self.controllers.start()

    def _start_nodes(self, starts: list[tuple[str, Callable[[], None]]]) -> None:
        """Start a few kubelets, then queue the rest: requests are answered meanwhile. One that fails is
        retried on its own (the pods are taken up once every kubelet started)."""
        for name, start in starts[:NODES_PER_STEP]:
            try:
                self._start_node(name, start)
            except Exception as error:
                self.work.retry_later(("start-node", name), partial(self._start_node, name, start), error)
        if starts[NODES_PER_STEP:]:
            self.work.soon(("start",), partial(self._start_nodes, starts[NODES_PER_STEP:]))
        elif not starts:
            self.work.soon(("start",), self._take_up_pods)

    def _start_node(self, name: str, start: Callable[[], None]) -> None:
        try:
            start()
        except NotFound:
            pass  # deleted meanwhile
        self._starting.discard(name)
        if not self._starting:  # queued after what the nodes' registrations queued: the pods find them ready
            self.work.soon(("start",), self._take_up_pods)

    def _take_up_pods(self) -> None:
        for pod in list(self.view.pods.values()):
            self._pod_changed(None, pod)

    def stop(self) -> None:
        if not self._running:
            return
        self._running = False
        self.api.store.unsubscribe(self._on_event)
        self.work.stop()
        self.nodes.stop()
        self.lifecycle.stop()
        self.scheduler.stop()
        self.eviction.stop()
        self.kubelet.stop()
        self.controllers.stop()
        self.containers.unreachable.clear()
        self.pod_cidrs.clear()
        self.view.clear()

    # ---- failures, for tests

    def fail_node(self, name: str) -> None:
        """Stop the node's kubelet: no lease, no status, and the apiserver cannot reach it (exec, attach and
        port-forward to its pods fail)."""
        self.nodes.fail(name)
        self.containers.unreachable.add(name)

    def recover_node(self, name: str) -> None:
        self.nodes.recover(name)
        self.containers.unreachable.discard(name)

    # ---- changes

    def _on_event(self, event: Event) -> None:
        """Store listener: update the view, then let each component queue what the change calls for."""
        if event.key.resource in ("configmaps", "secrets"):
            self.controllers.on_event(event, None)
            if self.config.runs_pods:
                self.kubelet.references_changed(event.key.namespace)
            return
        change = self.view.apply(event)
        self.controllers.on_event(event, change.obj if change is not None else None)
        if change is None:
            return
        resource = event.key.resource
        if resource == "nodes":
            self.pod_cidrs.node_changed(change.old, change.new)
            self.nodes.node_changed(change.old, change.new)
            self.lifecycle.node_changed(change.old, change.new)
            self.scheduler.node_changed(change.old, change.new)
            self.eviction.node_changed(change.old, change.new)
        elif resource == "pods":
            self._pod_changed(change.old, change.new)
        elif resource == LEASES:
            if change.new is not None and change.new != change.old:
                self.lifecycle.lease_renewed(event.key.name)

    def _pod_changed(self, old: PodInfo | None, new: PodInfo | None) -> None:
        self.scheduler.pod_changed(old, new)
        self.eviction.pod_changed(old, new)
        if self.config.runs_pods:
            self.kubelet.pod_changed(old, new)

    def _run_pods(self, name: str) -> None:
        """A node's kubelet started, or runs again: its pods carry on (or start)."""
        if self.config.runs_pods:
            self.kubelet.run_node(name)
