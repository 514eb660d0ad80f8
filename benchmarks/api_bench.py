"""Throughput, latency and memory of a `fakeapi serve` process, as a user would measure it.

    python benchmarks/api_bench.py [--pods 1000] [--memory-pods 10000] [--seconds 5]

Starts `python -m fakeapi serve` on 127.0.0.1 (a free port), then reports: startup to first
answered request, creates/s, GETs/s, status updates/s, LISTs of the pods/s (each with p50/p99),
and memory per stored pod. Every loop is bounded by a count and a deadline; the server is
stopped by its PID. For ratios against a minimal aiohttp server, see ../shared/bench/run.sh.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable

import aiohttp
import orjson
from serverproc import HOST, free_port, rss_kib, stop, wait_ready

CONNECTIONS = 16


def pod(name: str) -> dict[str, object]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": {"app": "web", "tier": "frontend"}},
        "spec": {"containers": [{
            "name": "web", "image": "registry.example.com/team/web:1.27.3",
            "ports": [{"name": "http", "containerPort": 8080}],
            "resources": {"limits": {"cpu": "500m", "memory": "256Mi"},
                          "requests": {"cpu": "100m", "memory": "128Mi"}},
        }], "nodeName": "worker-3"},
    }





async def phase(name: str, count: int, seconds: float, call: Callable[[int], Awaitable[None]],
                width: int = 28) -> None:
    latencies: list[float] = []
    next_index = iter(range(count))
    deadline = time.monotonic() + seconds

    async def worker() -> None:
        for index in next_index:
            if time.monotonic() > deadline:
                return
            started = time.perf_counter()
            await call(index)
            latencies.append(time.perf_counter() - started)

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(CONNECTIONS)))
    elapsed = time.perf_counter() - started
    latencies.sort()
    p50 = statistics.median(latencies) * 1000
    p99 = latencies[int(len(latencies) * 0.99) - 1] * 1000
    print(f"{name:<{width}} {len(latencies) / elapsed:>9.0f}/s   p50 {p50:6.2f} ms   p99 {p99:6.2f} ms")


async def run(args: argparse.Namespace) -> None:
    port = free_port()
    url = f"http://{HOST}:{port}"
    pods_url = url + "/api/v1/namespaces/default/pods"
    started = time.monotonic()
    server = subprocess.Popen([sys.executable, "-m", "fakeapi", "serve", "--port", str(port), "--simulate", "none"],
                              stdout=subprocess.DEVNULL, start_new_session=True)
    try:
        await wait_ready(url, started + 30)
        print(f"{'startup to first answer':<28} {(time.monotonic() - started) * 1000:>9.0f} ms")
        idle = rss_kib(server.pid)
        connector = aiohttp.TCPConnector(limit=CONNECTIONS)
        async with aiohttp.ClientSession(connector=connector) as session:
            bodies = [orjson.dumps(pod(f"web-{i}")) for i in range(args.pods)]
            headers = {"Content-Type": "application/json"}

            async def create(i: int) -> None:
                async with session.post(pods_url, data=bodies[i], headers=headers) as response:
                    assert response.status == 201, await response.text()

            await phase("create", args.pods, args.seconds * 6, create)

            async def get(i: int) -> None:
                async with session.get(f"{pods_url}/web-{random.randrange(args.pods)}") as response:
                    assert response.status == 200
                    await response.read()

            await phase("get", 30_000, args.seconds, get)

            async def update_status(i: int) -> None:
                name = f"web-{i % args.pods}"
                body = {"metadata": {"name": name},
                        "status": {"phase": "Running", "message": f"update {i}",
                                   "conditions": [{"type": "Ready", "status": "True"}]}}
                async with session.put(f"{pods_url}/{name}/status", data=orjson.dumps(body),
                                       headers=headers) as response:
                    assert response.status == 200, await response.text()

            await phase("update(status)", 10_000, args.seconds, update_status)

            async def list_pods(i: int) -> None:
                async with session.get(pods_url) as response:
                    assert response.status == 200
                    await response.read()

            await phase(f"list {args.pods} pods", 300, args.seconds, list_pods)

            extra = args.memory_pods - args.pods

            async def create_more(i: int) -> None:
                body = orjson.dumps(pod(f"mem-{i}"))
                async with session.post(pods_url, data=body, headers=headers) as response:
                    assert response.status == 201

            await phase(f"create (to {args.memory_pods})", extra, 120, create_more)
            await asyncio.sleep(0.5)
            after = rss_kib(server.pid)
            print(f"{'RSS idle / after pods':<28} {idle / 1024:>9.1f} MiB / {after / 1024:.1f} MiB")
            # everything the server grew by since it was idle, over the pods it now holds
            print(f"{'memory per stored pod':<28} {(after - idle) * 1024 / max(1, args.memory_pods):>9.0f} bytes")
    finally:
        stop(server, 5)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pods", type=int, default=1000)
    parser.add_argument("--memory-pods", type=int, default=10_000)
    parser.add_argument("--seconds", type=float, default=5.0, help="time limit per phase")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
