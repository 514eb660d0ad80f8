"""What the server stores and returns is what Go's encoding/json writes for the decoded object.

Empty omitempty values are left out, value structs are always there, set pointers stay even when
empty; the field facts are those of k8s.io/api v0.32 types.go (tests/data/gofields.json).
"""

from __future__ import annotations

import asyncio
from typing import Any

from tests.builders import pod

NAMESPACES = "/api/v1/namespaces"
PODS = "/api/v1/namespaces/default/pods"
MERGE = {"Content-Type": "application/merge-patch+json"}


async def test_empty_maps_and_lists_are_left_out_and_set_pointers_kept(client: Any) -> None:
    body = pod(nodeSelector={}, imagePullSecrets=[], securityContext={"runAsNonRoot": False})
    body["metadata"].update(annotations={}, finalizers=[])
    body["spec"]["containers"][0].update(env=[], stdin=False, securityContext={})
    created = await (await client.post(PODS, json=body)).json()
    assert "annotations" not in created["metadata"] and "finalizers" not in created["metadata"]
    assert "nodeSelector" not in created["spec"] and "imagePullSecrets" not in created["spec"]
    assert created["spec"]["securityContext"] == {"runAsNonRoot": False}
    [container] = created["spec"]["containers"]
    assert "env" not in container and "stdin" not in container
    assert container["securityContext"] == {}
    assert container["resources"] == {}


async def test_a_patch_that_sends_an_empty_map_changes_nothing(client: Any) -> None:
    # what `kubectl diff` sends for a pod that has no annotations
    created = await (await client.post(PODS, json=pod())).json()
    response = await client.patch(f"{PODS}/web", data='{"metadata":{"annotations":{}}}', headers=MERGE)
    patched = await response.json()
    assert response.status == 200
    assert patched == created


async def test_a_status_is_stored_with_the_fields_go_always_writes(client: Any) -> None:
    await client.post(PODS, json=pod())
    status = {"conditions": [{"type": "Ready", "status": "True"}],
              "containerStatuses": [{"name": "web", "image": "nginx:1.27", "imageID": "", "ready": True,
                                     "state": {"running": {"startedAt": "2025-01-01T00:00:00Z"}}}]}
    response = await client.patch(f"{PODS}/web/status", json={"status": status}, headers=MERGE)
    patched = await response.json()
    assert response.status == 200, patched
    assert patched["status"]["conditions"] == [
        {"type": "Ready", "status": "True", "lastProbeTime": None, "lastTransitionTime": None}]
    assert patched["status"]["containerStatuses"] == [
        {"name": "web", "image": "nginx:1.27", "imageID": "", "ready": True, "restartCount": 0,
         "state": {"running": {"startedAt": "2025-01-01T00:00:00Z"}}, "lastState": {}}]


async def test_a_scheduling_gated_condition_has_its_times(client: Any) -> None:
    created = await (await client.post(PODS, json=pod(schedulingGates=[{"name": "example.com/gate"}]))).json()
    assert created["status"]["conditions"] == [
        {"type": "PodScheduled", "status": "False", "lastProbeTime": None,
         "lastTransitionTime": created["metadata"]["creationTimestamp"], "reason": "SchedulingGated",
         "message": "Scheduling is blocked due to non-empty scheduling gates"}]


async def test_an_event_has_the_fields_go_always_writes(client: Any) -> None:
    event = {"metadata": {"name": "web.1"}, "involvedObject": {"kind": "Pod", "name": "web"},
             "reason": "Started", "message": "Started container"}
    response = await client.post("/api/v1/namespaces/default/events", json=event)
    created = await response.json()
    assert response.status == 201, created
    # Time and MicroTime are value structs whose zero value is written as null
    assert {key: created[key] for key in ("source", "firstTimestamp", "lastTimestamp", "eventTime",
                                          "reportingComponent", "reportingInstance")} == {
        "source": {}, "firstTimestamp": None, "lastTimestamp": None, "eventTime": None,
        "reportingComponent": "", "reportingInstance": ""}
    assert "count" not in created and "series" not in created


async def test_a_namespace_whose_last_spec_finalizer_is_removed_has_an_empty_spec(client: Any) -> None:
    await client.post(NAMESPACES, json={"metadata": {"name": "held", "finalizers": ["example.com/hold"]}})
    await client.delete(f"{NAMESPACES}/held")
    for _ in range(100):
        held = await (await client.get(f"{NAMESPACES}/held")).json()
        if held["spec"] == {}:
            break
        await asyncio.sleep(0.01)
    assert held["spec"] == {}
    assert held["status"] == {"phase": "Terminating"}
