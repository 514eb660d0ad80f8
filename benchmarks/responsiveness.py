"""How long /readyz waits while the server does one large piece of work.

    python benchmarks/responsiveness.py [--nodes 20] [--advance 1e6] [--minutes 30]

Starts `python -m fakeapi serve --nodes N` on 127.0.0.1 (a free port, with a request timeout as long as the
run, so the advance is not cut) and waits for its nodes to be Ready. A prober process GETs /readyz over one
connection again and again and records how long each took. Then, one after the other:

- advance: the clock frozen, then advanced by `--advance` seconds (every lease renewal, status report and
  monitor pass of the N nodes on the way fires at its own time);
- patch: a ConfigMap with 19,500 owner references (2 MB), then a strategic merge patch of 3 MiB renaming
  each of them, with the list's `$setElementOrder`;
- yaml: the same ConfigMap created from a 3 MiB YAML body.

For each: how long it took, its answer, and the /readyz waits while it ran (longest and p99). Every loop is
bounded by a count and a deadline; the server is stopped by its PID.
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import time

import aiohttp
import orjson
from serverproc import HOST, free_port, rss_kib, stop, wait_ready
from simulation import wait_for_nodes

CONFIGMAPS = "/api/v1/namespaces/default/configmaps"
CONTROL = {"X-Fakeapi-Control": "1", "Content-Type": "application/json"}
OWNERS = 19_500  # as many owner references as a 3 MiB patch of them holds


def owners(suffix: str = "") -> list[dict[str, str]]:
    return [{"apiVersion": "v1", "kind": "ConfigMap", "name": f"owner-{index}{suffix}",
             "uid": f"00000000-0000-0000-0000-{index:012d}"} for index in range(OWNERS)]


def yaml_body(name: str) -> bytes:
    refs = "".join(f"  - apiVersion: v1\n    kind: ConfigMap\n    name: owner-{index}\n"
                   f"    uid: 00000000-0000-0000-0000-{index:012d}\n" for index in range(OWNERS))
    head = f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  ownerReferences:\n"
    return (head + refs + "data:\n  a: b\n").encode()


async def probe(url: str, seconds: float) -> None:
    """The prober process: GET /readyz until stdin closes (or the deadline); print when each was sent
    (CLOCK_MONOTONIC, which the other process reads too) and how long it took, in ms."""
    samples: list[tuple[float, float]] = []
    stopped = asyncio.get_running_loop().run_in_executor(None, sys.stdin.buffer.read)
    deadline = time.monotonic() + seconds
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=1)) as session:
        while not stopped.done() and time.monotonic() < deadline:
            sent, started = time.monotonic(), time.perf_counter()
            async with session.get(url + "/readyz") as response:
                await response.read()
            samples.append((sent, (time.perf_counter() - started) * 1000))
            await asyncio.sleep(0.005)
    sys.stdout.write(orjson.dumps(samples).decode())


def waits(samples: list[tuple[float, float]], since: float, until: float) -> str:
    """The /readyz waits of the probes sent while the work ran (and of the one waiting when it began)."""
    started = [index for index, (when, _) in enumerate(samples) if since <= when < until]
    if not started:
        return "no /readyz answered while it ran"
    latencies = sorted(samples[index][1] for index in range(max(0, started[0] - 1), started[-1] + 1))
    return (f"/readyz answered {len(latencies)} times: longest wait {latencies[-1]:.0f} ms, "
            f"p99 {latencies[int(len(latencies) * 0.99)]:.0f} ms")


async def timed(session: aiohttp.ClientSession, method: str, url: str, body: bytes,
                headers: dict[str, str]) -> tuple[float, float, int, bytes]:
    started = time.monotonic()
    async with session.request(method, url, data=body, headers=headers) as response:
        answer = await response.read()
    return started, time.monotonic(), response.status, answer


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=20)
    parser.add_argument("--advance", type=float, default=1e6, help="seconds to advance the clock by")
    parser.add_argument("--minutes", type=float, default=30.0, help="the whole run's deadline")
    parser.add_argument("--probe", metavar="URL", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.probe:
        await probe(args.probe, args.minutes * 60)
        return
    deadline = time.monotonic() + args.minutes * 60
    port = free_port()
    url = f"http://{HOST}:{port}"
    server = subprocess.Popen([sys.executable, "-m", "fakeapi", "serve", "--host", HOST, "--port", str(port),
                               "--nodes", str(args.nodes), "--request-timeout", str(args.minutes * 60)],
                              start_new_session=True)
    prober: subprocess.Popen[bytes] | None = None
    try:
        await wait_ready(url, time.monotonic() + 30)
        await wait_for_nodes(url, args.nodes, deadline)
        prober = subprocess.Popen([sys.executable, __file__, "--probe", url, "--minutes", str(args.minutes)],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        await asyncio.sleep(1)
        results: list[tuple[str, float, float, str]] = []
        timeout = aiohttp.ClientTimeout(total=max(1.0, deadline - time.monotonic()))
        async with aiohttp.ClientSession(timeout=timeout) as session:
            await timed(session, "POST", url + "/fakeapi/v1/clock", b'{"frozen": true}', CONTROL)
            advance = orjson.dumps({"advanceSeconds": args.advance})
            since, until, status, answer = await timed(session, "POST", url + "/fakeapi/v1/clock", advance, CONTROL)
            results.append((f"advance {args.advance:g} s with {args.nodes} nodes", since, until,
                            f"{status} {answer.decode()[:120]}"))
            created = orjson.dumps({"metadata": {"name": "owned", "ownerReferences": owners()}, "data": {"a": "b"}})
            await timed(session, "POST", url + CONFIGMAPS, created, {"Content-Type": "application/json"})
            patch = orjson.dumps({"metadata": {"ownerReferences": owners("-renamed"),
                                               "$setElementOrder/ownerReferences": [{"uid": ref["uid"]}
                                                                                    for ref in owners()]}})
            since, until, status, answer = await timed(
                session, "PATCH", url + CONFIGMAPS + "/owned", patch,
                {"Content-Type": "application/strategic-merge-patch+json"})
            results.append((f"strategic merge patch of {len(patch) / 2**20:.2f} MiB", since, until,
                            f"{status}, {len(answer) / 2**20:.1f} MiB answered"))
            body = yaml_body("from-yaml")
            since, until, status, answer = await timed(session, "POST", url + CONFIGMAPS, body,
                                                       {"Content-Type": "application/yaml"})
            results.append((f"create from {len(body) / 2**20:.2f} MiB of YAML", since, until, f"{status}"))
        out, _ = prober.communicate(b"", timeout=60)
        samples = [(when, latency) for when, latency in orjson.loads(out)]
        for label, since, until, answer in results:
            print(f"{label}: {until - since:.2f} s, answered {answer}\n  {waits(samples, since, until)}")
        print(f"server RSS at the end: {rss_kib(server.pid) / 1024:.0f} MiB")
    finally:
        if prober is not None and prober.poll() is None:
            prober.kill()
            prober.wait()
        stop(server)


if __name__ == "__main__":
    asyncio.run(main())
