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
    response = await send(client, "POST", PODS, meta("web") + message(2, integer(1, 3)), "Deployment", "apps/v1")
    assert response.status == 415
    assert (await response.json())["reason"] == "UnsupportedMediaType"
    assert (await client.get(f"{PODS}/web")).status == 404


async def test_a_body_of_another_kind_gets_the_answer_its_json_gets(client: Any) -> None:
    as_json = await client.post(PODS, json={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "web"}})
    as_protobuf = await send(client, "POST", PODS, meta("web"), "Namespace")
    assert as_json.status == as_protobuf.status == 400
    assert (await as_protobuf.json())["message"] == (await as_json.json())["message"]
