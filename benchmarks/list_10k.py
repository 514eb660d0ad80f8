"""LIST of many pods from a `fakeapi serve` process: whole, paginated, filtered, and as a Table.

    python benchmarks/list_10k.py [--pods 10000] [--repeat 5] [--limit 500]

Starts `python -m fakeapi serve` on 127.0.0.1 (a free port), creates the pods (half of them labelled
`tier=frontend`), then times each way of listing them `--repeat` times and prints the median and the
best, with the response size. A paginated list walks every page with `limit` and `continue`, as
client-go's pager does. Every loop is bounded by a count; the server is stopped by its PID.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import time

import aiohttp
import orjson
from serverproc import HOST, free_port, stop, wait_ready

PATH = "/api/v1/namespaces/default/pods"
TABLE = {"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}
CONNECTIONS = 16



def pod(index: int) -> bytes:
    tier = "frontend" if index % 2 else "backend"
    return orjson.dumps({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": f"web-{index:05}", "labels": {"app": "web", "tier": tier}},
        "spec": {"containers": [{"name": "web", "image": "registry.example.com/team/web:1.27.3",
                                 "ports": [{"name": "http", "containerPort": 8080}],
                                 "resources": {"limits": {"cpu": "500m", "memory": "256Mi"}}}],
                 "nodeName": "worker-3"},
    })



async def create_pods(session: aiohttp.ClientSession, url: str, count: int) -> None:
    indexes = iter(range(count))

    async def worker() -> None:
        for index in indexes:
            async with session.post(url, data=pod(index), headers={"Content-Type": "application/json"}) as r:
                if r.status != 201:
                    raise SystemExit(f"create failed: {r.status} {await r.text()}")

    await asyncio.gather(*(worker() for _ in range(CONNECTIONS)))


async def fetch_all(session: aiohttp.ClientSession, url: str, params: dict[str, str],
                    headers: dict[str, str] | None = None) -> tuple[int, int, int]:
    """(items, bytes, pages) of a whole list, following `continue` tokens."""
    items = size = pages = 0
    query = dict(params)
    while True:
        async with session.get(url, params=query, headers=headers or {}) as response:
            body = await response.read()
            if response.status != 200:
                raise SystemExit(f"list failed: {response.status} {body[:200]!r}")
        # only the list's metadata is decoded: parsing megabytes here would time the client, not the server
        start = body.index(b'"metadata":') + len(b'"metadata":')
        meta = orjson.loads(body[start:body.index(b"}", start) + 1])
        items += body.count(b'"uid":')
        size += len(body)
        pages += 1
        token = meta.get("continue")
        if not token:
            return items, size, pages
        query = {**params, "continue": token}


async def measure(session: aiohttp.ClientSession, name: str, url: str, repeat: int, params: dict[str, str],
                  headers: dict[str, str] | None = None) -> None:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        items, size, pages = await fetch_all(session, url, params, headers)
        times.append(time.perf_counter() - started)
    print(f"{name:<36} {statistics.median(times) * 1000:>8.1f} ms  best {min(times) * 1000:>8.1f} ms  "
          f"{items:>6} items  {pages:>3} pages  {size / 1e6:>6.1f} MB")


async def run(args: argparse.Namespace) -> None:
    port = free_port()
    url = f"http://{HOST}:{port}"
    server = subprocess.Popen([sys.executable, "-m", "fakeapi", "serve", "--port", str(port), "--simulate", "none"],
                              stdout=subprocess.DEVNULL, start_new_session=True)
    try:
        await wait_ready(url, time.monotonic() + 30)
        connector = aiohttp.TCPConnector(limit=CONNECTIONS)
        timeout = aiohttp.ClientTimeout(total=120)
        async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
            started = time.perf_counter()
            await create_pods(session, url + PATH, args.pods)
            print(f"created {args.pods} pods in {time.perf_counter() - started:.1f} s")
            limit = str(args.limit)
            await measure(session, "whole list", url + PATH, args.repeat, {})
            await measure(session, f"paginated, limit={limit}", url + PATH, args.repeat, {"limit": limit})
            await measure(session, "across namespaces (/api/v1/pods)", url + "/api/v1/pods", args.repeat, {})
            await measure(session, "labelSelector tier=frontend", url + PATH, args.repeat,
                          {"labelSelector": "tier=frontend"})
            await measure(session, f"labelSelector, limit={limit}", url + PATH, args.repeat,
                          {"labelSelector": "tier=frontend", "limit": limit})
            await measure(session, "fieldSelector spec.nodeName", url + PATH, args.repeat,
                          {"fieldSelector": "spec.nodeName=worker-3"})
            await measure(session, f"Table, limit={limit} (kubectl get)", url + PATH, args.repeat,
                          {"limit": limit}, TABLE)
    finally:
        stop(server)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pods", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--limit", type=int, default=500)
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
