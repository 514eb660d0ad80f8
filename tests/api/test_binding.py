"""pods/binding over HTTP: assigning a pod to a node as upstream's BindingREST does, and its errors."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from fakeapi.http.keys import api_key

PODS = "/api/v1/namespaces/default/pods"
NOW = datetime(2025, 3, 1, 12, 0, 0, tzinfo=UTC)


def binding(pod: str = "p", node: str = "node-1", **metadata: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Binding",
        "metadata": {"name": pod, **metadata},
        "target": {"apiVersion": "v1", "kind": "Node", "name": node},
    }


def failure(code: int, reason: str, message: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    status: dict[str, Any] = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
    }
    if reason:
        status["reason"] = reason
    if details is not None:
        status["details"] = details
    status["code"] = code
    return status


async def create_pod(client: Any, make_pod: Any, name: str = "p", **overrides: Any) -> dict[str, Any]:
    response = await client.post(PODS, json=make_pod(name, **overrides))
    assert response.status == 201, await response.text()
    created: dict[str, Any] = await response.json()
    return created


async def bind(client: Any, body: dict[str, Any], pod: str = "p", **params: str) -> Any:
    return await client.post(f"{PODS}/{pod}/binding", json=body, params=params)


async def get_pod(client: Any, name: str = "p") -> dict[str, Any]:
    pod: dict[str, Any] = await (await client.get(f"{PODS}/{name}")).json()
    return pod


async def test_binding_assigns_the_node_and_answers_a_success_status(client: Any, make_pod: Any) -> None:
    client.app[api_key].clock.freeze(NOW)
    created = await create_pod(client, make_pod, annotations={"kept": "yes", "replaced": "old"})
    response = await bind(client, binding(annotations={"replaced": "new", "scheduler.example/score": "7"}))
    assert response.status == 201
    assert await response.json() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Success",
        "code": 201,
    }
    pod = await get_pod(client)
    assert pod["spec"]["nodeName"] == "node-1"
    assert pod["metadata"]["annotations"] == {
        "kept": "yes",
        "replaced": "new",
        "scheduler.example/score": "7",
    }
    assert pod["status"]["conditions"] == [
        {
            "type": "PodScheduled",
            "status": "True",
            "lastProbeTime": None,
            "lastTransitionTime": "2025-03-01T12:00:00Z",
        }
    ]
    assert pod["status"]["phase"] == "Pending"
    assert pod["metadata"]["resourceVersion"] != created["metadata"]["resourceVersion"]


async def test_binding_a_pod_already_on_a_node_is_a_conflict(client: Any, make_pod: Any) -> None:
    await create_pod(client, make_pod, nodeName="node-0")
    response = await bind(client, binding())
    assert response.status == 409
    assert await response.json() == failure(
        409,
        "Conflict",
        'Operation cannot be fulfilled on pods/binding "p": pod p is already assigned to node "node-0"',
        {"name": "p", "kind": "pods/binding"},
    )


async def test_binding_a_pod_being_deleted_is_a_conflict(client: Any, make_pod: Any) -> None:
    await create_pod(client, make_pod, metadata={"finalizers": ["example.com/hold"]})
    assert (await client.delete(f"{PODS}/p")).status == 200
    response = await bind(client, binding())
    assert response.status == 409
    assert (await response.json())["message"] == (
        'Operation cannot be fulfilled on pods/binding "p": '
        "pod p is being deleted, cannot be assigned to a host"
    )


async def test_binding_a_pod_with_scheduling_gates_is_a_conflict(client: Any, make_pod: Any) -> None:
    await create_pod(client, make_pod, schedulingGates=[{"name": "example.com/wait"}])
    response = await bind(client, binding())
    assert response.status == 409
    assert (await response.json())["message"] == (
        'Operation cannot be fulfilled on pods/binding "p": pod p has non-empty .spec.schedulingGates'
    )
    assert "nodeName" not in (await get_pod(client))["spec"]


async def test_binding_replaces_a_false_pod_scheduled_condition_whole(client: Any, make_pod: Any) -> None:
    created = await create_pod(client, make_pod, schedulingGates=[{"name": "example.com/wait"}])
    assert created["status"]["conditions"][0]["reason"] == "SchedulingGated"
    ungated = {**created, "spec": {**created["spec"], "schedulingGates": []}}
    assert (await client.put(f"{PODS}/p", json=ungated)).status == 200
    client.app[api_key].clock.freeze(NOW)
    assert (await bind(client, binding())).status == 201
    assert (await get_pod(client))["status"]["conditions"] == [
        {
            "type": "PodScheduled",
            "status": "True",
            "lastProbeTime": None,
            "lastTransitionTime": "2025-03-01T12:00:00Z",
        }
    ]


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ({"kind": "Node"}, "target.name: Required value"),
        (
            {"kind": "Pod", "name": "n"},
            'target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>"',
        ),
        (
            {"kind": "Pod"},
            '[target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>", '
            "target.name: Required value]",
        ),
    ],
)
async def test_an_invalid_target_fails_as_upstreams_unwrapped_error(
    client: Any, make_pod: Any, target: dict[str, str], message: str
) -> None:
    """Upstream returns ValidatePodBinding's aggregate as a plain error: a 500 with no reason, not a 422."""
    await create_pod(client, make_pod)
    body = {**binding(), "target": target}
    response = await bind(client, body)
    assert response.status == 500
    assert await response.json() == failure(500, "", message)


async def test_a_target_without_kind_is_a_node(client: Any, make_pod: Any) -> None:
    await create_pod(client, make_pod)
    assert (await bind(client, {"metadata": {"name": "p"}, "target": {"name": "node-2"}})).status == 201
    assert (await get_pod(client))["spec"]["nodeName"] == "node-2"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (binding(pod="other"), "name in URL does not match name in Binding object"),
        (
            binding(namespace="kube-system"),
            "the namespace of the provided object does not match the namespace sent on the request",
        ),
        (
            {**binding(), "kind": "Pod"},
            "the kind in the data (Pod) does not match the expected kind (Binding)",
        ),
    ],
)
async def test_a_binding_for_another_object_is_a_bad_request(
    client: Any, make_pod: Any, body: dict[str, Any], message: str
) -> None:
    await create_pod(client, make_pod)
    response = await bind(client, body)
    assert response.status == 400
    assert (await response.json())["message"] == message


async def test_binding_a_missing_pod_is_not_found(client: Any) -> None:
    response = await bind(client, binding("ghost"), pod="ghost")
    assert response.status == 404
    assert await response.json() == failure(
        404, "NotFound", 'pods "ghost" not found', {"name": "ghost", "kind": "pods"}
    )


async def test_a_uid_precondition_that_misses_is_upstreams_storage_conflict(
    client: Any, make_pod: Any
) -> None:
    created = await create_pod(client, make_pod)
    response = await bind(client, binding(uid="not-the-uid"))
    assert response.status == 409
    assert (await response.json())["message"] == (
        'Operation cannot be fulfilled on pods "p": StorageError: invalid object, Code: 4, '
        "Key: /registry/pods/default/p, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: "
        f"UID in precondition: not-the-uid, UID in object meta: {created['metadata']['uid']}"
    )
    matching = binding(uid=created["metadata"]["uid"], resourceVersion=created["metadata"]["resourceVersion"])
    assert (await bind(client, matching)).status == 201


async def test_dry_run_binds_nothing(client: Any, make_pod: Any) -> None:
    created = await create_pod(client, make_pod)
    response = await bind(client, binding(), dryRun="All")
    assert response.status == 201
    assert await get_pod(client) == created


async def test_unknown_binding_fields_follow_field_validation(client: Any, make_pod: Any) -> None:
    await create_pod(client, make_pod)
    body = {**binding(), "spec": {}}
    strict = await bind(client, body, fieldValidation="Strict")
    assert strict.status == 400
    assert (await strict.json())["message"] == (
        'Binding in version "v1" cannot be handled as a Binding: strict decoding error: unknown field "spec"'
    )
    warned = await bind(client, body)
    assert warned.status == 201
    assert warned.headers.getall("Warning") == ['299 - "unknown field \\"spec\\""']
