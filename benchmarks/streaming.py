"""exec round trips and port-forward throughput against `fakeapi serve`, with the server's CPU for each.

    python benchmarks/streaming.py [--sessions 2000] [--concurrency 1,16] [--mib 256]

Starts `python -m fakeapi serve --simulate none` on a free loopback port, seeds a running pod, then:

- exec: `echo hi` sessions over WebSockets (v5.channel.k8s.io, as kubectl 1.32 opens them), one after the
  other and several at once, each a whole session (upgrade, output, Status, close); sessions per second
  and the server's CPU per session (user + system time of its process, from /proc);
- port-forward: a loopback TCP server of this script sends (download) or swallows (upload) `--mib` MiB
  through a forwarded port (the control API's address), read by `kubectl port-forward` (SPDY inside a
  WebSocket) and by the Python clients' channel protocol (v4, aiohttp's client here); MiB per second and
  the server's CPU per MiB.

Every loop is bounded by a count; the server is stopped by its PID at the end. The client side runs on
the same machine and takes CPU from the server: the figures are a floor.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from serverproc import HOST, free_port, stop, wait_ready  # noqa: E402

CHUNK = 256 * 1024
POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "bench", "namespace": "default"},
       "spec": {"nodeName": "node-1", "containers": [{"name": "app", "image": "busybox"}]},
       "status": {"phase": "Running", "containerStatuses": [
           {"name": "app", "image": "busybox", "imageID": "", "ready": True, "restartCount": 0,
            "containerID": "containerd://bench", "state": {"running": {"startedAt": "2030-01-01T00:00:00Z"}}}]}}
EXEC = "/api/v1/namespaces/default/pods/bench/exec?command=echo&command=hi&stdout=1&stderr=1"


def cpu_seconds(pid: int) -> float:
    """User + system time of a process so far."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def exec_sessions(url: str, sessions: int, concurrency: int) -> None:
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector) as http:
        async def one() -> None:
            async with http.ws_connect(url + EXEC, protocols=("v5.channel.k8s.io",)) as ws:
                output = b""
                async for message in ws:
                    if message.data[0] == 1:
                        output += message.data[1:]
                assert output == b"hi\n", output

        async def worker(count: int) -> None:
            for _ in range(count):
                await one()

        share, rest = divmod(sessions, concurrency)
        await asyncio.gather(*(worker(share + (index < rest)) for index in range(concurrency)))


async def target(total: int) -> tuple[asyncio.Server, dict[str, int]]:
    """A loopback server: a connection that sends nothing gets `total` bytes (download); one that sends
    has what it sends counted until it ends (upload)."""
    received = {"bytes": 0}
    block = b"x" * CHUNK

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        first = await reader.read(1)
        if first == b"d":
            for _ in range(total // CHUNK):
                writer.write(block)
                await writer.drain()
        else:
            received["bytes"] += len(first)
            while data := await reader.read(CHUNK):
                received["bytes"] += len(data)
            writer.write(b"done")
            await writer.drain()
        writer.close()

    return await asyncio.start_server(serve, HOST, 0), received


async def through_kubectl(kubectl: str, kubeconfig: Path, total: int, pid: int) -> None:
    forward = await asyncio.create_subprocess_exec(
        kubectl, "--kubeconfig", str(kubeconfig), "--cache-dir", str(kubeconfig.parent / "cache"),
        "port-forward", "pod/bench", ":7000", stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL)
    assert forward.stdout is not None
    port = 0
    while not port:
        line = (await forward.stdout.readline()).decode()
        found = re.match(r"Forwarding from 127\.0\.0\.1:(\d+)", line)
        port = int(found.group(1)) if found else 0
    try:
        began, cpu = time.perf_counter(), cpu_seconds(pid)
        reader, writer = await asyncio.open_connection(HOST, port)
        writer.write(b"d")
        got = 0
        while data := await reader.read(CHUNK):
            got += len(data)
        writer.close()
        report_throughput("port-forward download, kubectl (SPDY in WebSocket)", got, began, cpu, pid)
        began, cpu = time.perf_counter(), cpu_seconds(pid)
        reader, writer = await asyncio.open_connection(HOST, port)
        block = b"u" * CHUNK
        for _ in range(total // CHUNK):
            writer.write(block)
            await writer.drain()
        writer.write_eof()
        assert await reader.read() == b"done"
        writer.close()
        report_throughput("port-forward upload, kubectl (SPDY in WebSocket)", total, began, cpu, pid)
    finally:
        forward.kill()
        await forward.wait()


async def through_channels(url: str, pid: int) -> None:
    async with aiohttp.ClientSession() as http:
        began, cpu = time.perf_counter(), cpu_seconds(pid)
        got = 0
        async with http.ws_connect(url + "/api/v1/namespaces/default/pods/bench/portforward?ports=7000",
                                   protocols=("v4.channel.k8s.io",), max_msg_size=0) as ws:
            await ws.send_bytes(b"\x00d")
            async for message in ws:
                if message.type == aiohttp.WSMsgType.BINARY and message.data[0] == 0:
                    got += len(message.data) - 1
        report_throughput("port-forward download, channel protocol (v4)", got - 2, began, cpu, pid)


def report_throughput(name: str, size: int, began: float, cpu: float, pid: int) -> None:
    seconds = time.perf_counter() - began
    mib = size / (1 << 20)
    used = cpu_seconds(pid) - cpu
    print(f"{name:<52} {mib / seconds:8.1f} MiB/s   server CPU {used / mib * 1000:6.1f} ms per MiB", flush=True)


async def run(args: argparse.Namespace) -> None:
    kubectl = os.environ.get("KUBECTL") or shutil.which("kubectl")
    with tempfile.TemporaryDirectory(prefix="fakeapi-bench-") as folder:
        kubeconfig = Path(folder) / "kubeconfig"
        port = free_port()
        url = f"http://{HOST}:{port}"
        server = subprocess.Popen([sys.executable, "-m", "fakeapi", "serve", "--host", HOST, "--port", str(port),
                                   "--simulate", "none", "--kubeconfig", str(kubeconfig)],
                                  stdout=subprocess.DEVNULL, start_new_session=True)
        try:
            await wait_ready(url, time.monotonic() + 30)
            headers = {"X-Fakeapi-Control": "1", "Content-Type": "application/json"}
            total = args.mib << 20
            listener, _received = await target(total)
            address = f"{HOST}:{listener.sockets[0].getsockname()[1]}"
            async with aiohttp.ClientSession(headers=headers) as http:
                for path, body in (("/fakeapi/v1/seed", POD), ("/fakeapi/v1/ports",
                                                              {"pod": "bench", "port": 7000, "address": address})):
                    async with http.post(url + path, data=json.dumps(body)) as response:
                        assert response.status == 201, await response.text()
            await exec_sessions(url, 50, 1)  # warm-up
            for concurrency in args.concurrency:
                began, cpu = time.perf_counter(), cpu_seconds(server.pid)
                await exec_sessions(url, args.sessions, concurrency)
                seconds, used = time.perf_counter() - began, cpu_seconds(server.pid) - cpu
                print(f"exec `echo hi` over v5, {concurrency:>2} at once{'':<24} {args.sessions / seconds:8.0f} "
                      f"sessions/s   server CPU {used / args.sessions * 1000:6.2f} ms per session", flush=True)
            if kubectl:
                await through_kubectl(kubectl, kubeconfig, total, server.pid)
            else:
                print("kubectl not found: its port-forward is not measured", flush=True)
            await through_channels(url, server.pid)
            listener.close()
        finally:
            stop(server)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=2000, help="exec sessions per measurement (default 2000)")
    parser.add_argument("--concurrency", type=lambda text: [int(part) for part in text.split(",")],
                        default=[1, 16], help="sessions at once, comma-separated (default 1,16)")
    parser.add_argument("--mib", type=int, default=256, help="MiB through port-forward (default 256)")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
