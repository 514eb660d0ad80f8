"""The apps/v1 kinds and ReplicationControllers over HTTP: defaults, generations, the status and scale
subresources, upstream's error Statuses, field selectors and Table rows."""

from __future__ import annotations

from typing import Any

from tests.workloads import daemon_set, deployment, replica_set, replication_controller, stateful_set

APPS = "/apis/apps/v1/namespaces/default"
CORE = "/api/v1/namespaces/default"
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"
MERGE = {"Content-Type": "application/merge-patch+json"}


async def test_a_deployment_is_created_defaulted_at_generation_1_with_an_empty_status(client: Any) -> None:
    response = await client.post(f"{APPS}/deployments", json=deployment())
    assert response.status == 201
    created = await response.json()
    assert (created["metadata"]["generation"], created["status"]) == (1, {})
    assert created["spec"]["strategy"] == {"type": "RollingUpdate",
                                           "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}}
    assert created["spec"]["template"]["metadata"] == {"labels": {"app": "web"}, "creationTimestamp": None}


async def test_a_deployment_without_a_selector_gets_upstreams_status(client: Any) -> None:
    body = deployment()
    del body["spec"]["selector"]
    response = await client.post(f"{APPS}/deployments", json=body)
    assert response.status == 422
    mismatch = ('Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`')
    assert await response.json() == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": f'Deployment.apps "web" is invalid: [spec.selector: Required value, '
                   f"spec.template.metadata.labels: {mismatch}]",
        "reason": "Invalid",
        "details": {"name": "web", "group": "apps", "kind": "Deployment", "causes": [
            {"reason": "FieldValueRequired", "message": "Required value", "field": "spec.selector"},
            {"reason": "FieldValueInvalid", "message": mismatch, "field": "spec.template.metadata.labels"}]},
        "code": 422,
    }
    assert (await client.get(f"{APPS}/deployments/web")).status == 404


async def test_spec_changes_bump_the_generation_status_writes_do_not_and_keep_the_spec(client: Any) -> None:
    await client.post(f"{APPS}/deployments", json=deployment())
    scaled = await (await client.patch(f"{APPS}/deployments/web", json={"spec": {"replicas": 3},
                                                                        "status": {"replicas": 9}},
                                       headers=MERGE)).json()
    assert (scaled["metadata"]["generation"], scaled["spec"]["replicas"], scaled["status"]) == (2, 3, {})
    status = {"status": {"observedGeneration": 2, "replicas": 3, "readyReplicas": 3, "availableReplicas": 3,
                         "updatedReplicas": 3}, "spec": {"replicas": 10}, "metadata": {"labels": {"x": "y"}}}
    written = await (await client.patch(f"{APPS}/deployments/web/status", json=status, headers=MERGE)).json()
    assert (written["metadata"]["generation"], written["spec"]["replicas"], written["status"]["readyReplicas"]) == (
        2, 3, 3)
    assert "labels" not in written["metadata"]  # deployments/status keeps the labels too
    rows = (await (await client.get(f"{APPS}/deployments", headers={"Accept": TABLE})).json())["rows"]
    assert rows[0]["cells"][:4] == ["web", "3/3", 3, 3]
    assert rows[0]["cells"][5:] == ["web", "nginx:1.27", "app=web"]


async def test_the_selector_of_a_deployment_is_immutable(client: Any) -> None:
    await client.post(f"{APPS}/deployments", json=deployment())
    body = deployment(selector={"matchLabels": {"app": "web", "tier": "a"}})
    body["spec"]["template"]["metadata"]["labels"]["tier"] = "a"
    response = await client.put(f"{APPS}/deployments/web", json=body)
    assert response.status == 422
    assert (await response.json())["message"] == (
        'Deployment.apps "web" is invalid: spec.selector: Invalid value: v1.LabelSelector{MatchLabels:'
        'map[string]string{"app":"web", "tier":"a"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: '
        "field is immutable")


async def test_a_name_that_is_no_dns_label_draws_a_warning(client: Any) -> None:
    response = await client.post(f"{APPS}/replicasets", json=replica_set("web.v1"))
    assert response.status == 201
    assert response.headers.getall("Warning") == [
        '299 - "metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; '
        'a DNS label is recommended: [must not contain dots]"']


async def test_scale_and_the_status_replicas_field_selector(client: Any) -> None:
    for name in ("a", "b"):
        assert (await client.post(f"{APPS}/replicasets", json=replica_set(name))).status == 201
    await client.patch(f"{APPS}/replicasets/a/status", json={"status": {"replicas": 1}}, headers=MERGE)
    listed = await (await client.get(f"{APPS}/replicasets?fieldSelector=status.replicas=1")).json()
    assert [item["metadata"]["name"] for item in listed["items"]] == ["a"]
    bad = await client.get(f"{APPS}/replicasets?fieldSelector=spec.replicas=1")
    assert (bad.status, (await bad.json())["message"]) == (400, "field label not supported: spec.replicas")
    scaled = await client.patch(f"{APPS}/replicasets/b/scale", json={"spec": {"replicas": 4}}, headers=MERGE)
    assert (await scaled.json())["status"] == {"replicas": 0, "selector": "app=web"}
    assert (await (await client.get(f"{APPS}/replicasets/b")).json())["metadata"]["generation"] == 2


async def test_stateful_sets_daemon_sets_and_replication_controllers(client: Any) -> None:
    assert (await client.post(f"{APPS}/statefulsets", json=stateful_set())).status == 201
    renamed = stateful_set(serviceName="other")
    response = await client.put(f"{APPS}/statefulsets/web", json=renamed)
    assert (await response.json())["message"] == (
        'StatefulSet.apps "web" is invalid: spec: Forbidden: updates to statefulset spec for fields other than '
        "'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and "
        "'minReadySeconds' are forbidden")
    created = await (await client.post(f"{APPS}/daemonsets", json=daemon_set())).json()
    assert created["metadata"]["annotations"] == {"deprecated.daemonset.template.generation": "1"}
    rows = (await (await client.get(f"{APPS}/daemonsets", headers={"Accept": TABLE})).json())["rows"]
    assert rows[0]["cells"][:7] == ["web", 0, 0, 0, 0, 0, "<none>"]
    controller = await (await client.post(f"{CORE}/replicationcontrollers",
                                          json=replication_controller())).json()
    assert (controller["spec"]["selector"], controller["status"]) == ({"app": "web"}, {"replicas": 0})
    scale = await (await client.get(f"{CORE}/replicationcontrollers/web/scale")).json()
    assert scale["status"] == {"replicas": 0, "selector": "app=web"}
    deleted = await client.delete(f"{CORE}/replicationcontrollers/web", json={"propagationPolicy": "Background"})
    assert (await deleted.json())["kind"] == "Status"  # upstream answers a Status, not the object
    orphaning = await client.post(f"{CORE}/replicationcontrollers", json=replication_controller())
    assert orphaning.status == 201
    held = await (await client.delete(f"{CORE}/replicationcontrollers/web")).json()  # v1 orphans by default
    assert (held["kind"], held["metadata"]["finalizers"]) == ("ReplicationController", ["orphan"])


async def test_controller_revisions_list_their_controller(client: Any) -> None:
    revision = {"metadata": {"name": "web-1", "ownerReferences": [
        {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "web", "uid": "u", "controller": True}]},
        "data": {"spec": {}}, "revision": 1}
    assert (await client.post(f"{APPS}/controllerrevisions", json=revision)).status == 201
    rows = (await (await client.get(f"{APPS}/controllerrevisions", headers={"Accept": TABLE})).json())["rows"]
    assert rows[0]["cells"][:3] == ["web-1", "statefulset.apps/web", 1]
