"""Watch fan-out of a `fakeapi serve` process: events/s delivered to many watchers, and their latency.

    python benchmarks/watch_fanout.py [--watchers 50] [--updates 3000] [--writers 8] [--pods 100]

Starts `python -m fakeapi serve` on 127.0.0.1 (a free port), creates pods, measures status updates/s
with no watcher, then opens the watchers (`?watch=true&resourceVersion=<list RV>`) and sends the
updates again, each carrying its send time (CLOCK_MONOTONIC) in `status.message`. The watchers are
read by a separate, lean process (this script in `--reader` mode), so the readers do not compete
with the writers for one interpreter. Prints events delivered per second, delivery latency p50/p99,
and the writers' rate with the watchers open (a watch must not slow writers down much). Every loop
is bounded by a count and a deadline; the server is stopped by its PID.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import selectors
import socket
import subprocess
import sys
import time

from serverproc import HOST, free_port, stop, wait_ready

PATH = "/api/v1/namespaces/default/pods"
MERGE = {"Content-Type": "application/merge-patch+json"}
MESSAGE = b'"message":"'



# ---- the reader process: raw sockets, chunked decoding, one timestamp per event


class ChunkedLines:
    """Incremental Transfer-Encoding: chunked decoder that yields complete lines (events)."""

    def __init__(self) -> None:
        self.raw = bytearray()
        self.body = bytearray()
        self.left = -1  # bytes of chunk data still to come; -1: a size line is next
        self.head_done = False

    def feed(self, data: bytes) -> list[bytearray]:
        raw = self.raw
        raw += data
        if not self.head_done:
            end = raw.find(b"\r\n\r\n")
            if end < 0:
                return []
            del raw[:end + 4]
            self.head_done = True
        while raw:
            if self.left < 0:
                end = raw.find(b"\r\n")
                if end < 0:
                    break
                self.left = int(raw[:end], 16)
                del raw[:end + 2]
                continue
            if self.left == 0:  # the CRLF after a chunk's data
                if len(raw) < 2:
                    break
                del raw[:2]
                self.left = -1
                continue
            take = min(self.left, len(raw))
            self.body += raw[:take]
            del raw[:take]
            self.left -= take
        *lines, rest = self.body.split(b"\n")
        self.body = bytearray(rest)
        return lines


def reader(port: int, path: str, watchers: int, expected: int, seconds: float) -> None:
    selector = selectors.DefaultSelector()
    for _ in range(watchers):
        sock = socket.create_connection((HOST, port))
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {HOST}\r\n\r\n".encode())
        sock.setblocking(False)
        selector.register(sock, selectors.EVENT_READ, ChunkedLines())
    print("ready", flush=True)
    events = 0
    latencies: list[int] = []
    first = last = 0.0
    deadline = time.monotonic() + seconds
    while events < expected and time.monotonic() < deadline:
        for key, _mask in selector.select(0.5):
            data = key.fileobj.recv(1 << 20)  # type: ignore[union-attr]
            now = time.monotonic_ns()
            for line in key.data.feed(data):
                events += 1
                start = line.find(MESSAGE)
                if start >= 0:
                    end = line.index(b'"', start + len(MESSAGE))
                    latencies.append(now - int(line[start + len(MESSAGE):end]))
            last = time.monotonic()
            first = first or last
    latencies.sort()

    def percentile(share: float) -> float:
        return latencies[min(len(latencies) - 1, int(len(latencies) * share))] / 1e6 if latencies else -1.0

    print(json.dumps({"events": events, "first": first, "last": last,
                      "p50": percentile(0.5), "p99": percentile(0.99)}), flush=True)


# ---- the driver: server, pods, writers


async def run(args: argparse.Namespace) -> None:
    import aiohttp
    import orjson


    async def updates(session: aiohttp.ClientSession, url: str, count: int) -> float:
        indexes = iter(range(count))

        async def writer() -> None:
            for index in indexes:
                body = orjson.dumps({"status": {"message": str(time.monotonic_ns())}})
                async with session.patch(f"{url}/pod-{index % args.pods}/status", data=body,
                                         headers=MERGE) as response:
                    if response.status != 200:
                        raise SystemExit(f"update failed: {response.status} {await response.text()}")

        started = time.perf_counter()
        await asyncio.gather(*(writer() for _ in range(args.writers)))
        return count / (time.perf_counter() - started)

    port = args.port or free_port()
    url = f"http://{HOST}:{port}"
    server = None if args.port else subprocess.Popen(
        [sys.executable, "-m", "fakeapi", "serve", "--port", str(port), "--simulate", "none"],
        stdout=subprocess.DEVNULL, start_new_session=True)
    watch_reader = None
    try:
        await wait_ready(url, time.monotonic() + 30)
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=args.writers)) as session:
            for index in range(args.pods):
                body = {"apiVersion": "v1", "kind": "Pod",
                        "metadata": {"name": f"pod-{index}", "labels": {"app": "web", "tier": "frontend"}},
                        "spec": {"containers": [{"name": "web", "image": "registry.example.com/web:1.27.3"}],
                                 "nodeName": "worker-3"}}
                async with session.post(url + PATH, json=body) as response:
                    assert response.status == 201, await response.text()
            alone = await updates(session, url + PATH, max(1, args.updates // 3))
            async with session.get(url + PATH) as response:
                version = (await response.json())["metadata"]["resourceVersion"]
            expected = args.updates * args.watchers
            watch_reader = subprocess.Popen(
                [sys.executable, __file__, "--reader", str(port), f"{PATH}?watch=true&resourceVersion={version}",
                 str(args.watchers), str(expected), str(args.seconds)], stdout=subprocess.PIPE, text=True)
            assert watch_reader.stdout is not None
            if watch_reader.stdout.readline().strip() != "ready":
                raise SystemExit("the watch reader did not start")
            await asyncio.sleep(0.5)  # let every watch register
            sent = time.monotonic()
            watched = await updates(session, url + PATH, args.updates)
        result = json.loads(await asyncio.to_thread(watch_reader.stdout.readline))
        elapsed = result["last"] - sent
        print(f"watchers {args.watchers}, updates {args.updates}, writers {args.writers}")
        print(f"events delivered          {result['events']:>10} of {expected}")
        print(f"events/s delivered        {result['events'] / elapsed:>10.0f}")
        print(f"delivery latency p50      {result['p50']:>10.2f} ms")
        print(f"delivery latency p99      {result['p99']:>10.2f} ms")
        print(f"updates/s, no watcher     {alone:>10.0f}")
        print(f"updates/s, with watchers  {watched:>10.0f}")
    finally:
        if watch_reader is not None:
            watch_reader.kill()
            watch_reader.wait(10)
        if server is not None:
            stop(server)


def main() -> None:
    if len(sys.argv) == 7 and sys.argv[1] == "--reader":
        port, path, watchers, expected, seconds = sys.argv[2:]
        reader(int(port), path, int(watchers), int(expected), float(seconds))
        return
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
