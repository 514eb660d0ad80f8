"""PATCH on pods and their subresources: the three patch types, then the update pipeline."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from fakeapi.http.keys import api_key
from fakeapi.http.largepatches import computed_ahead
from fakeapi.machinery.patch import STRATEGIC_MERGE_PATCH
from fakeapi.registry.options import WriteOptions
from fakeapi.registry.patchers import patcher_for
from tests.builders import GUARANTEED, pod

PODS = "/api/v1/namespaces/default/pods"
SMP = {"Content-Type": "application/strategic-merge-patch+json"}
MERGE = {"Content-Type": "application/merge-patch+json"}
JSONPATCH = {"Content-Type": "application/json-patch+json"}


async def created(client: Any, body: dict[str, Any] | None = None) -> dict[str, Any]:
    response = await client.post(PODS, json=body or pod())
    assert response.status == 201, await response.text()
    result: dict[str, Any] = await response.json()
    return result


async def test_strategic_merge_patch_merges_containers_by_name(client: Any) -> None:
    body = pod()
    body["spec"]["containers"].append({"name": "side", "image": "busybox", "env": [{"name": "A", "value": "1"}]})
    await created(client, body)
    patch = {"spec": {"containers": [{"name": "side", "image": "busybox:2"}]}}
    response = await client.patch(PODS + "/web", json=patch, headers=SMP)
    assert response.status == 200, await response.text()
    containers = (await response.json())["spec"]["containers"]
    assert [c["name"] for c in containers] == ["web", "side"]
    assert containers[0]["image"] == "nginx:1.27"
    assert containers[1]["image"] == "busybox:2"
    assert containers[1]["env"] == [{"name": "A", "value": "1"}]


async def test_kubectl_apply_patch_with_set_element_order(client: Any) -> None:
    await created(client)
    patch = {"metadata": {"labels": {"tier": "web"}},
             "spec": {"$setElementOrder/containers": [{"name": "web"}],
                      "containers": [{"image": "nginx:1.28", "name": "web"}]}}
    patched = await (await client.patch(PODS + "/web", json=patch, headers=SMP)).json()
    assert patched["spec"]["containers"][0]["image"] == "nginx:1.28"
    assert patched["metadata"]["labels"] == {"app": "web", "tier": "web"}
    assert patched["metadata"]["generation"] == 2


async def test_merge_patch_null_removes_a_label(client: Any) -> None:
    await created(client)
    patched = await (await client.patch(PODS + "/web", json={"metadata": {"labels": {"app": None}}},
                                        headers=MERGE)).json()
    assert "app" not in patched["metadata"].get("labels", {})


async def test_json_patch_replace(client: Any) -> None:
    await created(client)
    patch = [{"op": "replace", "path": "/metadata/labels/app", "value": "json"}]
    patched = await (await client.patch(PODS + "/web", json=patch, headers=JSONPATCH)).json()
    assert patched["metadata"]["labels"]["app"] == "json"


async def test_failed_json_patch_test_is_422_and_changes_nothing(client: Any) -> None:
    before = await created(client)
    patch = [{"op": "test", "path": "/metadata/labels/app", "value": "other"}]
    response = await client.patch(PODS + "/web", json=patch, headers=JSONPATCH)
    assert response.status == 422
    assert (await response.json())["reason"] == "Invalid"
    assert await (await client.get(PODS + "/web")).json() == before


async def test_no_op_patch_keeps_resource_version(client: Any) -> None:
    before = await created(client)
    patched = await (await client.patch(PODS + "/web", json={"metadata": {"labels": {"app": "web"}}},
                                        headers=MERGE)).json()
    assert patched["metadata"]["resourceVersion"] == before["metadata"]["resourceVersion"]


async def test_patch_status_on_main_resource_is_ignored(client: Any) -> None:
    await created(client)
    patched = await (await client.patch(PODS + "/web", json={"status": {"phase": "Running"}},
                                        headers=MERGE)).json()
    assert patched["status"]["phase"] == "Pending"


async def test_strategic_patch_of_status_conditions_merges_by_type(client: Any) -> None:
    await created(client)
    await client.patch(PODS + "/web/status", headers=SMP, json={"status": {"conditions": [
        {"type": "Ready", "status": "False"}, {"type": "PodScheduled", "status": "True"}]}})
    patched = await (await client.patch(PODS + "/web/status", headers=SMP, json={"status": {"conditions": [
        {"type": "Ready", "status": "True"}]}})).json()
    assert {c["type"]: c["status"] for c in patched["status"]["conditions"]} == {
        "Ready": "True", "PodScheduled": "True"}


async def test_patch_that_breaks_the_shape_is_400_not_500(client: Any) -> None:
    await created(client)
    response = await client.patch(PODS + "/web", json={"spec": {"containers": {"name": "x"}}}, headers=MERGE)
    assert response.status in (400, 422)
    assert (await response.json())["kind"] == "Status"


async def test_unsupported_patch_type_is_415(client: Any) -> None:
    await created(client)
    response = await client.patch(PODS + "/web", json={}, headers={"Content-Type": "application/json"})
    assert response.status == 415
    assert (await response.json())["reason"] == "UnsupportedMediaType"


async def test_patch_missing_pod_is_404(client: Any) -> None:
    response = await client.patch(PODS + "/nope", json={}, headers=MERGE)
    assert response.status == 404


async def test_resize_changes_resources_within_the_qos_class(client: Any) -> None:
    await created(client, pod(limits={"cpu": "1", "memory": "1Gi"}, requests={"cpu": "500m", "memory": "512Mi"}))
    patch = {"spec": {"containers": [{"name": "web", "resources": {
        "limits": {"cpu": "2", "memory": "1Gi"}, "requests": {"cpu": "1", "memory": "512Mi"}}}]}}
    response = await client.patch(PODS + "/web/resize", json=patch, headers=SMP)
    assert response.status == 200, await response.text()
    resized = await response.json()
    assert resized["spec"]["containers"][0]["resources"]["limits"]["cpu"] == "2"
    assert resized["status"]["qosClass"] == "Burstable"


async def test_resize_that_changes_qos_class_is_422(client: Any) -> None:
    await created(client, pod(limits=GUARANTEED))
    patch = {"spec": {"containers": [{"name": "web", "resources": {
        "limits": {"cpu": "1", "memory": "128Mi"}, "requests": {"cpu": "500m", "memory": "128Mi"}}}]}}
    response = await client.patch(PODS + "/web/resize", json=patch, headers=SMP)
    assert response.status == 422
    assert "Pod QOS Class may not change as a result of resizing" in (await response.json())["message"]


async def test_resize_ignores_everything_but_resources(client: Any) -> None:
    await created(client, pod(limits={"cpu": "1", "memory": "1Gi"}, requests={"cpu": "500m", "memory": "512Mi"}))
    patch = {"metadata": {"labels": {"x": "y"}}, "spec": {"containers": [{"name": "web", "image": "other"}]}}
    resized = await (await client.patch(PODS + "/web/resize", json=patch, headers=SMP)).json()
    assert resized["spec"]["containers"][0]["image"] == "nginx:1.27"
    assert "x" not in resized["metadata"]["labels"]


@pytest.mark.filterwarnings("ignore:Sending a large body directly:ResourceWarning")  # (aiohttp's client)
async def test_a_large_patch_is_computed_off_the_loop_and_patched_afresh_if_the_object_changed(client: Any) -> None:
    """A body over 64 KiB is patched in a worker thread against the object as the request found it; a write
    that lands meanwhile is not lost: the patch is then applied again, to the latest version."""
    registry = client.app[api_key].registry("configmaps")
    registry.create("default", {"metadata": {"name": "big"}, "data": {"a": "1"}}, WriteOptions())
    patch = {"data": {f"key-{index}": "x" * 20 for index in range(4000)}}  # ~120 KiB
    patcher = patcher_for(STRATEGIC_MERGE_PATCH, registry.kind.patch_tree, "Strict")
    ahead = await computed_ahead(registry, "default", "big", patcher, patch, len(orjson.dumps(patch)))
    assert ahead is not patcher
    registry.patch("default", "big", patcher, {"data": {"b": "2"}}, WriteOptions())  # meanwhile
    patched = registry.patch("default", "big", ahead, patch, WriteOptions())
    assert (patched["data"]["a"], patched["data"]["b"], len(patched["data"])) == ("1", "2", 4002)
    response = await client.patch("/api/v1/namespaces/default/configmaps/big", data=orjson.dumps(
        {"data": {f"key-{index}": "y" * 10 for index in range(4000)}}),  # over 64 KiB too
        headers={"Content-Type": STRATEGIC_MERGE_PATCH})
    assert response.status == 200 and set((await response.json())["data"].values()) == {"1", "2", "y" * 10}
