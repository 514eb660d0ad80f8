"""The kinds served can change while the server runs: one call adds or removes a kind, and discovery,
the OpenAPI documents, routing, storage and watch follow at the next request."""

from __future__ import annotations

import asyncio
from typing import Any

import orjson
from kubernetes import client as k8s
from kubernetes import dynamic

from fakeapi.http.keys import api_key
from fakeapi.kinds.kind import Kind, ResourceInfo
from fakeapi.kinds.strategy import Strategy

AGGREGATED = {"Accept": "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"}
PRIORITY_CLASSES = "/apis/scheduling.k8s.io/v1/priorityclasses"
PRIORITY_CLASS = Kind(
    ResourceInfo("priorityclasses", "PriorityClass", namespaced=False, singular="priorityclass",
                 short_names=("pc",), group="scheduling.k8s.io", definition="io.k8s.api.scheduling.v1.PriorityClass"),
    Strategy(),
)


def groups(discovery: dict[str, Any]) -> list[str]:
    return [item["metadata"]["name"] for item in discovery["items"]]


async def poll_discovery(client: Any, etag: str, seen: list[str]) -> dict[str, Any]:
    """What a discovery client does: ask again and again with the ETag it holds, until it changes."""
    while True:
        response = await client.get("/apis", headers={**AGGREGATED, "If-None-Match": etag})
        if response.status == 200:
            return dict(await response.json())
        seen.append(str(response.status))
        await asyncio.sleep(0.01)


async def test_a_kind_added_while_a_client_watches_discovery_is_served_at_once(client: Any) -> None:
    first = await client.get("/apis", headers=AGGREGATED)
    assert "scheduling.k8s.io" not in groups(await first.json())
    assert (await client.get(PRIORITY_CLASSES)).status == 404
    seen: list[str] = []
    watching = asyncio.create_task(poll_discovery(client, first.headers["ETag"], seen))
    while not seen:
        await asyncio.sleep(0.01)
    assert seen[0] == "304"  # nothing changed yet

    client.app[api_key].kinds.add(PRIORITY_CLASS)
    changed = await asyncio.wait_for(watching, 5)
    scheduling = next(item for item in changed["items"] if item["metadata"]["name"] == "scheduling.k8s.io")
    [version] = scheduling["versions"]
    assert [(r["resource"], r["scope"], r["shortNames"]) for r in version["resources"]] == [
        ("priorityclasses", "Cluster", ["pc"])]

    watch = await client.get(PRIORITY_CLASSES + "?watch=true")
    created = await client.post(PRIORITY_CLASSES, json={"metadata": {"name": "high"}, "value": 1000})
    assert created.status == 201, await created.text()
    event = orjson.loads(await asyncio.wait_for(watch.content.readline(), 5))
    assert (event["type"], event["object"]["metadata"]["name"], event["object"]["value"]) == ("ADDED", "high", 1000)
    watch.close()
    bad = await client.post(PRIORITY_CLASSES, json={"metadata": {"name": "x"}, "value": "high"})
    assert bad.status == 400
    assert (await bad.json())["message"] == (
        'PriorityClass in version "v1" cannot be handled as a PriorityClass: json: cannot unmarshal string '
        "into Go struct field PriorityClass.value of type int32")
    openapi = await (await client.get("/openapi/v3")).json()
    assert "apis/scheduling.k8s.io/v1" in openapi["paths"]


async def test_a_kind_removed_is_no_longer_served_and_its_objects_stay_stored(client: Any) -> None:
    kinds = client.app[api_key].kinds
    kinds.add(PRIORITY_CLASS)
    assert (await client.post(PRIORITY_CLASSES, json={"metadata": {"name": "high"}, "value": 1000})).status == 201
    kinds.remove("scheduling.k8s.io", "v1", "priorityclasses")
    assert (await client.get(PRIORITY_CLASSES)).status == 404
    assert "scheduling.k8s.io" not in groups(await (await client.get("/apis", headers=AGGREGATED)).json())
    assert "apis/scheduling.k8s.io/v1" not in (await (await client.get("/openapi/v3")).json())["paths"]
    kinds.add(PRIORITY_CLASS)
    listed = await (await client.get(PRIORITY_CLASSES)).json()
    assert [item["metadata"]["name"] for item in listed["items"]] == ["high"]


def test_the_official_dynamic_client_finds_a_kind_added_at_run_time(live_server_factory: Any) -> None:
    from fakeapi.app import create_app

    app = create_app()
    server = live_server_factory(app)
    configuration = k8s.Configuration()
    configuration.host = server.url
    api_client = k8s.ApiClient(configuration)
    server.call(app[api_key].kinds.add, PRIORITY_CLASS)
    resource = dynamic.DynamicClient(api_client).resources.get(api_version="scheduling.k8s.io/v1",
                                                               kind="PriorityClass")
    resource.create(body={"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                          "metadata": {"name": "low"}, "value": 1})
    assert [item.metadata.name for item in resource.get().items] == ["low"]
