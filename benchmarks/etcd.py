"""The etcd store against the in-memory one, and replicas on one etcd.

    python benchmarks/etcd.py [--writes 2000] [--events 5000] [--nodes 100] [--pods 2000]
    python benchmarks/etcd.py --phases cluster --nodes 5000 --pods 20000 --etcd-dir /dev/shm

Starts an etcd (the `etcd` binary: Debian's etcd-server) on free loopback ports with its data in a
temporary folder (under `--etcd-dir`: /dev/shm keeps it in memory, without disk flushes), and
`python -m fakeapi serve` servers, then reports (`--phases`: which of them to run):

- api: creates, status writes (PUT pods/status) and GETs per second over 16 connections, on a server in
  memory and on one on etcd, in the same run, and their ratio (etcd / memory);
- watch: two replicas on etcd; one takes `--events` ConfigMap creates over 16 connections while a watch on
  the other counts what it receives: events/s from the first to the last;
- cluster: `--replicas` servers (2) with `--nodes N` simulated nodes: the seconds until every node is
  Ready and the CPU the servers and etcd then spend a second with idle nodes (their Lease renewals); then
  `--pods` pods created over every replica until each one is Running (followed by a watch): pods/s, the
  CPU time per pod of each process, and each one's RSS (the leader runs the simulation).

Every loop is bounded by a count and a deadline; every process is stopped by its PID.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import aiohttp
import orjson
from serverproc import HOST, free_port, rss_kib, stop, wait_ready

NODES = "/api/v1/nodes"

CONNECTIONS = 16
PODS = "/api/v1/namespaces/default/pods"
CONFIG_MAPS = "/api/v1/namespaces/default/configmaps"
DEADLINE = 3600.0  # seconds any phase may take
PROGRESS_SECONDS = 60.0
IDLE_SECONDS = 20.0  # how long the CPU of a cluster with idle nodes is measured


def start_etcd(folder: Path) -> tuple[subprocess.Popen[bytes], str]:
    binary = shutil.which("etcd") or "/usr/bin/etcd"
    port, peer = free_port(), free_port()
    url, peer_url = f"http://{HOST}:{port}", f"http://{HOST}:{peer}"
    process = subprocess.Popen(
        [binary, "--data-dir", str(folder / "etcd"), "--listen-client-urls", url, "--advertise-client-urls", url,
         "--listen-peer-urls", peer_url, "--initial-advertise-peer-urls", peer_url,
         "--initial-cluster", f"default={peer_url}", "--quota-backend-bytes", str(8 * 1024 ** 3),
         "--log-level", "warn"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 30
    import urllib.request

    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url + "/health", timeout=1):
                return process, url
        except OSError:
            time.sleep(0.1)
    stop(process)
    raise SystemExit("etcd did not start")


def start_server(*args: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "fakeapi", "serve", "--port", str(port), *args],
                               stdout=subprocess.DEVNULL, start_new_session=True)
    url = f"http://{HOST}:{port}"
    asyncio.run(wait_ready(url, time.monotonic() + 60))
    return process, url


def pod(name: str) -> bytes:
    return orjson.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": {"app": "bench"}},
                         "spec": {"containers": [{"name": "web", "image": "nginx:1.27", "resources": {
                             "requests": {"cpu": "10m", "memory": "16Mi"}}}]}})


async def spread(count: int, call: object, deadline: float = DEADLINE) -> float:
    """Run `call(index)` for every index over CONNECTIONS workers: the seconds it took."""
    queue = iter(range(count))
    started = time.monotonic()

    async def worker() -> None:
        for index in queue:
            await call(index)  # type: ignore[operator]
            if time.monotonic() - started > deadline:
                return

    await asyncio.gather(*(worker() for _ in range(CONNECTIONS)))
    return time.monotonic() - started


async def api_rates(url: str, count: int) -> dict[str, float]:
    headers = {"Content-Type": "application/json"}
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=CONNECTIONS)) as http:
        async def create(index: int) -> None:
            async with http.post(url + PODS, data=pod(f"p-{index}"), headers=headers) as response:
                assert response.status == 201, await response.text()

        async def status(index: int) -> None:
            body = orjson.dumps({"metadata": {"name": f"p-{index}"}, "status": {"phase": "Running"}})
            async with http.put(f"{url}{PODS}/p-{index}/status", data=body, headers=headers) as response:
                assert response.status == 200, await response.text()

        async def get(index: int) -> None:
            async with http.get(f"{url}{PODS}/p-{index % count}") as response:
                assert response.status == 200
                await response.read()

        return {"create": count / await spread(count, create), "status": count / await spread(count, status),
                "get": 2 * count / await spread(2 * count, get)}


async def watch_rate(writer: str, reader: str, count: int) -> float:
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=CONNECTIONS + 1),
                                     timeout=aiohttp.ClientTimeout(total=None)) as http:
        async with http.get(reader + CONFIG_MAPS) as response:
            since = (await response.json())["metadata"]["resourceVersion"]
        received: list[float] = []

        async def watch() -> None:
            params = {"watch": "1", "resourceVersion": since, "timeoutSeconds": str(int(DEADLINE))}
            async with http.get(reader + CONFIG_MAPS, params=params) as stream:
                async for _line in stream.content:
                    received.append(time.monotonic())
                    if len(received) >= count:
                        return

        watching = asyncio.create_task(watch())

        async def create(index: int) -> None:
            body = orjson.dumps({"metadata": {"name": f"cm-{index}"}, "data": {"n": str(index)}})
            async with http.post(writer + CONFIG_MAPS, data=body,
                                 headers={"Content-Type": "application/json"}) as response:
                assert response.status == 201, await response.text()

        await spread(count, create)
        await asyncio.wait_for(watching, DEADLINE)
        return count / (received[-1] - received[0])


def cpu_seconds(pid: int) -> float:
    """The user and system CPU time a process has spent so far."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def ready_nodes(url: str) -> int:
    async with aiohttp.ClientSession() as http, http.get(url + NODES) as response:
        nodes = (await response.json())["items"]
    return sum(1 for node in nodes for condition in node["status"].get("conditions") or []
               if condition["type"] == "Ready" and condition["status"] == "True")


def wait_for_nodes(url: str, count: int) -> float:
    """Seconds until `count` nodes are Ready (polled every second, for DEADLINE at most)."""
    started = time.monotonic()
    while asyncio.run(ready_nodes(url)) < count:
        if time.monotonic() - started > DEADLINE:
            raise SystemExit(f"{count} nodes were not Ready within {DEADLINE:.0f} s")
        time.sleep(1)
    return time.monotonic() - started


async def cluster_rate(urls: list[str], count: int, deadline: float = DEADLINE,
                       progress: Callable[[float, int], None] | None = None) -> float:
    """Pods/s from the first create until `count` pods run; `progress(seconds, running)` every minute."""
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=CONNECTIONS + 1),
                                     timeout=aiohttp.ClientTimeout(total=None)) as http:
        async with http.get(urls[0] + PODS) as response:
            since = (await response.json())["metadata"]["resourceVersion"]
        running: set[str] = set()
        started = time.monotonic()

        async def follow() -> None:
            params = {"watch": "1", "resourceVersion": since, "timeoutSeconds": str(int(deadline)),
                      "fieldSelector": "status.phase=Running"}
            async with http.get(urls[-1] + PODS, params=params) as stream:
                async for line in stream.content:
                    event = orjson.loads(line)
                    if event["type"] in ("ADDED", "MODIFIED"):
                        running.add(event["object"]["metadata"]["name"])
                    if len(running) >= count:
                        return

        following = asyncio.create_task(follow())

        async def report() -> None:
            while progress is not None:
                await asyncio.sleep(PROGRESS_SECONDS)
                progress(time.monotonic() - started, len(running))

        reporting = asyncio.create_task(report())

        async def create(index: int) -> None:
            async with http.post(urls[index % len(urls)] + PODS, data=pod(f"run-{index}"),
                                 headers={"Content-Type": "application/json"}) as response:
                assert response.status == 201, await response.text()

        await spread(count, create, deadline)
        await asyncio.wait_for(following, deadline)
        reporting.cancel()
        if len(running) < count:  # (the watch ended at the deadline)
            raise TimeoutError(f"{len(running)} of {count} pods Running after {time.monotonic() - started:.0f} s")
        return count / (time.monotonic() - started)


def cluster_phase(args: argparse.Namespace, etcd: subprocess.Popen[bytes], etcd_url: str,
                  processes: list[subprocess.Popen[bytes]]) -> None:
    cluster = [start_server("--nodes", str(args.nodes), "--storage", f"etcd:{etcd_url}", "--etcd-prefix", "/cluster")
               for _ in range(args.replicas)]
    processes += [process for process, _url in cluster]
    pids = [process.pid for process, _url in cluster] + [etcd.pid]
    names = [f"replica {number}" for number in range(1, args.replicas + 1)] + ["etcd"]
    seconds = wait_for_nodes(cluster[-1][1], args.nodes)
    before = [cpu_seconds(pid) for pid in pids]
    time.sleep(IDLE_SECONDS)
    idle = [(cpu_seconds(pid) - was) / IDLE_SECONDS for pid, was in zip(pids, before, strict=True)]
    print(f"cluster: {args.nodes} nodes Ready in {seconds:.0f} s; CPU with idle nodes (cores): "
          + ", ".join(f"{name} {cores:.2f}" for name, cores in zip(names, idle, strict=True)), flush=True)
    before = [cpu_seconds(pid) for pid in pids]

    def progress(seconds: float, running: int) -> None:
        print(f"  {seconds:.0f} s: {running} pods Running; RSS: "
              + ", ".join(f"{name} {rss_kib(pid) / 1024:.0f} MiB" for name, pid in zip(names, pids, strict=True)),
              flush=True)

    rate = asyncio.run(cluster_rate([url for _process, url in cluster], args.pods, args.deadline, progress))
    elapsed = args.pods / rate
    per_pod = ", ".join(f"{name} {(cpu_seconds(pid) - was - cores * elapsed) / args.pods * 1000:.1f} ms"
                        for name, pid, was, cores in zip(names, pids, before, idle, strict=True))
    rss = ", ".join(f"{name} {rss_kib(pid) / 1024:.0f} MiB" for name, pid in zip(names, pids, strict=True))
    print(f"cluster: {args.pods} pods Running at {rate:.0f} pods/s; CPU per pod (above the idle nodes'): "
          f"{per_pod}; RSS: {rss}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--writes", type=int, default=2000)
    parser.add_argument("--events", type=int, default=5000)
    parser.add_argument("--nodes", type=int, default=100)
    parser.add_argument("--pods", type=int, default=2000)
    parser.add_argument("--replicas", type=int, default=2)
    parser.add_argument("--deadline", type=float, default=DEADLINE, help="seconds the pods may take")
    parser.add_argument("--phases", default="api,watch,cluster", help="which to run, comma-separated")
    parser.add_argument("--etcd-dir", default=None, help="where etcd keeps its data (a temporary folder in it)")
    args = parser.parse_args()
    phases = set(args.phases.split(","))
    with tempfile.TemporaryDirectory(dir=args.etcd_dir) as folder:
        etcd, etcd_url = start_etcd(Path(folder))
        processes: list[subprocess.Popen[bytes]] = []
        try:
            if "api" in phases:
                rates = {}
                for name, storage in (("memory", []),
                                      ("etcd", ["--storage", f"etcd:{etcd_url}", "--etcd-prefix", "/api"])):
                    process, url = start_server("--simulate", "none", *storage)
                    processes.append(process)
                    rates[name] = asyncio.run(api_rates(url, args.writes))
                    stop(process)
                for verb in ("create", "status", "get"):
                    print(f"api {verb}: memory {rates['memory'][verb]:.0f}/s, etcd {rates['etcd'][verb]:.0f}/s, "
                          f"ratio {rates['etcd'][verb] / rates['memory'][verb]:.2f}")
            if "watch" in phases:
                replicas = [start_server("--simulate", "none", "--storage", f"etcd:{etcd_url}",
                                         "--etcd-prefix", "/watch") for _ in range(2)]
                processes += [process for process, _url in replicas]
                rate = asyncio.run(watch_rate(replicas[0][1], replicas[1][1], args.events))
                print(f"watch: {args.events} events across replicas at {rate:.0f} events/s")
                for process, _url in replicas:
                    stop(process)
            if "cluster" in phases:
                cluster_phase(args, etcd, etcd_url, processes)
        finally:
            for process in processes:
                if process.poll() is None:
                    stop(process)
            stop(etcd)


if __name__ == "__main__":
    main()
