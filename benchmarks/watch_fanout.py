"""Watch fan-out of a `fakeapi serve` process: events/s delivered to many watchers, and their latency.

    python benchmarks/watch_fanout.py [--watchers 50] [--updates 3000] [--writers 8] [--pods 100]

Starts `python -m fakeapi serve` on 127.0.0.1 (a free port), creates pods, measures status updates/s
with no watcher, then opens the watchers (`?watch=true&resourceVersion=<list RV>`) and sends the
updates again, each carrying its send time (CLOCK_MONOTONIC) in `status.message`. Prints events
delivered per second, delivery latency p50/p99, and the writers' rate with the watchers open (a watch
must not slow writers down). Every loop is bounded by a count and a deadline; the server is stopped by
its PID.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import socket
import subprocess
import sys
import time

import aiohttp
import orjson

HOST = "127.0.0.1"
PATH = "/api/v1/namespaces/default/pods"
MERGE = {"Content-Type": "application/merge-patch+json"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def pod(name: str) -> dict[str, object]:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "labels": {"app": "web", "tier": "frontend"}},
            "spec": {"containers": [{"name": "web", "image": "registry.example.com/team/web:1.27.3",
                                     "resources": {"limits": {"cpu": "500m", "memory": "256Mi"}}}],
                     "nodeName": "worker-3"}}


async def wait_ready(url: str, deadline: float) -> None:
    async with aiohttp.ClientSession() as session:
        while time.monotonic() < deadline:
            try:
                async with session.get(url + "/healthz") as response:
                    if response.status == 200:
                        return
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(0.01)
    raise SystemExit("server did not become ready")


class WatchReader:
    """A raw HTTP/1.1 watch stream (chunked): counts events and records each delivery's latency."""

    def __init__(self) -> None:
        self.events = 0
        self.latencies_ns: list[int] = []
        self._buffer = bytearray()

    async def run(self, port: int, path: str, ready: asyncio.Event, deadline: float) -> None:
        reader, writer = await asyncio.open_connection(HOST, port)
        writer.write(f"GET {path} HTTP/1.1\r\nHost: {HOST}\r\n\r\n".encode())
        head = await reader.readuntil(b"\r\n\r\n")
        if not head.startswith(b"HTTP/1.1 200"):
            raise SystemExit(f"watch failed: {head[:80]!r}")
        ready.set()
        try:
            while time.monotonic() < deadline:
                size_line = await asyncio.wait_for(reader.readline(), max(0.1, deadline - time.monotonic()))
                size = int(size_line.strip() or b"0", 16)
                if size == 0:
                    return
                self._feed(await reader.readexactly(size + 2))
        except (TimeoutError, asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    def _feed(self, chunk: bytes) -> None:
        now = time.monotonic_ns()
        self._buffer += chunk[:-2]
        *lines, rest = self._buffer.split(b"\n")
        self._buffer = bytearray(rest)
        for line in lines:
            self.events += 1
            start = line.find(b'"message":"')
            if start >= 0:
                end = line.index(b'"', start + 11)
                self.latencies_ns.append(now - int(line[start + 11:end]))


async def updates(session: aiohttp.ClientSession, url: str, count: int, writers: int, pods: int) -> float:
    """Send `count` status updates from `writers` connections; returns updates/s."""
    indexes = iter(range(count))

    async def writer() -> None:
        for index in indexes:
            body = orjson.dumps({"status": {"message": str(time.monotonic_ns())}})
            async with session.patch(f"{url}/pod-{index % pods}/status", data=body, headers=MERGE) as response:
                if response.status != 200:
                    raise SystemExit(f"update failed: {response.status} {await response.text()}")

    started = time.perf_counter()
    await asyncio.gather(*(writer() for _ in range(writers)))
    return count / (time.perf_counter() - started)


def percentile(values: list[int], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))] / 1e6 if ordered else float("nan")


async def run(args: argparse.Namespace) -> None:
    port = args.port or free_port()
    url = f"http://{HOST}:{port}"
    server = None if args.port else subprocess.Popen(
        [sys.executable, "-m", "fakeapi", "serve", "--port", str(port)],
        stdout=subprocess.DEVNULL, start_new_session=True)
    try:
        await wait_ready(url, time.monotonic() + 30)
        connector = aiohttp.TCPConnector(limit=args.writers * 2)
        async with aiohttp.ClientSession(connector=connector) as session:
            for index in range(args.pods):
                async with session.post(url + PATH, json=pod(f"pod-{index}")) as response:
                    assert response.status == 201, await response.text()
            alone = await updates(session, url + PATH, args.updates // 3, args.writers, args.pods)
            async with session.get(url + PATH) as response:
                version = (await response.json())["metadata"]["resourceVersion"]
            deadline = time.monotonic() + args.seconds
            readers = [WatchReader() for _ in range(args.watchers)]
            ready = [asyncio.Event() for _ in readers]
            path = f"{PATH}?watch=true&resourceVersion={version}"
            tasks = [asyncio.create_task(reader.run(port, path, event, deadline))
                     for reader, event in zip(readers, ready, strict=True)]
            await asyncio.wait_for(asyncio.gather(*(event.wait() for event in ready)), 15)
            started = time.perf_counter()
            watched = await updates(session, url + PATH, args.updates, args.writers, args.pods)
            expected = args.updates * args.watchers
            while sum(r.events for r in readers) < expected and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
            elapsed = time.perf_counter() - started
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        delivered = sum(r.events for r in readers)
        latencies = [value for r in readers for value in r.latencies_ns]
        print(f"watchers {args.watchers}, updates {args.updates}, writers {args.writers}")
        print(f"events delivered          {delivered:>10} of {expected}")
        print(f"events/s delivered        {delivered / elapsed:>10.0f}")
        print(f"delivery latency p50      {percentile(latencies, 0.50):>10.2f} ms")
        print(f"delivery latency p99      {percentile(latencies, 0.99):>10.2f} ms")
        print(f"updates/s, no watcher     {alone:>10.0f}")
        print(f"updates/s, with watchers  {watched:>10.0f}")
    finally:
        if server is not None:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--watchers", type=int, default=50)
    parser.add_argument("--updates", type=int, default=3000)
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--pods", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=60.0, help="hard limit for the watch phase")
    parser.add_argument("--port", type=int, default=0,
                        help="use a server already listening on 127.0.0.1:PORT (with no pods yet)")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
