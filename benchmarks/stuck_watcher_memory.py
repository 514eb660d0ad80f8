"""Memory of a `fakeapi serve` process while some watchers never read: it must stay bounded.

    python benchmarks/stuck_watcher_memory.py [--stuck 5] [--updates 30000] [--pods 100]

Starts `python -m fakeapi serve` on 127.0.0.1 (a free port), opens `--stuck` watches that never read
a byte (small receive buffers, so they stall early) and one healthy watch that reads everything, then
sends status updates. Prints the server's RSS as the updates go, whether each stuck watch was cut off
(a 410 ERROR event at the end of what it was sent) and whether the healthy watch saw every update.
A server that buffers for stuck watchers without bound grows by about (updates x object size x
stuck watchers); fakeapi keeps each watcher's backlog bounded and then ends that stream. Every loop is
bounded by a count and a deadline; the server is stopped by its PID.
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import subprocess
import sys
import time

import aiohttp
import orjson
from serverproc import HOST, free_port, rss_kib, stop, wait_ready

PATH = "/api/v1/namespaces/default/pods"
MERGE = {"Content-Type": "application/merge-patch+json"}
WRITERS = 8





def open_stuck_watch(port: int, path: str) -> socket.socket:
    """A watch whose client never reads: a tiny receive buffer, so the server's writes stall soon."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect((HOST, port))
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {HOST}\r\n\r\n".encode())
    return sock


def drain(sock: socket.socket, seconds: float) -> bytes:
    """Everything the server had sent to a stuck watch, read at last."""
    sock.settimeout(0.5)
    received = bytearray()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            data = sock.recv(1 << 20)
        except TimeoutError:
            break
        if not data:
            break
        received += data
    sock.close()
    return bytes(received)


async def healthy_watch(port: int, path: str, counter: list[int], deadline: float) -> None:
    reader, writer = await asyncio.open_connection(HOST, port)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: {HOST}\r\n\r\n".encode())
    try:
        while time.monotonic() < deadline:
            data = await asyncio.wait_for(reader.read(1 << 20), max(0.1, deadline - time.monotonic()))
            if not data:
                return
            counter[0] += data.count(b"}\n")
    except (TimeoutError, ConnectionError):
        pass
    finally:
        writer.close()


async def run(args: argparse.Namespace) -> None:
    port = free_port()
    url = f"http://{HOST}:{port}"
    server = subprocess.Popen([sys.executable, "-m", "fakeapi", "serve", "--port", str(port), "--simulate", "none"],
                              stdout=subprocess.DEVNULL, start_new_session=True)
    stuck: list[socket.socket] = []
    try:
        await wait_ready(url, time.monotonic() + 30)
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=WRITERS)) as session:
            annotations = {"note": "x" * 2000}  # ~3 KB objects, so backlogs weigh something
            for index in range(args.pods):
                body = {"metadata": {"name": f"pod-{index}", "annotations": annotations},
                        "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]}}
                async with session.post(url + PATH, json=body) as response:
                    assert response.status == 201, await response.text()
            async with session.get(url + PATH) as response:
                version = (await response.json())["metadata"]["resourceVersion"]
            path = f"{PATH}?watch=true&resourceVersion={version}"
            stuck = [open_stuck_watch(port, path) for _ in range(args.stuck)]
            counter = [0]
            deadline = time.monotonic() + args.seconds
            reader = asyncio.create_task(healthy_watch(port, path, counter, deadline))
            await asyncio.sleep(0.5)
            print(f"RSS before updates      {rss_kib(server.pid) / 1024:8.1f} MiB")
            indexes = iter(range(args.updates))
            step = max(1, args.updates // 6)

            async def writer() -> None:
                for index in indexes:
                    if time.monotonic() > deadline:
                        return
                    patch = orjson.dumps({"status": {"message": f"update {index}"}})
                    async with session.patch(f"{url}{PATH}/pod-{index % args.pods}/status", data=patch,
                                             headers=MERGE) as response:
                        assert response.status == 200, await response.text()
                    if index % step == step - 1:
                        print(f"RSS after {index + 1:>7} updates {rss_kib(server.pid) / 1024:8.1f} MiB")

            await asyncio.gather(*(writer() for _ in range(WRITERS)))
            while counter[0] < args.updates and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            print(f"healthy watch saw       {counter[0]:8} of {args.updates} updates")
            reader.cancel()
            await asyncio.gather(reader, return_exceptions=True)
        for index, sock in enumerate(stuck):
            received = drain(sock, 10)
            cut_off = b'"reason":"Expired","code":410' in received[-1000:]
            print(f"stuck watch {index}: {received.count(b'}' + bytes([10])):6} events sent, "
                  f"{'cut off with 410' if cut_off else 'still open'}")
    finally:
        for sock in stuck:
            sock.close()
        stop(server)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--stuck", type=int, default=5)
    parser.add_argument("--updates", type=int, default=30_000)
    parser.add_argument("--pods", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=300.0, help="hard limit for the update phase")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
