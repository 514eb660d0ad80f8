"""CPU instructions per request, counted by valgrind's callgrind: an A/B measure that machine noise
does not move (throughput on a shared machine drifts a lot between runs; see docs/performance.md).

    python benchmarks/instructions.py [--pods 300] [--command 'python -m fakeapi serve --port {port} --simulate none']

Starts the command (default: fakeapi) under callgrind with collection off, then for each phase turns
it on (callgrind_control), sends the requests, and reports the server's instructions per request:
creates, a pod's first status write, later status writes and GETs. A status write sends the whole
object the last answer returned with a new status, as a controller does. Compare against the minimal
server of ../shared/bench with --command 'python ../shared/bench/baseline_server.py --port {port}'.
Needs valgrind; takes about a minute. Every loop is bounded; the server is stopped by its PID.
"""

from __future__ import annotations

import argparse
import asyncio
import glob
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
import orjson
from api_bench import pod
from serverproc import HOST, free_port, stop, wait_ready

CONNECTIONS = 4
STATUS = {
    "phase": "Running",
    "conditions": [{"type": kind, "status": "True", "lastTransitionTime": "2026-01-01T00:00:00Z"}
                   for kind in ("Initialized", "Ready", "ContainersReady", "PodScheduled")],
    "hostIP": "10.0.0.7",
    "podIP": "10.244.1.9",
    "podIPs": [{"ip": "10.244.1.9"}],
    "startTime": "2026-01-01T00:00:00Z",
    "containerStatuses": [{
        "name": "web", "ready": True, "restartCount": 0, "started": True,
        "image": "registry.example.com/team/web:1.27.3", "imageID": "registry.example.com/team/web@sha256:0",
        "containerID": "containerd://0", "state": {"running": {"startedAt": "2026-01-01T00:00:01Z"}},
    }],
}


def counted(dump_dir: str, pid: int) -> int:
    """Instructions in the newest callgrind dump of `pid`."""
    dumps = sorted(glob.glob(f"{dump_dir}/cg.{pid}.*"), key=lambda path: int(path.rsplit(".", 1)[1]))
    with open(dumps[-1]) as dump:
        for line in dump:
            if line.startswith("totals:"):
                return int(line.split()[1])
    raise SystemExit(f"no totals in {dumps[-1]}")


async def measure(pid: int, dump_dir: str, count: int, call: Callable[[int], Awaitable[None]]) -> float:
    """Instructions per call of `call(0..count-1)`, sent over a few connections."""
    subprocess.run(["callgrind_control", "--zero", str(pid)], check=True, capture_output=True)
    subprocess.run(["callgrind_control", "--instr=on", str(pid)], check=True, capture_output=True)
    next_index = iter(range(count))

    async def worker() -> None:
        for index in next_index:
            await call(index)

    await asyncio.wait_for(asyncio.gather(*(worker() for _ in range(CONNECTIONS))), timeout=600)
    subprocess.run(["callgrind_control", "--instr=off", str(pid)], check=True, capture_output=True)
    before = len(glob.glob(f"{dump_dir}/cg.{pid}.*"))
    subprocess.run(["callgrind_control", "--dump", str(pid)], check=True, capture_output=True)
    deadline = time.monotonic() + 30
    while len(glob.glob(f"{dump_dir}/cg.{pid}.*")) == before and time.monotonic() < deadline:
        await asyncio.sleep(0.1)  # the dump is written when the server next runs
    await asyncio.sleep(0.5)
    return counted(dump_dir, pid) / count


async def run(args: argparse.Namespace) -> None:
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        raise SystemExit("valgrind (with callgrind_control) is needed: apt-get install valgrind")
    port = free_port()
    url = f"http://{HOST}:{port}"
    pods_url = url + "/api/v1/namespaces/default/pods"
    command = shlex.split(args.command.format(port=port))
    if command[0] == "python":
        command[0] = sys.executable
    with tempfile.TemporaryDirectory() as dump_dir:
        server = subprocess.Popen(
            ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={dump_dir}/cg.%p",
             *command],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            await wait_ready(url, time.monotonic() + 120)
            latest: dict[int, Any] = {}
            headers = {"Content-Type": "application/json"}
            async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=CONNECTIONS)) as session:

                async def create(i: int) -> None:
                    async with session.post(pods_url, data=orjson.dumps(pod(f"web-{i}")), headers=headers) as r:
                        assert r.status == 201, await r.text()
                        latest[i] = orjson.loads(await r.read())

                writes = iter(range(1_000_000))

                async def write_status(i: int) -> None:
                    obj = latest[i % args.pods]
                    obj["status"] = {**STATUS, "message": f"write {next(writes)}"}  # never a no-op
                    name = obj["metadata"]["name"]
                    async with session.put(f"{pods_url}/{name}/status", data=orjson.dumps(obj),
                                           headers=headers) as r:
                        assert r.status == 200, await r.text()
                        latest[i % args.pods] = orjson.loads(await r.read())

                async def get(i: int) -> None:
                    async with session.get(f"{pods_url}/web-{i % args.pods}") as r:
                        assert r.status == 200
                        await r.read()

                pid = server.pid
                for label, call in (("create", create), ("status write (first)", write_status),
                                    ("status write (later)", write_status), ("get", get)):
                    per_request = await measure(pid, dump_dir, args.pods, call)
                    print(f"{label:<24} {per_request / 1000:>8.0f} K instructions/request")
        finally:
            stop(server, 20)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pods", type=int, default=300)
    parser.add_argument("--command", default="python -m fakeapi serve --port {port} --simulate none",
                        help="the server to measure; {port} is replaced by a free port")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
