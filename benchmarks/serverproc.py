"""What the benchmark scripts share: a free loopback port, readiness polling and a process's RSS."""

from __future__ import annotations

import asyncio
import socket
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
