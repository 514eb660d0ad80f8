"""A field the body leaves out is validated as the Go zero value upstream decodes it to."""

from __future__ import annotations

from typing import Any

import pytest

from tests.builders import pod

PODS = "/api/v1/namespaces/default/pods"
PORT_RANGE = "Invalid value: 0: must be between 1 and 65535, inclusive"


def with_container(**fields: Any) -> dict[str, Any]:
    body = pod()
    body["spec"]["containers"][0].update(fields)
    return body


async def invalid_message(client: Any, body: dict[str, Any]) -> str:
    response = await client.post(PODS, json=body)
    status = await response.json()
    assert response.status == 422, status
    assert status["reason"] == "Invalid"
    message: str = status["message"]
    return message


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        ({"livenessProbe": {"httpGet": {"path": "/"}}}, f"spec.containers[0].livenessProbe.httpGet.port: {PORT_RANGE}"),
        ({"readinessProbe": {"tcpSocket": {}}}, f"spec.containers[0].readinessProbe.tcpSocket.port: {PORT_RANGE}"),
        ({"startupProbe": {"grpc": {}}}, f"spec.containers[0].startupProbe.grpc.port: {PORT_RANGE}"),
        ({"lifecycle": {"postStart": {"httpGet": {}}}}, f"spec.containers[0].lifecycle.postStart.httpGet.port: "
                                                        f"{PORT_RANGE}"),
        ({"lifecycle": {"preStop": {"tcpSocket": {"host": "x"}}}},
         f"spec.containers[0].lifecycle.preStop.tcpSocket.port: {PORT_RANGE}"),
        ({"ports": [{"name": "http"}]}, "spec.containers[0].ports[0].containerPort: Required value"),
        ({"lifecycle": {"preStop": {"sleep": {}}}},
         "spec.containers[0].lifecycle.preStop.sleep: Invalid value: 0: must be greater than 0 and less than "
         "terminationGracePeriodSeconds (30). Enable AllowPodLifecycleSleepActionZeroValue feature gate for "
         "zero sleep."),
        ({"env": [{"value": "x"}]}, "spec.containers[0].env[0].name: Required value"),
    ],
)
async def test_a_missing_required_scalar_is_validated_as_its_zero_value(
    client: Any, fields: dict[str, Any], error: str
) -> None:
    assert await invalid_message(client, with_container(**fields)) == f'Pod "web" is invalid: {error}'


async def test_a_missing_weight_is_zero_and_out_of_range(client: Any) -> None:
    preferred = [{"preference": {"matchExpressions": [{"key": "zone", "operator": "Exists"}]}}]
    body = pod(affinity={"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": preferred}})
    assert await invalid_message(client, body) == (
        'Pod "web" is invalid: spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]'
        ".weight: Invalid value: 0: must be in the range 1-100")


async def test_a_missing_max_skew_is_zero(client: Any) -> None:
    body = pod(topologySpreadConstraints=[{"topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}])
    assert await invalid_message(client, body) == (
        'Pod "web" is invalid: spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater '
        "than zero")


async def test_a_zero_value_error_leaves_the_store_untouched(client: Any) -> None:
    await invalid_message(client, with_container(livenessProbe={"tcpSocket": {}}))
    listed = await (await client.get(PODS)).json()
    assert listed["items"] == []
