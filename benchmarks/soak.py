"""A soak: a simulated cluster under steady mixed load for a while, watched for errors, gaps and growth.

    python benchmarks/soak.py [--minutes 10] [--nodes 20] [--watches 50] [--configmap-writes 1000]

Starts `python -m fakeapi serve --nodes N` on 127.0.0.1 (a free port), waits for its nodes to be Ready, then
for `--minutes` runs, at a steady pace:

- pod churn: workers create pods (the simulated scheduler binds them, their kubelets run them) and delete
  the oldest once each holds 25;
- status writes: a controller-style PATCH of pods/status (a custom condition) on live pods;
- a 1 MiB ConfigMap rewritten `--configmap-writes` times, spread over the run;
- `--watches` watches, all from one resourceVersion (pods, events and configmaps); each checks that its
  resourceVersions only rise, and the watches of one resource must see the very same events (a digest
  of them, up to a final marker object): a watch that missed or reordered an event, or was cut off, is a
  gap;
- log follows: clients following the log of a running pod until it ends.

Before the soak, on its own: the 1 MiB ConfigMap rewritten `--configmap-writes` times back to back while five
watches read it, with the server's RSS before, at its largest, and after (the watch history is bounded in
bytes: this must not pin a gigabyte).

It reports the server's RSS over time (and its largest rise over the start), the requests made and the
errors (any answer but the expected one; a 404 for a pod deleted meanwhile is expected), the watch gaps,
and each minute's request latency (p50, p99, max). Every loop is bounded by a count and a deadline; the
server is stopped by its PID.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import aiohttp
import orjson
from serverproc import HOST, free_port, rss_kib, stop, wait_ready
from simulation import wait_for_nodes

NAMESPACE = "default"
PODS = f"/api/v1/namespaces/{NAMESPACE}/pods"
CONFIGMAPS = f"/api/v1/namespaces/{NAMESPACE}/configmaps"
POD_WORKERS, PODS_PER_WORKER = 4, 25
STATUS_WORKERS = 2
LOG_FOLLOWERS = 5
RSS_EVERY = 10.0
MARKER = "soak-marker"
WATCHED = {"pods": "/api/v1/pods", "events": "/api/v1/events", "configmaps": "/api/v1/configmaps"}


@dataclass
class Tally:
    """What the load saw: latencies (by minute of the run), counts by request, errors."""

    started: float
    latencies: dict[int, list[float]] = field(default_factory=lambda: defaultdict(list))  # by minute, no logs
    by_kind: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    counts: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    expected_misses: int = 0
    errors: list[str] = field(default_factory=list)

    def record(self, what: str, since: float, status: int, expected: tuple[int, ...], text: str = "") -> None:
        took = (time.monotonic() - since) * 1000
        self.by_kind[what].append(took)
        if what != "log":  # (a log follow lasts as long as its container)
            self.latencies[int((since - self.started) // 60)].append(took)
        self.counts[what] += 1
        if status == 404 and 404 not in expected and what in ("status", "delete"):
            self.expected_misses += 1  # the pod was deleted meanwhile
        elif status not in expected:
            self.errors.append(f"{what}: {status} {text[:200]}")


@dataclass
class Watch:
    resource: str
    events: int = 0
    last_rv: int = 0
    gaps: list[str] = field(default_factory=list)
    digest: str = ""  # of every event up to the marker (pods), or to the end
    saw_marker: asyncio.Event = field(default_factory=asyncio.Event)


def pod(name: str) -> bytes:
    meta = {"name": name, "labels": {"app": "soak"}, "annotations": {"fakeapi.dev/log-lines": "hello\nworld"}}
    return orjson.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": meta,
                         "spec": {"containers": [{"name": "web", "image": "nginx:1.27", "resources": {
                             "requests": {"cpu": "10m", "memory": "16Mi"}}}]}})


async def timed(session: aiohttp.ClientSession, tally: Tally, what: str, method: str, url: str,
                expected: tuple[int, ...], body: bytes | None = None, content_type: str = "application/json") -> int:
    since = time.monotonic()
    try:
        async with session.request(method, url, data=body, headers={"Content-Type": content_type}) as response:
            text = await response.text()
            tally.record(what, since, response.status, expected, text)
            return response.status
    except (aiohttp.ClientError, TimeoutError) as error:
        tally.record(what, since, 0, expected, repr(error))
        return 0


async def churn(session: aiohttp.ClientSession, url: str, tally: Tally, worker: int, live: list[str],
                until: float, pause: float) -> None:
    mine: list[str] = []
    for index in range(1_000_000):
        if time.monotonic() > until:
            break
        name = f"soak-{worker}-{index}"
        if await timed(session, tally, "create", "POST", url + PODS, (201,), pod(name)) == 201:
            mine.append(name)
            live.append(name)
        if len(mine) > PODS_PER_WORKER:
            gone = mine.pop(0)
            live.remove(gone)
            await timed(session, tally, "delete", "DELETE", f"{url}{PODS}/{gone}", (200, 202))
        await asyncio.sleep(pause)


async def write_status(session: aiohttp.ClientSession, url: str, tally: Tally, live: list[str],
                       until: float, pause: float) -> None:
    for index in range(1_000_000):
        if time.monotonic() > until:
            break
        if live:
            name = live[index % len(live)]
            patch = {"status": {"conditions": [{"type": "example.com/Soak", "status": "True" if index % 2 else "False",
                                                "lastProbeTime": None, "lastTransitionTime": None}]}}
            await timed(session, tally, "status", "PATCH", f"{url}{PODS}/{name}/status", (200,), orjson.dumps(patch),
                        "application/strategic-merge-patch+json")
        await asyncio.sleep(pause)


async def rewrite_configmap(session: aiohttp.ClientSession, url: str, tally: Tally, writes: int,
                            until: float) -> None:
    pace = max(0.0, (until - time.monotonic()) / max(1, writes))
    for index in range(writes):
        if time.monotonic() > until:
            break
        body = orjson.dumps({"metadata": {"name": "big"}, "data": {"blob": chr(97 + index % 26) * (1024 * 1024 - 64)}})
        if index == 0:
            await timed(session, tally, "configmap", "POST", url + CONFIGMAPS, (201,), body)
        else:
            await timed(session, tally, "configmap", "PUT", url + CONFIGMAPS + "/big", (200,), body)
        await asyncio.sleep(pace)


async def follow_logs(session: aiohttp.ClientSession, url: str, tally: Tally, live: list[str], follower: int,
                      until: float) -> None:
    for index in range(1_000_000):
        if time.monotonic() > until or not live:
            await asyncio.sleep(0.5)
            if time.monotonic() > until:
                break
            continue
        name = live[(index * LOG_FOLLOWERS + follower) % len(live)]
        since = time.monotonic()
        try:
            async with session.get(f"{url}{PODS}/{name}/log?follow=true",
                                   timeout=aiohttp.ClientTimeout(total=max(1.0, until - since))) as response:
                await response.read()  # until the container ends (the pod is deleted), or the run does
                # 400: the container is not running yet; 404: the pod is gone already
                tally.record("log", since, response.status, (200, 400, 404))
        except TimeoutError:
            tally.record("log", since, 200, (200,))  # followed to the end of the run
        except aiohttp.ClientError as error:
            tally.record("log", since, 0, (200,), repr(error))


async def watch(session: aiohttp.ClientSession, url: str, state: Watch, since: str, until: float) -> None:
    query = f"?watch=true&resourceVersion={since}&timeoutSeconds={int(until - time.monotonic()) + 120}"
    digest = hashlib.blake2b(digest_size=16)
    timeout = aiohttp.ClientTimeout(total=None, sock_read=max(5.0, until - time.monotonic() + 60))
    try:
        async with session.get(url + WATCHED[state.resource] + query, timeout=timeout) as response:
            async for line in _lines(response):
                event = orjson.loads(line)
                meta = event["object"].get("metadata", {})
                if event["type"] == "ERROR":
                    state.gaps.append(f"ERROR event: {event['object'].get('message')}")
                    break
                rv = int(meta["resourceVersion"])
                if rv <= state.last_rv:
                    state.gaps.append(f"resourceVersion {rv} after {state.last_rv}")
                state.last_rv, state.events = rv, state.events + 1
                if not state.saw_marker.is_set():
                    digest.update(f"{event['type']} {meta.get('namespace')}/{meta.get('name')} {rv}\n".encode())
                    state.digest = digest.hexdigest()
                    if state.resource == "pods" and meta.get("name") == MARKER:
                        state.saw_marker.set()
                if time.monotonic() > until + 60:
                    break
    except (aiohttp.ClientError, TimeoutError) as error:
        state.gaps.append(f"the watch failed: {error!r}")


async def _lines(response: aiohttp.ClientResponse) -> AsyncIterator[bytes]:
    """The stream's lines, however long (readline stops at aiohttp's line limit; a 1 MiB object passes it)."""
    pending = b""
    async for chunk in response.content.iter_any():
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for line in lines:
            if line:
                yield line


async def configmap_alone(session: aiohttp.ClientSession, url: str, pid: int, writes: int, until: float) -> None:
    since = str(orjson.loads(await (await session.get(url + CONFIGMAPS + "?limit=1")).read())["metadata"][
        "resourceVersion"])
    watches = [Watch("configmaps") for _ in range(5)]
    watching = [asyncio.create_task(watch(session, url, state, since, until)) for state in watches]
    tally = Tally(time.monotonic())
    before = peak = rss_kib(pid)
    started = time.monotonic()
    for index in range(writes):
        body = orjson.dumps({"metadata": {"name": "alone"},
                             "data": {"blob": chr(97 + index % 26) * (1024 * 1024 - 64)}})
        if index == 0:
            await timed(session, tally, "configmap", "POST", url + CONFIGMAPS, (201,), body)
        else:
            await timed(session, tally, "configmap", "PUT", url + CONFIGMAPS + "/alone", (200,), body)
        if index % 10 == 0:
            peak = max(peak, rss_kib(pid))
        if time.monotonic() > until:
            break
    took = time.monotonic() - started
    await asyncio.sleep(2)  # the watches read the last events
    for task in watching:
        task.cancel()
    await asyncio.gather(*watching, return_exceptions=True)
    after = rss_kib(pid)
    await timed(session, tally, "configmap", "DELETE", url + CONFIGMAPS + "/alone", (200,))
    gaps = sum(len(state.gaps) for state in watches) + len({state.digest for state in watches}) - 1
    print(f"a 1 MiB ConfigMap rewritten {tally.counts['configmap'] - 1} times in {took:.0f} s, 5 watches reading: "
          f"RSS {before / 1024:.0f} MiB before, largest {peak / 1024:.0f} MiB (+{(peak - before) / 1024:.0f} MiB), "
          f"{after / 1024:.0f} MiB after; errors {len(tally.errors)}, watch gaps {gaps}, events per watch "
          f"{min(state.events for state in watches)}-{max(state.events for state in watches)}")


async def sample_rss(pid: int, started: float, until: float, samples: list[tuple[float, int]]) -> None:
    while time.monotonic() < until:
        samples.append((time.monotonic() - started, rss_kib(pid)))
        await asyncio.sleep(RSS_EVERY)


def percentile(values: list[float], fraction: float) -> float:
    return sorted(values)[min(len(values) - 1, int(len(values) * fraction))]


async def run(url: str, pid: int, args: argparse.Namespace) -> None:
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=120)) as session:
        async with session.get(url + "/api/v1/pods?limit=1") as response:
            since = str(orjson.loads(await response.read())["metadata"]["resourceVersion"])
        started = time.monotonic()
        until = started + args.minutes * 60
        tally = Tally(started)
        kinds = ["pods"] * (args.watches - 2 * (args.watches // 5)) + ["events", "configmaps"] * (args.watches // 5)
        watches = [Watch(resource) for resource in kinds]
        watching = [asyncio.create_task(watch(session, url, state, since, until)) for state in watches]
        rss: list[tuple[float, int]] = []
        start_rss = rss_kib(pid)
        live: list[str] = []
        load = [*(churn(session, url, tally, worker, live, until, args.pause) for worker in range(POD_WORKERS)),
                *(write_status(session, url, tally, live, until, args.pause) for _ in range(STATUS_WORKERS)),
                rewrite_configmap(session, url, tally, args.configmap_writes, until),
                *(follow_logs(session, url, tally, live, follower, until) for follower in range(LOG_FOLLOWERS)),
                sample_rss(pid, started, until, rss)]
        await asyncio.gather(*load)
        rss.append((time.monotonic() - started, rss_kib(pid)))
        await timed(session, tally, "create", "POST", url + PODS, (201,), pod(MARKER))
        pod_watches = [state for state in watches if state.resource == "pods"]
        try:
            await asyncio.wait_for(asyncio.gather(*(state.saw_marker.wait() for state in pod_watches)), 60)
        except TimeoutError:
            pass
        for task in watching:
            task.cancel()
        await asyncio.gather(*watching, return_exceptions=True)
    report(args, tally, watches, rss, start_rss)


def report(args: argparse.Namespace, tally: Tally, watches: list[Watch], rss: list[tuple[float, int]],
           start_rss: int) -> None:
    print(f"soak: {args.minutes:g} min, {args.nodes} nodes, {args.watches} watches, "
          f"{args.configmap_writes} rewrites of a 1 MiB ConfigMap")
    print("RSS over time (MiB): " + ", ".join(f"{seconds / 60:.1f} min {kib / 1024:.0f}" for seconds, kib in rss))
    peak = max(kib for _, kib in rss)
    print(f"RSS at the start {start_rss / 1024:.0f} MiB, largest {peak / 1024:.0f} MiB "
          f"(+{(peak - start_rss) / 1024:.0f} MiB), at the end {rss[-1][1] / 1024:.0f} MiB")
    print("requests: " + ", ".join(f"{what} {count}" for what, count in sorted(tally.counts.items()))
          + f"; 404s for pods deleted meanwhile {tally.expected_misses}")
    print(f"errors: {len(tally.errors)}" + "".join(f"\n  {error}" for error in tally.errors[:10]))
    by_resource: dict[str, set[str]] = defaultdict(set)
    gaps = 0
    for state in watches:
        by_resource[state.resource].add(state.digest)
        gaps += len(state.gaps)
        for gap in state.gaps[:3]:
            print(f"  watch of {state.resource}: {gap}")
    unmarked = [state for state in watches if state.resource == "pods" and not state.saw_marker.is_set()]
    disagreeing = sum(len(digests) - 1 for digests in by_resource.values())
    events = {resource: [state.events for state in watches if state.resource == resource] for resource in WATCHED}
    print(f"watch gaps: {gaps + disagreeing + len(unmarked)} ({gaps} out of order or cut off, {disagreeing} "
          f"watches that saw other events than their resource's others, {len(unmarked)} pod watches that never "
          f"saw the final marker); events per watch: " + ", ".join(
              f"{resource} {min(counts)}-{max(counts)}" for resource, counts in events.items() if counts))
    print("request latency by kind (ms): " + ", ".join(
        f"{what} p50 {statistics.median(values):.1f} p99 {percentile(values, 0.99):.1f}"
        for what, values in sorted(tally.by_kind.items()) if what != "log"))
    print("request latency by minute (ms; all but log follows):")
    for minute, latencies in sorted(tally.latencies.items()):
        print(f"  minute {minute + 1}: {len(latencies)} requests, p50 {statistics.median(latencies):.1f}, "
              f"p99 {percentile(latencies, 0.99):.1f}, max {max(latencies):.1f}")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--nodes", type=int, default=20)
    parser.add_argument("--watches", type=int, default=50)
    parser.add_argument("--configmap-writes", type=int, default=1000)
    parser.add_argument("--pause", type=float, default=0.1, help="seconds between a load worker's requests")
    args = parser.parse_args()
    port = free_port()
    url = f"http://{HOST}:{port}"
    server = subprocess.Popen([sys.executable, "-m", "fakeapi", "serve", "--host", HOST, "--port", str(port),
                               "--nodes", str(args.nodes)], start_new_session=True, stdout=subprocess.DEVNULL)
    try:
        await wait_ready(url, time.monotonic() + 30)
        await wait_for_nodes(url, args.nodes, time.monotonic() + 120)
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=120)) as session:
            await configmap_alone(session, url, server.pid, args.configmap_writes, time.monotonic() + 600)
        await run(url, server.pid, args)
    finally:
        stop(server)


if __name__ == "__main__":
    asyncio.run(main())
