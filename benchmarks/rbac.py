"""The cost of authorization: GETs and creates of pods as a user under `--authorization-mode RBAC` with
1,000 RoleBindings in the namespace, against the same under AlwaysAllow, in one run.

    python benchmarks/rbac.py [--bindings 1000] [--pods 1000] [--seconds 3]

Starts two `python -m fakeapi serve` processes on 127.0.0.1 with the same token file (an admin in
system:masters, who writes the bindings, and the user `bench` the measured requests are from); the RBAC
server gets `--bindings` RoleBindings of other users plus one that binds `edit` to the group `bench`.
The phases alternate between the two servers for `--rounds` rounds and each server's best round counts
(on a shared machine a neighbour's load hits one phase, not the best of several), with the server
process's CPU time per request (its median round), which that load moves much less; the ratios printed
are RBAC's throughput over AlwaysAllow's and AlwaysAllow's CPU per request over RBAC's (1.0: no cost).
Servers are stopped by their PIDs.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import aiohttp
import orjson
from serverproc import HOST, free_port, stop, wait_ready

CONNECTIONS = 16
TOKENS = 'admin-token,admin,1,"system:masters"\nbench-token,bench,2,"bench"\n'
ADMIN = {"Authorization": "Bearer admin-token", "Content-Type": "application/json"}
BENCH = {"Authorization": "Bearer bench-token", "Content-Type": "application/json"}
BINDINGS = "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings"
PODS = "/api/v1/namespaces/default/pods"


def pod(name: str) -> bytes:
    return orjson.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": {"app": "web"}},
                         "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]}})


def binding(name: str, kind: str, subject: str, role: str) -> bytes:
    return orjson.dumps({"metadata": {"name": name}, "roleRef": {"kind": "ClusterRole", "name": role},
                         "subjects": [{"kind": kind, "name": subject}]})


async def rate(count: int, seconds: float, call: Callable[[int], Awaitable[None]]) -> tuple[float, int]:
    """Calls per second over CONNECTIONS workers, bounded by a count and a deadline, and the calls made."""
    indexes = iter(range(count))
    deadline = time.monotonic() + seconds
    done = 0

    async def worker() -> None:
        nonlocal done
        for index in indexes:
            if time.monotonic() > deadline:
                return
            await call(index)
            done += 1

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(CONNECTIONS)))
    return done / (time.perf_counter() - started), done


def cpu_seconds(pid: int) -> float:
    """The process's user and system CPU time so far."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def measure(session: aiohttp.ClientSession, url: str, prefix: str, args: argparse.Namespace,
                  pid: int) -> dict[str, tuple[float, float]]:
    """Per phase: requests per second, and the server's CPU microseconds per request."""
    async def create(i: int) -> None:
        async with session.post(url + PODS, data=pod(f"{prefix}-{i}"), headers=BENCH) as response:
            assert response.status == 201, await response.text()

    async def get(i: int) -> None:
        async with session.get(f"{url}{PODS}/{prefix}-{i % args.pods}", headers=BENCH) as response:
            assert response.status == 200, await response.text()
            await response.read()

    figures: dict[str, tuple[float, float]] = {}
    for phase, count, seconds, call in (("create", args.pods, args.seconds * 4, create),
                                        ("get", 30_000, args.seconds, get)):
        before = cpu_seconds(pid)
        per_second, done = await rate(count, seconds, call)
        figures[phase] = (per_second, (cpu_seconds(pid) - before) * 1e6 / max(done, 1))
    return figures


async def run(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as directory:
        tokens = Path(directory) / "tokens.csv"
        tokens.write_text(TOKENS)
        servers: dict[str, tuple[str, subprocess.Popen[bytes]]] = {}
        try:
            for mode in ("AlwaysAllow", "RBAC"):
                port = free_port()
                process = subprocess.Popen(
                    [sys.executable, "-m", "fakeapi", "serve", "--port", str(port), "--simulate", "none",
                     "--token-auth-file", str(tokens), "--authorization-mode", mode],
                    stdout=subprocess.DEVNULL, start_new_session=True)
                servers[mode] = (f"http://{HOST}:{port}", process)
                await wait_ready(servers[mode][0], time.monotonic() + 30)
            connector = aiohttp.TCPConnector(limit=CONNECTIONS)
            async with aiohttp.ClientSession(connector=connector) as session:
                rbac_url = servers["RBAC"][0]
                for i in range(args.bindings):
                    async with session.post(rbac_url + BINDINGS, data=binding(f"rb-{i}", "User", f"user-{i}", "view"),
                                            headers=ADMIN) as response:
                        assert response.status == 201, await response.text()
                async with session.post(rbac_url + BINDINGS, data=binding("bench-edit", "Group", "bench", "edit"),
                                        headers=ADMIN) as response:
                    assert response.status == 201, await response.text()
                rates: dict[str, dict[str, float]] = {mode: {"get": 0.0, "create": 0.0} for mode in servers}
                cpu: dict[str, dict[str, list[float]]] = {mode: {"get": [], "create": []} for mode in servers}
                for round_ in range(args.rounds):
                    for mode, (url, process) in servers.items():
                        measured = await measure(session, url, f"r{round_}", args, process.pid)
                        for phase, (per_second, micros) in measured.items():
                            rates[mode][phase] = max(rates[mode][phase], per_second)
                            cpu[mode][phase].append(micros)
        finally:
            for _, process in servers.values():
                stop(process, 5)
    print(f"{'':<8} {'AlwaysAllow':>12} {'RBAC':>12} {'ratio':>7}   {'server CPU per request':>26} {'ratio':>7}"
          f"   ({args.bindings} RoleBindings, best rate and median CPU of {args.rounds} rounds)")
    for phase in ("get", "create"):
        allow, rbac = rates["AlwaysAllow"][phase], rates["RBAC"][phase]
        allow_cpu, rbac_cpu = (statistics.median(cpu[mode][phase]) for mode in ("AlwaysAllow", "RBAC"))
        print(f"{phase:<8} {allow:>10.0f}/s {rbac:>10.0f}/s {rbac / allow:>7.2f}   {allow_cpu:>9.0f} us "
              f"{rbac_cpu:>9.0f} us   {allow_cpu / rbac_cpu:>7.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bindings", type=int, default=1000)
    parser.add_argument("--pods", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=2.0, help="time limit per GET phase (creates: 4x)")
    parser.add_argument("--rounds", type=int, default=5)
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
