"""HorizontalPodAutoscalers over HTTP: stored as autoscaling/v2 and served as v1 too (what `kubectl autoscale`
writes), with upstream's defaults, validation messages and Table columns. Nothing scales: the object is stored."""

from __future__ import annotations

from typing import Any

import pytest

V1 = "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers"
V2 = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers"
MERGE = {"Content-Type": "application/merge-patch+json"}
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"
TARGET = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}


def v1_autoscaler(**spec: Any) -> dict[str, Any]:
    """What `kubectl autoscale deployment web --max=5 --cpu-percent=60` sends."""
    return {"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "web"},
            "spec": {"scaleTargetRef": TARGET, "maxReplicas": 5, **spec}}


async def test_a_v1_autoscaler_reads_back_as_v2_with_its_defaults(client: Any) -> None:
    response = await client.post(V1, json=v1_autoscaler(targetCPUUtilizationPercentage=60))
    assert response.status == 201
    created = await response.json()
    assert created["spec"] == {"scaleTargetRef": TARGET, "minReplicas": 1, "maxReplicas": 5,
                               "targetCPUUtilizationPercentage": 60}
    assert created["status"] == {"currentReplicas": 0, "desiredReplicas": 0}
    v2 = await (await client.get(f"{V2}/web")).json()
    assert v2["apiVersion"] == "autoscaling/v2"
    assert v2["spec"] == {"scaleTargetRef": TARGET, "minReplicas": 1, "maxReplicas": 5, "metrics": [
        {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 60}}}]}
    assert v2["status"] == {"desiredReplicas": 0, "currentMetrics": None}


async def test_a_v2_autoscaler_without_metrics_targets_80_percent_cpu_and_fills_its_behavior(client: Any) -> None:
    body = {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "web"},
            "spec": {"scaleTargetRef": TARGET, "maxReplicas": 3, "behavior": {"scaleDown": {
                "stabilizationWindowSeconds": 60}}}}
    created = await (await client.post(V2, json=body)).json()
    assert created["spec"]["metrics"][0]["resource"]["target"] == {"type": "Utilization", "averageUtilization": 80}
    assert created["spec"]["behavior"] == {
        "scaleUp": {"stabilizationWindowSeconds": 0, "selectPolicy": "Max",
                    "policies": [{"type": "Pods", "value": 4, "periodSeconds": 15},
                                 {"type": "Percent", "value": 100, "periodSeconds": 15}]},
        "scaleDown": {"stabilizationWindowSeconds": 60, "selectPolicy": "Max",
                      "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}]}}
    v1 = await (await client.get(f"{V1}/web")).json()
    assert v1["spec"]["targetCPUUtilizationPercentage"] == 80


async def test_v2_conditions_show_in_v1_as_upstreams_annotation(client: Any) -> None:
    assert (await client.post(V1, json=v1_autoscaler())).status == 201
    condition = {"type": "AbleToScale", "status": "True", "reason": "ReadyForNewScale",
                 "lastTransitionTime": "2025-01-01T00:00:00Z"}
    status = {"currentReplicas": 2, "desiredReplicas": 2, "conditions": [condition],
              "currentMetrics": [{"type": "Resource", "resource": {"name": "cpu", "current": {
                  "averageUtilization": 40, "averageValue": "10m"}}}]}
    response = await client.patch(f"{V2}/web/status", json={"status": status}, headers=MERGE)
    assert response.status == 200, await response.text()
    v1 = await (await client.get(f"{V1}/web")).json()
    assert v1["status"] == {"currentReplicas": 2, "desiredReplicas": 2, "currentCPUUtilizationPercentage": 40}
    assert v1["metadata"]["annotations"] == {
        "autoscaling.alpha.kubernetes.io/conditions":
            '[{"type":"AbleToScale","status":"True","lastTransitionTime":"2025-01-01T00:00:00Z",'
            '"reason":"ReadyForNewScale"}]'}
    table = await (await client.get(V1, headers={"Accept": TABLE})).json()
    assert [c["name"] for c in table["columnDefinitions"]] == [
        "Name", "Reference", "Targets", "MinPods", "MaxPods", "Replicas", "Age"]
    assert table["rows"][0]["cells"][:6] == ["web", "Deployment/web", "cpu: 40%/80%", "1", 5, 2]


@pytest.mark.parametrize(("spec", "message"), [
    ({"minReplicas": 0}, "spec.minReplicas: Invalid value: 0: must be greater than or equal to 1"),
    ({"minReplicas": 6}, "spec.maxReplicas: Invalid value: 5: must be greater than or equal to `minReplicas`"),
    ({"scaleTargetRef": {"name": "web"}}, "spec.scaleTargetRef.kind: Required value"),
    ({"scaleTargetRef": {"kind": "Deployment", "name": "a/b"}},
     "spec.scaleTargetRef.name: Invalid value: \"a/b\": may not contain '/'"),
])
async def test_invalid_autoscalers_get_upstreams_messages(client: Any, spec: dict[str, Any], message: str) -> None:
    response = await client.post(V1, json=v1_autoscaler(**spec))
    assert response.status == 422
    assert (await response.json())["message"] == \
        f'HorizontalPodAutoscaler.autoscaling "web" is invalid: {message}'
