"""The controllers at scale, on `fakeapi serve --nodes N` (live clock):

    python benchmarks/controllers.py [--nodes 100] [--replicas 1000] [--jobs 1000] [--idle-objects 10000]

Starts `python -m fakeapi serve --nodes N` on 127.0.0.1 (a free port), waits for its nodes to be Ready, then
reports, each with the time taken and the server's CPU (user + system) meanwhile:

- deployment: a Deployment of `--replicas` pods from its create to `availableReplicas == replicas`, then a
  rolling update of it (a new image) to completion (every replica updated and available, no old one left);
- gc: deleting that Deployment in the background, then (made again) in the foreground, to the last pod gone;
- jobs: `--jobs` Jobs of one pod each (exiting after a second) created at once, as a CronJob burst would,
  to the last Complete condition: Jobs completed per second;
- idle: the server's CPU over 30 s with `--idle-objects` objects (Deployments and their ReplicaSets and pods,
  and ConfigMaps owned by other ConfigMaps) and nothing changing, with every controller; and, for comparison,
  a server started with `--controllers=` (none) holding the same objects but the pods and ReplicaSets no
  controller made there.

Every loop is bounded by a count and a deadline; servers are stopped by their PID.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import aiohttp
import orjson
from serverproc import HOST, free_port, rss_kib, stop, wait_ready

TICKS = os.sysconf("SC_CLK_TCK")
APPS = "/apis/apps/v1/namespaces/default/deployments"
JOBS = "/apis/batch/v1/namespaces/default/jobs"
PODS = "/api/v1/namespaces/default/pods"
CONFIG_MAPS = "/api/v1/namespaces/default/configmaps"
JSON_HEADERS = {"Content-Type": "application/json"}
CONNECTIONS = 16
IDLE_SECONDS = 30


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def deployment(name: str, replicas: int, image: str = "nginx:1.27") -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [{
                         "name": "web", "image": image,
                         "resources": {"requests": {"cpu": "10m", "memory": "16Mi"}}}]}}}}


def job(name: str) -> dict[str, Any]:
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name},
            "spec": {"template": {"metadata": {"annotations": {"fakeapi.dev/exit-after": "1s"}},
                                  "spec": {"restartPolicy": "Never", "containers": [{
                                      "name": "work", "image": "busybox:1.36",
                                      "resources": {"requests": {"cpu": "10m", "memory": "16Mi"}}}]}}}}


class Server:
    def __init__(self, nodes: int, *flags: str) -> None:
        self.port = free_port()
        self.url = f"http://{HOST}:{self.port}"
        self.process = subprocess.Popen(
            [sys.executable, "-m", "fakeapi", "serve", "--host", HOST, "--port", str(self.port), "--nodes",
             str(nodes), "--event-ttl", "3600", *flags], start_new_session=True, stdout=subprocess.DEVNULL)

    def cpu(self) -> float:
        return cpu_seconds(self.process.pid)


async def request(session: aiohttp.ClientSession, method: str, url: str, body: Any = None) -> Any:
    data = orjson.dumps(body) if body is not None else None
    async with session.request(method, url, data=data, headers=JSON_HEADERS) as response:
        payload = await response.read()
        if response.status >= 300:
            raise SystemExit(f"{method} {url}: {response.status} {payload[:300]!r}")
        return orjson.loads(payload) if payload else None


async def wait_until(check: Callable[[], Any], deadline: float, what: str, interval: float = 0.2) -> None:
    while time.monotonic() < deadline:
        if await check():
            return
        await asyncio.sleep(interval)
    raise SystemExit(f"{what}: not done in time")


async def ready_nodes(session: aiohttp.ClientSession, url: str, count: int) -> bool:
    nodes = (await request(session, "GET", url + "/api/v1/nodes"))["items"]
    return sum(any(c.get("type") == "Ready" and c.get("status") == "True" for c in n["status"].get("conditions", []))
               and not n["spec"].get("taints") for n in nodes) >= count


async def pod_count(session: aiohttp.ClientSession, url: str, selector: str) -> int:
    pods = await request(session, "GET", f"{url}{PODS}?labelSelector={selector}")
    return len(pods["items"])


def report(label: str, took: float, cpu: float, extra: str = "") -> None:
    print(f"{label}: {took:.1f} s, server CPU {cpu:.1f} s ({cpu / took * 100:.0f}% of a core){extra}", flush=True)


async def rolled_out(session: aiohttp.ClientSession, url: str, name: str, replicas: int) -> bool:
    d = await request(session, "GET", f"{url}{APPS}/{name}")
    status = d.get("status") or {}
    return bool(status.get("observedGeneration") == d["metadata"]["generation"]
                and status.get("updatedReplicas") == replicas and status.get("replicas") == replicas
                and status.get("availableReplicas") == replicas)


async def bench_deployment(server: Server, session: aiohttp.ClientSession, replicas: int, deadline: float) -> None:
    url = server.url
    cpu, started = server.cpu(), time.monotonic()
    await request(session, "POST", url + APPS, deployment("bench", replicas))
    await wait_until(lambda: rolled_out(session, url, "bench", replicas), deadline, "the deployment")
    report(f"deployment: {replicas} replicas available", time.monotonic() - started, server.cpu() - cpu,
           f"; RSS {rss_kib(server.process.pid) / 1024:.0f} MiB")
    cpu, started = server.cpu(), time.monotonic()
    await request(session, "PUT", f"{url}{APPS}/bench",
                  {**deployment("bench", replicas, "nginx:1.28"),
                   "metadata": (await request(session, "GET", f"{url}{APPS}/bench"))["metadata"]})
    await wait_until(lambda: rolled_out(session, url, "bench", replicas), deadline, "the rolling update")
    report(f"deployment: rolling update of {replicas} replicas complete", time.monotonic() - started,
           server.cpu() - cpu)


async def bench_gc(server: Server, session: aiohttp.ClientSession, replicas: int, deadline: float) -> None:
    url = server.url
    for policy in ("Background", "Foreground"):
        if policy == "Foreground":
            await request(session, "POST", url + APPS, deployment("bench", replicas))
            await wait_until(lambda: rolled_out(session, url, "bench", replicas), deadline, "the deployment")
        await wait_until(lambda: _settled(session, url, replicas), deadline, "old pods gone")
        cpu, started = server.cpu(), time.monotonic()
        await request(session, "DELETE", f"{url}{APPS}/bench", {"propagationPolicy": policy})

        async def gone() -> bool:
            return await pod_count(session, url, "app%3Dbench") == 0

        await wait_until(gone, deadline, f"{policy} garbage collection", 0.1)
        report(f"gc: {policy.lower()} delete of a Deployment of {replicas} pods, to the last pod gone",
               time.monotonic() - started, server.cpu() - cpu)


async def _settled(session: aiohttp.ClientSession, url: str, replicas: int) -> bool:
    """No pod left from a previous rollout (only the current replicas)."""
    return await pod_count(session, url, "app%3Dbench") <= replicas


async def bench_jobs(server: Server, session: aiohttp.ClientSession, count: int, deadline: float) -> None:
    url = server.url
    names = iter(range(count))
    cpu, started = server.cpu(), time.monotonic()

    async def creator() -> None:
        for index in names:
            await request(session, "POST", url + JOBS, job(f"burst-{index}"))

    await asyncio.gather(*(creator() for _ in range(CONNECTIONS)))
    created = time.monotonic()

    async def completed() -> bool:
        jobs = (await request(session, "GET", url + JOBS))["items"]
        return sum(any(c["type"] == "Complete" and c["status"] == "True"
                       for c in (j.get("status") or {}).get("conditions", [])) for j in jobs) >= count

    await wait_until(completed, deadline, "the jobs", 0.5)
    took = time.monotonic() - started
    report(f"jobs: {count} Jobs of one pod each complete", took, server.cpu() - cpu,
           f"; {count / took:.0f} Jobs/s (created in {created - started:.1f} s)")


async def fill(server: Server, session: aiohttp.ClientSession, objects: int, deadline: float,
               controllers: bool) -> int:
    """Deployments of 10 replicas (12 objects each, with their ReplicaSet and pods once the controllers made
    them) for a fifth of the objects, then ConfigMaps owned by ConfigMaps for the rest; returns how many
    objects were made."""
    url = server.url
    deployments = objects // 5 // 12
    for index in range(deployments):
        await request(session, "POST", url + APPS, deployment(f"idle-{index}", 10))
    made = deployments * 12
    owners: list[dict[str, Any]] = []
    remaining = iter(range(objects - made))

    async def creator() -> None:
        for index in remaining:
            metadata: dict[str, Any] = {"name": f"idle-{index}"}
            if owners and index % 10:
                owner = owners[-1]
                metadata["ownerReferences"] = [{"apiVersion": "v1", "kind": "ConfigMap",
                                                "name": owner["metadata"]["name"], "uid": owner["metadata"]["uid"]}]
            created = await request(session, "POST", url + CONFIG_MAPS, {"metadata": metadata, "data": {"k": "v"}})
            if index % 10 == 0:
                owners.append(created)

    await asyncio.gather(*(creator() for _ in range(CONNECTIONS)))

    async def running() -> bool:
        return await pod_count(session, url, "") >= deployments * 10 and all(
            [await rolled_out(session, url, f"idle-{i}", 10) for i in range(0, deployments, max(1, deployments // 10))])

    if controllers:
        await wait_until(running, deadline, "the idle objects", 1.0)
    return objects


async def bench_idle(nodes: int, objects: int, deadline: float) -> None:
    results = {}
    for label, flags in (("every controller", ()), ("no controller", ("--controllers=",))):
        server = Server(nodes, *flags)
        try:
            await wait_ready(server.url, time.monotonic() + 60)
            async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=CONNECTIONS + 2)) as session:
                await wait_until(lambda s=session, srv=server: ready_nodes(s, srv.url, nodes), deadline, "nodes")
                await fill(server, session, objects, deadline, controllers=not flags)
                await asyncio.sleep(10)  # what the writes set going settles
                cpu = server.cpu()
                await asyncio.sleep(IDLE_SECONDS)
                results[label] = (server.cpu() - cpu) / IDLE_SECONDS * 100
        finally:
            stop(server.process)
        print(f"idle: {label}, {objects} objects, {nodes} nodes: server CPU {results[label]:.1f}% of a core",
              flush=True)
    print(f"idle: with the controllers, {results['every controller'] - results['no controller']:.1f}% of a core "
          f"more than without", flush=True)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=100)
    parser.add_argument("--replicas", type=int, default=1000)
    parser.add_argument("--jobs", type=int, default=1000)
    parser.add_argument("--idle-objects", type=int, default=10_000)
    parser.add_argument("--only", choices=("deployment", "gc", "jobs", "idle"), action="append")
    parser.add_argument("--minutes", type=float, default=30.0, help="the whole run's deadline")
    args = parser.parse_args()
    only = set(args.only or ("deployment", "gc", "jobs", "idle"))
    deadline = time.monotonic() + args.minutes * 60
    if only & {"deployment", "gc", "jobs"}:
        server = Server(args.nodes)
        try:
            started = time.monotonic()
            await wait_ready(server.url, started + 60)
            async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=CONNECTIONS + 2)) as session:
                await wait_until(lambda: ready_nodes(session, server.url, args.nodes), deadline, "nodes")
                print(f"{args.nodes} nodes Ready {time.monotonic() - started:.1f} s after start", flush=True)
                if "deployment" in only or "gc" in only:
                    await bench_deployment(server, session, args.replicas, deadline)
                if "gc" in only:
                    await bench_gc(server, session, args.replicas, deadline)
                if "jobs" in only:
                    await bench_jobs(server, session, args.jobs, deadline)
        finally:
            stop(server.process)
    if "idle" in only:
        await bench_idle(args.nodes, args.idle_objects, deadline)


if __name__ == "__main__":
    asyncio.run(main())
