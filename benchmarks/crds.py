"""Custom resources: creates of a 50-field schema with 3 CEL rules against pod creates in the same run,
a CRD's registration to Established, and discovery and OpenAPI with 100 CRDs registered.

    python benchmarks/crds.py [--objects 500] [--crds 100]

One in-process server on 127.0.0.1, driven over HTTP by one aiohttp client, one request at a time. Every
loop is bounded by its count; the run takes some seconds. Figures, not assertions.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from typing import Any

import aiohttp

from fakeapi.testing import FakeAPIServer

GROUP = "bench.example.com"


def schema() -> dict[str, Any]:
    fields: dict[str, Any] = {}
    for index in range(50):
        kind = ("string", "integer", "boolean")[index % 3]
        field: dict[str, Any] = {"type": kind}
        if kind == "string":
            field["maxLength"] = 64
        if kind == "integer":
            field.update(minimum=0, maximum=1000)
        fields[f"field{index}"] = field
    rules = [{"rule": "self.field1 <= self.field4", "message": "field1 may not exceed field4"},
             {"rule": "self.field0.startsWith('v')"},
             {"rule": "size(self.field3) < 32"}]
    return {"type": "object", "properties": {"spec": {"type": "object", "properties": fields,
                                                      "x-kubernetes-validations": rules}}}


def crd(plural: str, kind: str) -> dict[str, Any]:
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"{plural}.{GROUP}"},
            "spec": {"group": GROUP, "scope": "Namespaced",
                     "names": {"plural": plural, "singular": plural[:-1], "kind": kind},
                     "versions": [{"name": "v1", "served": True, "storage": True,
                                   "schema": {"openAPIV3Schema": schema()}}]}}


def custom_resource(name: str) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    for index in range(50):
        spec[f"field{index}"] = (f"v{index}", index * 2, index % 2 == 0)[index % 3]
    return {"apiVersion": f"{GROUP}/v1", "kind": "Widget", "metadata": {"name": name}, "spec": spec}


def pod(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": {"app": "bench"}},
            "spec": {"containers": [{"name": "app", "image": "nginx:1.27",
                                     "resources": {"limits": {"cpu": "100m", "memory": "64Mi"}}}]}}


async def creates(session: aiohttp.ClientSession, url: str, bodies: list[dict[str, Any]]) -> float:
    started = time.perf_counter()
    for body in bodies:
        async with session.post(url, json=body) as response:
            assert response.status == 201, await response.text()
            await response.read()
    return len(bodies) / (time.perf_counter() - started)


async def timed_get(session: aiohttp.ClientSession, url: str, headers: dict[str, str] | None = None) -> float:
    started = time.perf_counter()
    async with session.get(url, headers=headers or {}) as response:
        assert response.status == 200, url
        await response.read()
    return time.perf_counter() - started


async def run(objects: int, crds: int) -> None:
    async with FakeAPIServer(nodes=0) as server:
        base = server.url
        async with aiohttp.ClientSession() as session:
            started = time.perf_counter()
            async with session.post(f"{base}/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                                    json=crd("widgets", "Widget")) as response:
                assert response.status == 201
            async with session.get(f"{base}/apis/{GROUP}/v1/namespaces/default/widgets") as listed:
                assert listed.status == 200
            established = time.perf_counter() - started
            later: list[float] = []
            for index in range(5):
                started = time.perf_counter()
                async with session.post(f"{base}/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                                        json=crd(f"gadget{index}s", f"Gadget{index}")) as response:
                    assert response.status == 201
                async with session.get(f"{base}/apis/{GROUP}/v1/namespaces/default/gadget{index}s") as listed:
                    assert listed.status == 200
                later.append(time.perf_counter() - started)
            print(f"CRD registered to Established and served (POST, then a list answered): the process's first "
                  f"{established * 1000:.1f} ms, then median {statistics.median(later) * 1000:.1f} ms")
            rounds: list[tuple[float, float]] = []
            for round_index in range(3):
                pod_rate = await creates(session, f"{base}/api/v1/namespaces/default/pods",
                                         [pod(f"p{round_index}-{i}") for i in range(objects)])
                cr_rate = await creates(session, f"{base}/apis/{GROUP}/v1/namespaces/default/widgets",
                                        [custom_resource(f"w{round_index}-{i}") for i in range(objects)])
                rounds.append((pod_rate, cr_rate))
            pod_rate = statistics.median(rate for rate, _ in rounds)
            cr_rate = statistics.median(rate for _, rate in rounds)
            print(f"creates/s: pods {pod_rate:.0f}, custom resources (50 fields, 3 CEL rules) {cr_rate:.0f}; "
                  f"ratio {cr_rate / pod_rate:.2f}")
            registration: list[float] = []
            for index in range(1, crds):
                started = time.perf_counter()
                async with session.post(f"{base}/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                                        json=crd(f"kind{index}s", f"Kind{index}")) as response:
                    assert response.status == 201
                registration.append(time.perf_counter() - started)
            print(f"{crds + 5} CRDs: registration median {statistics.median(registration) * 1000:.1f} ms, "
                  f"worst {max(registration) * 1000:.1f} ms")
            aggregated = {"Accept": "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"}
            for name, url, headers in (("aggregated discovery /apis", f"{base}/apis", aggregated),
                                       ("legacy /apis", f"{base}/apis", None),
                                       ("/openapi/v3", f"{base}/openapi/v3", None),
                                       (f"/openapi/v3/apis/{GROUP}/v1", f"{base}/openapi/v3/apis/{GROUP}/v1", None),
                                       ("/openapi/v2", f"{base}/openapi/v2", None)):
                first = await timed_get(session, url, headers)
                again = statistics.median([await timed_get(session, url, headers) for _ in range(5)])
                print(f"{name:<40} first {first * 1000:7.1f} ms   then {again * 1000:7.1f} ms")
            for name, url in (("/openapi/v3", f"{base}/openapi/v3"), ("/openapi/v2", f"{base}/openapi/v2")):
                changed: list[float] = []
                for round_index in range(3):
                    await timed_get(session, url)  # current before the change
                    other = crd(f"extra{round_index}s", f"Extra{round_index}")
                    other["metadata"]["name"] = f"extra{round_index}s.{name[-2:]}.other.example.com"
                    other["spec"]["group"] = f"{name[-2:]}.other.example.com"
                    async with session.post(f"{base}/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                                            json=other) as response:
                        assert response.status == 201, await response.text()
                    changed.append(await timed_get(session, url))
                print(f"{name:<40} first after a CRD was added: median {statistics.median(changed) * 1000:.1f} ms, "
                      f"worst {max(changed) * 1000:.1f} ms")
        print("(first: the server's first request for the document; after: a CRD of a new group was added)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--objects", type=int, default=300)
    parser.add_argument("--crds", type=int, default=100)
    arguments = parser.parse_args()
    asyncio.run(run(arguments.objects, arguments.crds))


if __name__ == "__main__":
    main()
