"""The simulated cluster at scale: pods created in bulk until they run, on `fakeapi serve --nodes N`.

    python benchmarks/simulation.py [--nodes 1000] [--pods 10000] [--hold 100000] [--minutes 30]

Starts `python -m fakeapi serve --nodes N` on 127.0.0.1 (a free port) and waits for its nodes to be Ready,
then reports:

- idle: the server's CPU with N nodes and no pods (their lease renewals and status reports);
- bulk: `--pods` pods created over 16 connections, each followed until Running by a watch
  (`fieldSelector=status.phase=Running`): pods/s from the first create to the last pod Running, the
  server's CPU per pod over that time (the create request, scheduling, binding, the kubelet's status
  writes and events), and the latency of GETs sent meanwhile by a separate process (p50, p99, max);
- hold (`--hold`, 0 to skip): more pods until that many run, the same figures, and the server's RSS.

Every loop is bounded by a count and a deadline; the server is stopped by its PID.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import time

import aiohttp
import orjson
from serverproc import HOST, free_port, rss_kib, stop, wait_ready

CONNECTIONS = 16
IDLE_SECONDS = 10  # a lease renewal period
PODS = "/api/v1/namespaces/default/pods"
TICKS = os.sysconf("SC_CLK_TCK")


def pod(name: str) -> bytes:
    return orjson.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": {"app": "bench"}},
                         "spec": {"containers": [{"name": "web", "image": "nginx:1.27", "resources": {
                             "requests": {"cpu": "10m", "memory": "16Mi"}}}]}})


def cpu_seconds(pid: int) -> float:
    """The process's user and system CPU time so far."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


async def ready_nodes(session: aiohttp.ClientSession, url: str) -> int:
    async with session.get(url + "/api/v1/nodes") as response:
        nodes = orjson.loads(await response.read())["items"]
    return sum(any(c.get("type") == "Ready" and c.get("status") == "True" for c in n["status"].get("conditions", []))
               and not n["spec"].get("taints") for n in nodes)


async def wait_for_nodes(url: str, count: int, deadline: float) -> None:
    async with aiohttp.ClientSession() as session:
        while time.monotonic() < deadline:
            if await ready_nodes(session, url) >= count:
                return
            await asyncio.sleep(0.5)
    raise SystemExit(f"the {count} nodes were not Ready in time")


async def resource_version(session: aiohttp.ClientSession, url: str) -> str:
    async with session.get(url + PODS + "?limit=1") as response:
        return str(orjson.loads(await response.read())["metadata"]["resourceVersion"])


async def follow_running(session: aiohttp.ClientSession, url: str, since: str, names: set[str],
                         deadline: float) -> float:
    """Watch pods turn Running until every one of `names` has; the monotonic time the last one did."""
    query = f"?watch=true&fieldSelector=status.phase%3DRunning&resourceVersion={since}&timeoutSeconds=7200"
    waiting = set(names)
    timeout = aiohttp.ClientTimeout(total=None, sock_read=max(1.0, deadline - time.monotonic()))
    async with session.get(url + PODS + query, timeout=timeout) as response:
        async for line in response.content:
            event = orjson.loads(line)
            waiting.discard(event["object"]["metadata"]["name"])
            if not waiting or time.monotonic() > deadline:
                break
    if waiting:
        raise SystemExit(f"{len(waiting)} pods did not reach Running in time")
    return time.monotonic()


async def create(session: aiohttp.ClientSession, url: str, names: list[str], deadline: float) -> None:
    remaining = iter(names)

    async def worker() -> None:
        for name in remaining:
            if time.monotonic() > deadline:
                return
            async with session.post(url + PODS, data=pod(name), headers={"Content-Type": "application/json"}) as r:
                if r.status != 201:
                    raise SystemExit(f"create {name}: {r.status} {await r.text()}")

    await asyncio.gather(*(worker() for _ in range(CONNECTIONS)))


def start_prober(url: str, seconds: float) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, __file__, "--probe", url, "--minutes", str(seconds / 60)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)


def prober_result(prober: subprocess.Popen[bytes]) -> list[tuple[float, float]]:
    out, _ = prober.communicate(b"", timeout=60)  # closing its stdin tells it to stop
    return [(when, latency) for when, latency in orjson.loads(out)]


def summary(samples: list[tuple[float, float]], since: float, until: float) -> str:
    """p50, p99 and max (ms) of the GETs sent between `since` and `until` (monotonic times)."""
    latencies = sorted(latency for when, latency in samples if since <= when < until)
    if not latencies:
        return "no GETs"
    return (f"p50 {statistics.median(latencies):.1f} ms, p99 {latencies[int(len(latencies) * 0.99)]:.1f} ms, "
            f"max {latencies[-1]:.1f} ms ({len(latencies)} GETs)")


async def probe(url: str, seconds: float) -> None:
    """The prober process: GET a node over one connection, again and again, until stdin closes (or the
    deadline); print when each was sent (CLOCK_MONOTONIC, which the other processes read too) and how
    long it took, in ms."""
    samples: list[tuple[float, float]] = []
    loop = asyncio.get_running_loop()
    stopped = loop.run_in_executor(None, sys.stdin.buffer.read)
    deadline = time.monotonic() + seconds
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=1)) as session:
        while not stopped.done() and time.monotonic() < deadline:
            sent, started = time.monotonic(), time.perf_counter()
            async with session.get(url + "/api/v1/nodes/node-1") as response:
                await response.read()
            samples.append((sent, (time.perf_counter() - started) * 1000))
            await asyncio.sleep(0.002)
    sys.stdout.write(orjson.dumps(samples).decode())


async def run_pods(url: str, pid: int, names: list[str], label: str, deadline: float) -> None:
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=CONNECTIONS + 1)) as session:
        since = await resource_version(session, url)
        prober = start_prober(url, deadline - time.monotonic())
        cpu_before, started = cpu_seconds(pid), time.monotonic()
        watching = asyncio.create_task(follow_running(session, url, since, set(names), deadline))
        await create(session, url, names, deadline)
        created = time.monotonic()
        finished = await watching
        cpu = cpu_seconds(pid) - cpu_before
    samples = prober_result(prober)
    took = finished - started
    print(f"{label}: {len(names)} pods Running in {took:.1f} s: {len(names) / took:,.0f} pods/s "
          f"(created in {created - started:.1f} s); server CPU {cpu * 1000 / len(names):.2f} ms per pod "
          f"({cpu / took * 100:.0f}% of a core)\n"
          f"  GET latency while pods were created: {summary(samples, started, created)}\n"
          f"  GET latency after, while the simulation alone ran them: {summary(samples, created, finished)}")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--pods", type=int, default=10_000)
    parser.add_argument("--hold", type=int, default=100_000, help="pods held at the end (0: skip)")
    parser.add_argument("--minutes", type=float, default=30.0, help="the whole run's deadline")
    parser.add_argument("--probe", metavar="URL", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.probe:
        await probe(args.probe, args.minutes * 60)
        return
    deadline = time.monotonic() + args.minutes * 60
    port = free_port()
    url = f"http://{HOST}:{port}"
    server = subprocess.Popen([sys.executable, "-m", "fakeapi", "serve", "--host", HOST, "--port", str(port),
                               "--nodes", str(args.nodes)], start_new_session=True)
    try:
        started = time.monotonic()
        await wait_ready(url, started + 30)
        await wait_for_nodes(url, args.nodes, deadline)
        print(f"{args.nodes} nodes Ready {time.monotonic() - started:.1f} s after start; "
              f"RSS {rss_kib(server.pid) / 1024:.0f} MiB")
        cpu_before = cpu_seconds(server.pid)
        await asyncio.sleep(IDLE_SECONDS)
        print(f"idle: server CPU {(cpu_seconds(server.pid) - cpu_before) / IDLE_SECONDS * 100:.1f}% of a core "
              f"with {args.nodes} nodes (their lease renewals)")
        await run_pods(url, server.pid, [f"bulk-{i}" for i in range(args.pods)], "bulk", deadline)
        if args.hold > args.pods:
            more = [f"hold-{i}" for i in range(args.hold - args.pods)]
            await run_pods(url, server.pid, more, f"hold (to {args.hold})", deadline)
            print(f"holding {args.hold} Running pods on {args.nodes} nodes: RSS {rss_kib(server.pid) / 1024:.0f} MiB")
    finally:
        stop(server)


if __name__ == "__main__":
    asyncio.run(main())
