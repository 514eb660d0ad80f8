"""What every controller is made with: the API, its own client (its upstream service account), the shared
informers, the simulation's to-do list on the server clock, and an event recorder."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from fakeapi.cluster import Api
from fakeapi.http.faults import Faults
from fakeapi.http.requestlog import RequestLog
from fakeapi.simulation.client import Client, controller
from fakeapi.simulation.controllers.informers import Informers
from fakeapi.simulation.events import EventNames, EventRecorder
from fakeapi.simulation.work import Work


@dataclass
class Context:
    api: Api
    requests: RequestLog
    faults: Faults
    names: EventNames
    work: Work
    informers: Informers

    def now(self) -> datetime:
        return self.api.clock.now()

    def client(self, service_account: str) -> Client:
        """A client with the credentials of kube-controller-manager's `service_account` (the request log's
        user; the field manager is kube-controller-manager's)."""
        return Client(self.api, self.requests, self.faults, controller(service_account))

    def recorder(self, client: Client, component: str) -> EventRecorder:
        """Events recorded as `component` (the source kube-controller-manager gives the controller)."""
        return EventRecorder(client, self.names, self.work, component)
