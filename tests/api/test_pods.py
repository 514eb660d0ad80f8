"""Pods over HTTP: the create pipeline, reads, replace, and their upstream errors."""

from __future__ import annotations

from typing import Any

from tests.builders import GUARANTEED, pod

PODS = "/api/v1/namespaces/default/pods"


def not_found(name: str) -> dict[str, Any]:
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": f'pods "{name}" not found', "reason": "NotFound",
            "details": {"name": name, "kind": "pods"}, "code": 404}


async def create(client: Any, body: dict[str, Any], path: str = PODS, **params: str) -> Any:
    return await client.post(path, json=body, params=params)


async def test_create_defaults_the_pod_and_computes_qos_from_defaulted_spec(client: Any) -> None:
    response = await create(client, pod(limits=GUARANTEED))
    assert response.status == 201
    created = await response.json()
    container = created["spec"]["containers"][0]
    assert container["resources"]["requests"] == {"cpu": "500m", "memory": "128Mi"}
    assert container["imagePullPolicy"] == "IfNotPresent"
    assert container["terminationMessagePath"] == "/dev/termination-log"
    assert created["spec"]["restartPolicy"] == "Always"
    assert created["spec"]["dnsPolicy"] == "ClusterFirst"
    assert created["spec"]["terminationGracePeriodSeconds"] == 30
    assert created["spec"]["schedulerName"] == "default-scheduler"
    assert created["status"] == {"phase": "Pending", "qosClass": "Guaranteed"}
    meta = created["metadata"]
    assert meta["generation"] == 1
    assert meta["namespace"] == "default"
    assert meta["uid"] and meta["creationTimestamp"].endswith("Z")
    assert int(meta["resourceVersion"]) > 0


async def test_create_replaces_client_status_and_wipes_system_fields(client: Any) -> None:
    body = pod()
    body["metadata"].update(uid="abc", creationTimestamp="2020-01-01T00:00:00Z", generation=7,
                            deletionTimestamp="2020-01-01T00:00:00Z", deletionGracePeriodSeconds=3)
    body["status"] = {"phase": "Running", "podIP": "10.0.0.1"}
    created = await (await create(client, body)).json()
    assert created["status"] == {"phase": "Pending", "qosClass": "BestEffort"}
    meta = created["metadata"]
    assert meta["uid"] != "abc"
    assert meta["creationTimestamp"] != "2020-01-01T00:00:00Z"
    assert meta["generation"] == 1
    assert "deletionTimestamp" not in meta and "deletionGracePeriodSeconds" not in meta


async def test_create_keeps_a_client_sent_qos_class_as_upstream_does(client: Any) -> None:
    body = pod()
    body["status"] = {"qosClass": "Guaranteed"}
    created = await (await create(client, body)).json()
    assert created["status"]["qosClass"] == "Guaranteed"


async def test_resource_versions_are_global_and_increase_on_every_write(client: Any) -> None:
    first = await (await create(client, pod("a"))).json()
    second = await (await create(client, pod("b"))).json()
    assert int(second["metadata"]["resourceVersion"]) > int(first["metadata"]["resourceVersion"])
    listed = await (await client.get(PODS)).json()
    assert listed["kind"] == "PodList"
    assert listed["metadata"]["resourceVersion"] == second["metadata"]["resourceVersion"]
    assert [p["metadata"]["name"] for p in listed["items"]] == ["a", "b"]


async def test_generate_name_appends_five_characters(client: Any) -> None:
    body = pod()
    del body["metadata"]["name"]
    body["metadata"]["generateName"] = "web-"
    created = await (await create(client, body)).json()
    name = created["metadata"]["name"]
    assert name.startswith("web-") and len(name) == 9
    assert set(name[4:]) <= set("bcdfghjklmnpqrstvwxz2456789")


async def test_create_existing_pod_is_409_already_exists(client: Any) -> None:
    await create(client, pod())
    response = await create(client, pod())
    assert response.status == 409
    assert await response.json() == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": 'pods "web" already exists', "reason": "AlreadyExists",
        "details": {"name": "web", "kind": "pods"}, "code": 409}


async def test_create_in_other_namespace_than_url_is_400(client: Any) -> None:
    body = pod()
    body["metadata"]["namespace"] = "kube-system"
    response = await create(client, body)
    assert response.status == 400
    assert await response.json() == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": "the namespace of the provided object does not match the namespace sent on the request",
        "reason": "BadRequest", "code": 400}


async def test_create_in_missing_namespace_is_404(client: Any) -> None:
    response = await create(client, pod(), path="/api/v1/namespaces/nosuch/pods")
    assert response.status == 404
    assert await response.json() == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": 'namespaces "nosuch" not found', "reason": "NotFound",
        "details": {"name": "nosuch", "kind": "namespaces"}, "code": 404}


async def test_invalid_pod_is_422_with_causes_and_nothing_is_stored(client: Any) -> None:
    body = pod()
    body["spec"]["containers"] = [{"name": ""}, {"name": "b", "image": "x"}]
    before = await (await client.get(PODS)).json()
    response = await create(client, body)
    assert response.status == 422
    status = await response.json()
    assert status["reason"] == "Invalid"
    assert status["details"]["kind"] == "Pod" and status["details"]["name"] == "web"
    assert {"reason": "FieldValueRequired", "message": "Required value",
            "field": "spec.containers[0].name"} in status["details"]["causes"]
    assert {"reason": "FieldValueRequired", "message": "Required value",
            "field": "spec.containers[0].image"} in status["details"]["causes"]
    assert status["message"].startswith('Pod "web" is invalid: [')
    after = await (await client.get(PODS)).json()
    assert after == before


async def test_single_validation_error_message_is_bare(client: Any) -> None:
    body = pod()
    del body["spec"]["containers"][0]["image"]
    response = await create(client, body)
    assert await response.json() == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": 'Pod "web" is invalid: spec.containers[0].image: Required value',
        "reason": "Invalid",
        "details": {"name": "web", "kind": "Pod", "causes": [
            {"reason": "FieldValueRequired", "message": "Required value", "field": "spec.containers[0].image"}]},
        "code": 422}


async def test_resource_version_on_create_is_500_like_upstream(client: Any) -> None:
    body = pod()
    body["metadata"]["resourceVersion"] = "5"
    response = await create(client, body)
    assert response.status == 500
    assert await response.json() == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": "resourceVersion should not be set on objects to be created", "code": 500}


async def test_non_dns_label_name_warns(client: Any) -> None:
    response = await create(client, pod("web.v1"))
    assert response.status == 201
    warning = response.headers["Warning"]
    assert warning.startswith('299 - "metadata.name: this is used in the Pod\'s hostname')


async def test_get_unknown_pod_is_404(client: Any) -> None:
    response = await client.get(PODS + "/nope")
    assert response.status == 404
    assert await response.json() == not_found("nope")


async def test_list_across_namespaces(client: Any) -> None:
    await create(client, pod("a"))
    await create(client, pod("b"), path="/api/v1/namespaces/kube-system/pods")
    listed = await (await client.get("/api/v1/pods")).json()
    assert [(p["metadata"]["namespace"], p["metadata"]["name"]) for p in listed["items"]] == [
        ("default", "a"), ("kube-system", "b")]


async def test_list_of_unknown_namespace_is_empty(client: Any) -> None:
    listed = await (await client.get("/api/v1/namespaces/nosuch/pods")).json()
    assert listed["items"] == []


async def test_no_content_type_is_read_as_json(client: Any) -> None:
    import orjson

    response = await client.post(PODS, data=orjson.dumps(pod()), headers={"Content-Type": ""})
    assert response.status == 201


async def test_yaml_body_is_accepted(client: Any) -> None:
    import yaml

    response = await client.post(PODS, data=yaml.safe_dump(pod()), headers={"Content-Type": "application/yaml"})
    assert response.status == 201


async def test_unsupported_body_type_is_415(client: Any) -> None:
    response = await client.post(PODS, data=b"<pod/>", headers={"Content-Type": "application/xml"})
    assert response.status == 415
    status = await response.json()
    assert status["reason"] == "UnsupportedMediaType"
    assert status["message"].startswith("the body of the request was in an unknown format - accepted media types")


async def test_malformed_json_is_400(client: Any) -> None:
    response = await client.post(PODS, data=b'{"metadata": ', headers={"Content-Type": "application/json"})
    assert response.status == 400
    assert (await response.json())["reason"] == "BadRequest"


async def test_wrong_json_type_is_400(client: Any) -> None:
    body = pod()
    body["spec"]["containers"] = "web"
    response = await create(client, body)
    assert response.status == 400
    assert (await response.json())["message"].startswith('Pod in version "v1" cannot be handled as a Pod: ')


async def test_wrong_api_version_is_400(client: Any) -> None:
    body = pod()
    body["apiVersion"] = "v2"
    response = await create(client, body)
    assert response.status == 400
    assert (await response.json())["message"] == (
        "the API version in the data (v2) does not match the expected API version (v1)")


async def test_body_over_3_mib_is_413(client: Any) -> None:
    import io

    import orjson

    body = pod()
    body["metadata"]["annotations"] = {"big": "x" * (3 * 1024 * 1024)}
    response = await client.post(PODS, data=io.BytesIO(orjson.dumps(body)),
                                 headers={"Content-Type": "application/json"})
    assert response.status == 413
    assert (await response.json())["reason"] == "RequestEntityTooLarge"


async def test_unknown_path_is_404_status(client: Any) -> None:
    response = await client.get("/api/v1/namespaces/default/widgets")
    assert response.status == 404
    assert await response.json() == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": "the server could not find the requested resource", "reason": "NotFound",
        "details": {}, "code": 404}


async def test_unsupported_method_is_405_status(client: Any) -> None:
    response = await client.put(PODS, json=pod())
    assert response.status == 405
    assert (await response.json())["reason"] == "MethodNotAllowed"


async def test_health_and_version(client: Any) -> None:
    for path in ("/healthz", "/livez", "/readyz"):
        response = await client.get(path)
        assert response.status == 200 and await response.text() == "ok"
    version = await (await client.get("/version")).json()
    assert version["major"] == "1" and version["minor"] == "32"
    assert version["gitVersion"] == "v1.32.0-fakeapi"
    assert {"gitCommit", "gitTreeState", "buildDate", "goVersion", "compiler", "platform"} <= set(version)
