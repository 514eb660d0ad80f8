"""Protobuf bodies over HTTP, as client-go's typed clients send them: a leader election's Lease (MicroTimes),
a Pod created and its status replaced, a kind the server does not serve, and a body of another kind than
the endpoint's."""

from __future__ import annotations

from typing import Any

from tests.unit.test_protobuf import envelope, integer, message, string

PROTOBUF = {"Content-Type": "application/vnd.kubernetes.protobuf",
            "Accept": "application/vnd.kubernetes.protobuf,application/json"}
PODS = "/api/v1/namespaces/default/pods"
LEASES = "/apis/coordination.k8s.io/v1/namespaces/default/leases"


def meta(name: str, resource_version: str = "") -> bytes:
    return message(1, string(1, name) + string(3, "default") + string(6, resource_version))


def micro_time(number: int, seconds: int, nanos: int) -> bytes:
    return message(number, integer(1, seconds) + integer(2, nanos))


async def send(client: Any, method: str, path: str, raw: bytes, kind: str, api_version: str = "v1") -> Any:
    return await client.request(method, path, data=envelope(raw, kind, api_version), headers=PROTOBUF)


async def test_a_leader_elections_lease_is_created_and_renewed(client: Any) -> None:
    spec = string(1, "a") + integer(2, 15) + micro_time(3, 1700000000, 123456789) + integer(5, 0)
    created = await send(client, "POST", LEASES, meta("leader") + message(2, spec), "Lease", "coordination.k8s.io/v1")
    assert created.status == 201, await created.text()
    lease = await created.json()
    # a *int32 zero is kept; a MicroTime keeps microseconds
    assert lease["spec"] == {"holderIdentity": "a", "leaseDurationSeconds": 15,
                             "acquireTime": "2023-11-14T22:13:20.123456Z", "leaseTransitions": 0}
    renewed = spec + micro_time(4, 1700000010, 5000)
    raw = meta("leader", lease["metadata"]["resourceVersion"]) + message(2, renewed)
    updated = await send(client, "PUT", f"{LEASES}/leader", raw, "Lease", "coordination.k8s.io/v1")
    assert updated.status == 200, await updated.text()
    assert (await updated.json())["spec"]["renewTime"] == "2023-11-14T22:13:30.000005Z"
    stale = await send(client, "PUT", f"{LEASES}/leader", raw, "Lease", "coordination.k8s.io/v1")
    assert stale.status == 409


async def test_a_pod_is_created_and_its_status_replaced(client: Any) -> None:
    container = message(2, string(1, "web") + string(2, "nginx:1.27") + message(8, b""))
    created = await send(client, "POST", PODS, meta("web") + message(2, container) + message(3, b""), "Pod")
    assert created.status == 201, await created.text()
    pod = await created.json()
    assert pod["spec"]["containers"][0]["resources"] == {}
    assert (pod["spec"]["restartPolicy"], pod["status"]) == ("Always", {"phase": "Pending", "qosClass": "BestEffort"})
    status = string(1, "Running") + string(6, "10.0.0.5") + message(7, integer(1, 1700000000))
    raw = meta("web", pod["metadata"]["resourceVersion"]) + message(3, status)
    replaced = await send(client, "PUT", f"{PODS}/web/status", raw, "Pod")
    assert replaced.status == 200, await replaced.text()
    assert (await replaced.json())["status"] == {  # podIPs defaulted from podIP, as upstream does
        "phase": "Running", "podIP": "10.0.0.5", "podIPs": [{"ip": "10.0.0.5"}], "startTime": "2023-11-14T22:13:20Z",
        "qosClass": "BestEffort"}


async def test_a_kind_the_server_does_not_serve_is_unsupported_media_type(client: Any) -> None:
    response = await send(client, "POST", PODS, meta("web") + message(2, integer(1, 3)), "Ingress",
                          "networking.k8s.io/v1")
    assert response.status == 415
    assert (await response.json())["reason"] == "UnsupportedMediaType"
    assert (await client.get(f"{PODS}/web")).status == 404


async def test_a_body_of_another_kind_gets_the_answer_its_json_gets(client: Any) -> None:
    as_json = await client.post(PODS, json={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "web"}})
    as_protobuf = await send(client, "POST", PODS, meta("web"), "Namespace")
    assert as_json.status == as_protobuf.status == 400
    assert (await as_protobuf.json())["message"] == (await as_json.json())["message"]


async def test_a_crd_sent_in_protobuf_serves_custom_resources_which_have_no_protobuf_form(client: Any) -> None:
    def props(*fields: bytes) -> bytes:  # a JSONSchemaProps message
        return b"".join(fields)

    replicas = props(string(5, "integer"), message(8, message(1, b"1")))  # default: JSON{raw}
    tags = props(string(5, "array"), message(24, message(1, string(5, "string"))))  # items: OrArray{schema}
    spec = props(string(5, "object"), message(29, string(1, "replicas") + message(2, replicas)),
                 message(29, string(1, "tags") + message(2, tags)))
    schema = props(string(5, "object"), message(29, string(1, "spec") + message(2, spec)))
    version = string(1, "v1") + integer(2, 1) + integer(3, 1) + message(4, message(1, schema))
    names = string(1, "widgets") + string(2, "widget") + string(4, "Widget") + string(5, "WidgetList")
    crd_spec = string(1, "proto.example.com") + message(3, names) + string(4, "Namespaced") + message(7, version)
    crd = message(1, string(1, "widgets.proto.example.com")) + message(2, crd_spec)
    created = await send(client, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd,
                         "CustomResourceDefinition", "apiextensions.k8s.io/v1")
    assert created.status == 201, await created.text()
    [served] = (await created.json())["spec"]["versions"]
    assert served["schema"]["openAPIV3Schema"] == {"type": "object", "properties": {"spec": {
        "type": "object", "properties": {"replicas": {"type": "integer", "default": 1},
                                         "tags": {"type": "array", "items": {"type": "string"}}}}}}
    widgets = "/apis/proto.example.com/v1/namespaces/default/widgets"
    widget = await client.post(widgets, json={"apiVersion": "proto.example.com/v1", "kind": "Widget",
                                              "metadata": {"name": "w"}, "spec": {"tags": ["a"]}})
    assert widget.status == 201 and (await widget.json())["spec"] == {"tags": ["a"], "replicas": 1}
    refused = await send(client, "POST", widgets, meta("p"), "Widget", "proto.example.com/v1")
    assert refused.status == 415  # as upstream: custom resources are JSON, YAML or CBOR
