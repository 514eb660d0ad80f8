"""What the benchmark scripts share: a free loopback port, readiness polling, a process's RSS, and
stopping the server they started."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import time

import aiohttp

HOST = "127.0.0.1"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


async def wait_ready(url: str, deadline: float) -> None:
    """Poll /healthz until it answers 200 (or exit when `deadline`, a monotonic time, passes)."""
    async with aiohttp.ClientSession() as session:
        while time.monotonic() < deadline:
            try:
                async with session.get(url + "/healthz") as response:
                    if response.status == 200:
                        return
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(0.005)
    raise SystemExit("server did not become ready")


def stop(server: subprocess.Popen[bytes], seconds: float = 10) -> None:
    """Stop a server started with start_new_session=True: SIGTERM to its process group, then SIGKILL."""
    os.killpg(server.pid, signal.SIGTERM)
    try:
        server.wait(seconds)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait(seconds)
