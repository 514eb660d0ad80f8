"""The simulated cluster's life with the server's: started when the server starts (if the settings say
so), stopped when it stops, started again after a reset or restore.

Its components (`fakeapi.simulation.components`) are made at the first start that simulates: a server
that never simulates never loads them (a third of the package's code, compiled at every start).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fakeapi.cluster import Api
from fakeapi.config import SimulationConfig
from fakeapi.http.faults import Faults
from fakeapi.http.requestlog import RequestLog
from fakeapi.processes.containers import Containers

if TYPE_CHECKING:
    from fakeapi.simulation.components import Components


class Simulation:
    def __init__(self, api: Api, requests: RequestLog, faults: Faults, config: SimulationConfig,
                 containers: Containers) -> None:
        self.api = api
        self.requests = requests
        self.faults = faults
        self.config = config
        self.containers = containers  # what runs inside the containers: their commands, exec, files
        self.components: Components | None = None  # made at the first start that simulates
        self._serving = False  # the server is up (between its startup and cleanup)

    def configure(self, config: SimulationConfig) -> None:
        """New settings, taking effect at the next start (or reset)."""
        self.config = config
        if self.components is not None:
            self.components.configure(config)

    def start(self, fresh: bool = True) -> None:
        """Start the components on the running loop, if the settings say to simulate. `fresh`: the cluster
        starts; else it carries on after a restore."""
        if not self.config.enabled:
            return
        if self.components is None:
            from fakeapi.simulation.components import Components  # (see the module's docstring)

            self.components = Components(self.api, self.requests, self.faults, self.config, self.containers)
        self.components.start(fresh)

    def stop(self) -> None:
        if self.components is not None:
            self.components.stop()

    # ---- the server's life (aiohttp signals and the control API's StateFollower)

    async def on_startup(self, _app: object) -> None:
        self._serving = True
        self.start()

    async def on_cleanup(self, _app: object) -> None:
        self._serving = False
        self.stop()

    def after_reset(self) -> None:
        """A reset emptied the store (and dropped every timer): start again, nodes registering anew (once
        the server is up, if it is not yet)."""
        self.stop()
        if self._serving:
            self.start()

    def after_restore(self) -> None:
        """A snapshot's objects are back: carry on from them."""
        self.stop()
        if self._serving:
            self.start(fresh=False)

    # ---- failures, for tests

    def fail_node(self, name: str) -> None:
        self._with_node(name).fail_node(name)

    def recover_node(self, name: str) -> None:
        self._with_node(name).recover_node(name)

    def _with_node(self, name: str) -> Components:
        if self.components is None:  # never started: no node is simulated
            raise KeyError(f"node {name!r} is not a simulated node")
        return self.components
