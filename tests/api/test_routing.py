"""Which handler a path reaches: the namespaced collection, object and subresource paths, and the
paths of the same shape that other routes serve."""

from __future__ import annotations

from typing import Any

from tests.builders import pod

PODS = "/api/v1/namespaces/default/pods"


async def test_each_depth_reaches_its_handler(client: Any) -> None:
    assert (await client.post(PODS, json=pod())).status == 201
    assert (await (await client.get(PODS)).json())["kind"] == "PodList"
    assert (await (await client.get(PODS + "/web")).json())["kind"] == "Pod"
    assert (await (await client.get(PODS + "/web/status")).json())["kind"] == "Pod"
    head = await client.head(PODS + "/web")
    assert head.status == 200 and await head.read() == b""


async def test_a_namespace_status_and_a_pod_binding_keep_their_own_routes(client: Any) -> None:
    namespace = await (await client.get("/api/v1/namespaces/default/status")).json()
    assert (namespace["kind"], namespace["metadata"]["name"]) == ("Namespace", "default")
    binding = await client.get(PODS + "/web/binding")  # binding is POST only
    assert binding.status == 405
    assert (await binding.json())["reason"] == "MethodNotAllowed"


async def test_a_method_a_depth_does_not_serve_is_405_and_a_deeper_path_404(client: Any) -> None:
    put_collection = await client.put(PODS, json=pod())
    assert (put_collection.status, (await put_collection.json())["reason"]) == (405, "MethodNotAllowed")
    too_deep = await client.get(PODS + "/web/status/extra")
    assert (too_deep.status, (await too_deep.json())["reason"]) == (404, "NotFound")
    empty_segment = await client.get("/api/v1/namespaces/default//web")
    assert empty_segment.status == 404


async def test_an_escaped_slash_in_a_name_is_unescaped(client: Any) -> None:
    response = await client.get(PODS + "/a%2Fb")
    assert (await response.json())["message"] == 'pods "a/b" not found'
