"""The in-process test server: start to first answered request, reset, snapshot/restore, seeding 1,000 pods.

    python benchmarks/inprocess.py [--starts 30] [--pods 1000]

Prints the import cost of `fakeapi.testing` (paid once per test run), then, per operation, the median
and the worst of a few repetitions. "start" is `FakeAPIServer()` to the first answered HTTP request,
for both modes: on the caller's loop (`async with`) and in a background thread (`with`). Every loop is
bounded by a repetition count; the whole run takes a few seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
import urllib.request
from collections.abc import Callable
from functools import partial

started_import = time.perf_counter()
from fakeapi.testing import FakeAPIServer  # noqa: E402 - its import cost is one of the figures

IMPORT_SECONDS = time.perf_counter() - started_import


def pods(count: int, prefix: str = "pod") -> list[dict[str, object]]:
    return [{"apiVersion": "v1", "kind": "Pod",
             "metadata": {"name": f"{prefix}-{i}", "labels": {"app": "bench"}},
             "spec": {"containers": [{"name": "app", "image": "nginx:1.27",
                                      "resources": {"limits": {"cpu": "100m", "memory": "64Mi"}}}]}}
            for i in range(count)]


def report(name: str, seconds: list[float], per: int = 1) -> None:
    median, worst = statistics.median(seconds), max(seconds)
    line = f"{name:<44} median {median * 1000:8.2f} ms   worst {worst * 1000:8.2f} ms"
    if per > 1:
        line += f"   ({median / per * 1e6:.0f} µs per object)"
    print(line, flush=True)


async def async_start() -> float:
    import aiohttp

    async with aiohttp.ClientSession() as session:
        began = time.perf_counter()
        async with FakeAPIServer() as server, session.get(server.url + "/readyz") as response:
            await response.read()
            return time.perf_counter() - began


def thread_start() -> float:
    began = time.perf_counter()
    with FakeAPIServer() as server, urllib.request.urlopen(server.url + "/readyz") as response:
        response.read()
        return time.perf_counter() - began


def timed(operation: Callable[[], object]) -> float:
    began = time.perf_counter()
    operation()
    return time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--starts", type=int, default=30, help="servers started per mode (default 30)")
    parser.add_argument("--pods", type=int, default=1000, help="pods seeded (default 1000)")
    parser.add_argument("--repeat", type=int, default=5, help="repetitions of reset/seed/restore (default 5)")
    args = parser.parse_args()

    print(f"{'import fakeapi.testing (once per run)':<44} {IMPORT_SECONDS * 1000:8.2f} ms")
    asyncio.run(async_start())  # warm-up: first aiohttp client and server code paths
    report("start to first answer, async with (loop)",
           [asyncio.run(async_start()) for _ in range(args.starts)])
    report("start to first answer, with (thread)", [thread_start() for _ in range(args.starts)])

    objects = pods(args.pods)
    seeds, resets_full, resets_empty, snapshots, restores, lists = [], [], [], [], [], []
    with FakeAPIServer() as server:
        for _ in range(args.repeat):
            resets_empty.append(timed(server.reset))
            seeds.append(timed(lambda: server.seed(objects)))
            lists.append(timed(lambda: server.list("pods")))
            snapshots.append(timed(server.snapshot))
            snapshot = server.snapshot()
            resets_full.append(timed(server.reset))
            restores.append(timed(partial(server.restore, snapshot)))
        assert len(server.list("pods")) == args.pods
    report(f"seed {args.pods} pods (create pipeline)", seeds, args.pods)
    report(f"list {args.pods} pods (direct)", lists, args.pods)
    report(f"snapshot with {args.pods} pods", snapshots)
    report(f"restore a snapshot of {args.pods} pods", restores)
    report(f"reset with {args.pods} pods", resets_full)
    report("reset of an empty server", resets_empty)


if __name__ == "__main__":
    main()
