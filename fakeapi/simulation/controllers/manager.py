"""kube-controller-manager in the simulated cluster: the controllers `--controllers` enables, their shared
informers, and their start (after a server start, a reset or a restore: the informers list what is stored and
each controller goes through it, as after a restart of the real one) and stop."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Protocol

from fakeapi.machinery.types import JSON
from fakeapi.simulation.controllers import names
from fakeapi.simulation.controllers.context import Context
from fakeapi.simulation.controllers.cronjob import CronJobController
from fakeapi.simulation.controllers.daemonset import DaemonSetController
from fakeapi.simulation.controllers.deployment import DeploymentController
from fakeapi.simulation.controllers.disruption import DisruptionController
from fakeapi.simulation.controllers.endpoints import EndpointsController
from fakeapi.simulation.controllers.endpointslice import EndpointSliceController
from fakeapi.simulation.controllers.garbagecollector import GarbageCollector
from fakeapi.simulation.controllers.job import JobController
from fakeapi.simulation.controllers.replicaset import REPLICATION_CONTROLLERS, ReplicaSetController
from fakeapi.simulation.controllers.statefulset import StatefulSetController
from fakeapi.simulation.controllers.ttlafterfinished import TTLAfterFinishedController
from fakeapi.storage.store import Event


class Controller(Protocol):
    def start(self) -> None:
        """The informers are filled: queue the work what exists calls for."""
        ...

    def stop(self) -> None:
        """Forget what waits on the clock (the to-do list itself is emptied by its owner)."""
        ...


# the controllers fakeapi runs, by their kube-controller-manager names, in the order they are started
CONTROLLERS: tuple[tuple[str, Callable[[Context], Controller]], ...] = (
    (names.GARBAGE_COLLECTOR, GarbageCollector),
    (names.DEPLOYMENT, DeploymentController),
    (names.REPLICASET, ReplicaSetController),
    (names.REPLICATION_CONTROLLER, lambda context: ReplicaSetController(context, REPLICATION_CONTROLLERS)),
    (names.JOB, JobController),
    (names.CRONJOB, CronJobController),
    (names.TTL_AFTER_FINISHED, TTLAfterFinishedController),
    (names.DAEMONSET, DaemonSetController),
    (names.STATEFULSET, StatefulSetController),
    (names.ENDPOINTS, EndpointsController),
    (names.ENDPOINTSLICE, EndpointSliceController),
    (names.DISRUPTION, DisruptionController),
)


class ControllerManager:
    def __init__(self, context: Context, enabled: Iterable[str]) -> None:
        self.context = context
        chosen = set(enabled)
        self.controllers: dict[str, Controller] = {name: make(context) for name, make in CONTROLLERS
                                                   if name in chosen}

    def start(self) -> None:
        self.context.informers.load(self.context.api.store)
        for controller in self.controllers.values():
            controller.start()

    def stop(self) -> None:
        for controller in self.controllers.values():
            controller.stop()
        self.context.informers.clear()

    def on_event(self, event: Event, obj: JSON | None) -> None:
        """A store change (`obj`: the object, if parsed already): the informers take it in and tell the
        controllers."""
        self.context.informers.apply(event, obj)
