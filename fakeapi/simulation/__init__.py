"""A simulated cluster around the API: kube-scheduler, kubelets and the node controllers, as clients.

Everything it does is ordinary API traffic (the request log and watches show it), and every delay runs
on the server clock: a frozen clock stops it, `advance()` steps it. `fakeapi serve` runs it with one
node; in-process servers run it when asked (`FakeAPIServer(nodes=1)`).
"""

from __future__ import annotations

from aiohttp import web

from fakeapi.simulation.simulation import Simulation

simulation_key = web.AppKey("simulation", Simulation)

__all__ = ["Simulation", "simulation_key"]
