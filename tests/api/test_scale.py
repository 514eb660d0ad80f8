"""The /scale subresource a kind declares by paths (its replicas, as an autoscaling/v1 Scale), shown with
ReplicaSets."""

from __future__ import annotations

from typing import Any

import pytest
from kubernetes import client as k8s

from fakeapi.app import create_app

REPLICA_SETS = "/apis/apps/v1/namespaces/default/replicasets"
MERGE = {"Content-Type": "application/merge-patch+json"}
WEB: dict[str, Any] = {
    "metadata": {"name": "web"},
    "spec": {"replicas": 2,
             "selector": {"matchLabels": {"app": "web"},
                          "matchExpressions": [{"key": "tier", "operator": "In", "values": ["b", "a"]}]},
             "template": {"metadata": {"labels": {"app": "web", "tier": "a"}},
                          "spec": {"containers": [{"name": "web", "image": "nginx"}]}}},
}


@pytest.fixture
async def served(aiohttp_client: Any) -> Any:
    client = await aiohttp_client(create_app())
    assert (await client.post(REPLICA_SETS, json=WEB)).status == 201
    return client


async def test_the_scale_of_an_object_is_read_from_its_paths(served: Any) -> None:
    stored = await (await served.get(REPLICA_SETS + "/web")).json()
    scale = await (await served.get(REPLICA_SETS + "/web/scale")).json()
    meta = stored["metadata"]
    assert scale == {
        "kind": "Scale", "apiVersion": "autoscaling/v1",
        "metadata": {"name": "web", "namespace": "default", "uid": meta["uid"],
                     "resourceVersion": meta["resourceVersion"], "creationTimestamp": meta["creationTimestamp"]},
        "spec": {"replicas": 2},
        "status": {"replicas": 0, "selector": "app=web,tier in (a,b)"},
    }


async def test_a_patch_of_the_scale_sets_the_objects_replicas_through_its_update(served: Any) -> None:
    patched = await served.patch(REPLICA_SETS + "/web/scale", json={"spec": {"replicas": 5}}, headers=MERGE)
    assert patched.status == 200, await patched.text()
    assert (await patched.json())["spec"] == {"replicas": 5}
    stored = await (await served.get(REPLICA_SETS + "/web")).json()
    assert stored["spec"]["replicas"] == 5
    assert stored["spec"]["template"]["metadata"]["labels"] == {"app": "web", "tier": "a"}  # the rest as it was
    [_created, scaled] = stored["metadata"]["managedFields"]
    assert (scaled["subresource"], scaled["fieldsV1"]) == ("scale", {"f:spec": {"f:replicas": {}}})


async def test_a_stale_scale_is_a_conflict_and_a_negative_one_is_invalid(served: Any) -> None:
    scale = await (await served.get(REPLICA_SETS + "/web/scale")).json()
    await served.patch(REPLICA_SETS + "/web/scale", json={"spec": {"replicas": 3}}, headers=MERGE)
    stale = await served.put(REPLICA_SETS + "/web/scale", json={**scale, "spec": {"replicas": 4}})
    assert stale.status == 409
    assert (await stale.json())["message"] == (
        'Operation cannot be fulfilled on replicasets.apps "web": the object has been modified; please apply '
        "your changes to the latest version and try again")
    negative = await served.put(REPLICA_SETS + "/web/scale", json={"metadata": {"name": "web"},
                                                                  "spec": {"replicas": -1}})
    assert negative.status == 422
    assert (await negative.json())["message"] == (
        'Scale.autoscaling "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0')
    assert (await (await served.get(REPLICA_SETS + "/web")).json())["spec"]["replicas"] == 3


async def test_discovery_lists_the_scale_subresource(served: Any) -> None:
    resources = (await (await served.get("/apis/apps/v1")).json())["resources"]
    assert {"name": "replicasets/scale", "singularName": "", "namespaced": True, "group": "autoscaling",
            "version": "v1", "kind": "Scale", "verbs": ["get", "patch", "update"]} in resources
    assert (await served.get("/apis/apps/v1/namespaces/default/replicasets/nope/scale")).status == 404


def test_the_official_client_scales_through_the_subresource(live_server_factory: Any) -> None:
    server = live_server_factory(create_app())
    configuration = k8s.Configuration()
    configuration.host = server.url
    apps = k8s.AppsV1Api(k8s.ApiClient(configuration))
    apps.create_namespaced_replica_set("default", WEB)
    apps.patch_namespaced_replica_set_scale("web", "default", {"spec": {"replicas": 7}})
    scale = apps.read_namespaced_replica_set_scale("web", "default")
    assert (scale.spec.replicas, scale.status.selector) == (7, "app=web,tier in (a,b)")
    assert apps.read_namespaced_replica_set("web", "default").spec.replicas == 7
