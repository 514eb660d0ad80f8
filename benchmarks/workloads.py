"""The workload kinds and Services: Deployment creates against pod creates in the same run, and Service
creates as the number of stored Services grows (each create reads the addresses and ports the stored Services
hold, so its cost grows with them).

    python benchmarks/workloads.py [--objects 300] [--services 2000]

One in-process server on 127.0.0.1 with no simulated nodes, driven over HTTP by one aiohttp client, one
request at a time. Every loop is bounded by its count. Figures, not assertions.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from typing import Any

import aiohttp

from fakeapi.testing import FakeAPIServer

NAMESPACE = "/api/v1/namespaces/default"


def pod(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": {"app": "bench"}},
            "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}]}}


def deployment(name: str) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"replicas": 2, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}]}}}}


def service(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name},
            "spec": {"type": "NodePort", "selector": {"app": name}, "ports": [{"port": 80}]}}


async def creates(session: aiohttp.ClientSession, url: str, bodies: list[dict[str, Any]]) -> float:
    """Creates per second."""
    started = time.perf_counter()
    for body in bodies:
        async with session.post(url, json=body) as response:
            assert response.status == 201, await response.text()
            await response.read()
    return len(bodies) / (time.perf_counter() - started)


async def run(objects: int, services: int) -> None:
    async with FakeAPIServer(nodes=0) as server, aiohttp.ClientSession() as session:
        base = server.url
        rounds = []
        for index in range(3):
            pods = await creates(session, f"{base}{NAMESPACE}/pods", [pod(f"p{index}-{i}") for i in range(objects)])
            deployments = await creates(session, f"{base}/apis/apps/v1/namespaces/default/deployments",
                                        [deployment(f"d{index}-{i}") for i in range(objects)])
            rounds.append((pods, deployments))
        pod_rate = statistics.median(rate for rate, _ in rounds)
        deployment_rate = statistics.median(rate for _, rate in rounds)
        print(f"creates/s: pods {pod_rate:.0f}, deployments {deployment_rate:.0f}; "
              f"ratio {deployment_rate / pod_rate:.2f}")
        batch = max(1, services // 10)
        made = 0
        while made < services:  # NodePort Services: a cluster IP and a node port each
            rate = await creates(session, f"{base}{NAMESPACE}/services",
                                 [service(f"s{made + i}") for i in range(batch)])
            made += batch
            print(f"Service creates/s with {made - batch:>5} to {made:>5} stored: {rate:.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--objects", type=int, default=300)
    parser.add_argument("--services", type=int, default=2000)
    arguments = parser.parse_args()
    asyncio.run(run(arguments.objects, arguments.services))


if __name__ == "__main__":
    main()
