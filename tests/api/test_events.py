"""Events over HTTP: CRUD, upstream's core/v1 event validation, and involvedObject field selectors."""

from __future__ import annotations

from typing import Any

import pytest

EVENTS = "/api/v1/namespaces/default/events"
QUALIFIED_NAME_FORMAT = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)


def event(
    name: str = "web.1", involved_namespace: str = "default", pod: str = "web", **fields: Any
) -> dict[str, Any]:
    """An old-style (core/v1, no eventTime) event about a pod, as a kubelet or scheduler records it."""
    body: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": name},
        "involvedObject": {
            "kind": "Pod",
            "namespace": involved_namespace,
            "name": pod,
            "uid": f"uid-{pod}",
            "apiVersion": "v1",
        },
        "reason": "Scheduled",
        "message": f"Successfully assigned default/{pod} to node-1",
        "type": "Normal",
        "source": {"component": "default-scheduler"},
        "firstTimestamp": "2025-01-01T10:00:00Z",
        "lastTimestamp": "2025-01-01T10:00:00Z",
        "count": 1,
    }
    body.update(fields)
    return body


def new_style(name: str = "web.2", **fields: Any) -> dict[str, Any]:
    """An events.k8s.io-style event written through core/v1: eventTime set, no counts or source."""
    body = event(
        name,
        eventTime="2025-01-01T10:00:00.000000Z",
        reportingComponent="kubelet",
        reportingInstance="node-1",
        action="Pulling",
        reason="Pulling",
        message="Pulling image",
    )
    for key in ("firstTimestamp", "lastTimestamp", "count", "source"):
        body.pop(key)
    body.update(fields)
    return body


def invalid(name: str, message: str, causes: list[tuple[str, str, str]]) -> dict[str, Any]:
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": f'Event "{name}" is invalid: {message}',
        "reason": "Invalid",
        "details": {
            "name": name,
            "kind": "Event",
            "causes": [{"reason": reason, "message": text, "field": field} for reason, text, field in causes],
        },
        "code": 422,
    }


async def test_create_stores_the_event_as_sent(client: Any) -> None:
    response = await client.post(EVENTS, json=event())
    assert response.status == 201
    created = await response.json()
    sent = event()
    for key in (
        "involvedObject",
        "reason",
        "message",
        "type",
        "source",
        "firstTimestamp",
        "lastTimestamp",
        "count",
    ):
        assert created[key] == sent[key]
    assert (created["apiVersion"], created["kind"]) == ("v1", "Event")
    meta = created["metadata"]
    assert (meta["name"], meta["namespace"]) == ("web.1", "default")
    assert meta["uid"] and meta["resourceVersion"] and meta["creationTimestamp"]
    fetched = await (await client.get(f"{EVENTS}/web.1")).json()
    assert fetched == created


async def test_an_event_about_an_object_in_another_namespace_is_invalid(client: Any) -> None:
    response = await client.post(EVENTS, json=event(involved_namespace="other"))
    assert response.status == 422
    assert await response.json() == invalid(
        "web.1",
        'involvedObject.namespace: Invalid value: "other": does not match event.namespace',
        [
            (
                "FieldValueInvalid",
                'Invalid value: "other": does not match event.namespace',
                "involvedObject.namespace",
            )
        ],
    )


@pytest.mark.parametrize(("namespace", "status"), [("default", 201), ("kube-public", 422)])
async def test_an_old_style_event_about_a_cluster_object_belongs_in_default(
    client: Any, namespace: str, status: int
) -> None:
    body = event(involved_namespace="")
    body["involvedObject"]["kind"] = "Node"
    response = await client.post(f"/api/v1/namespaces/{namespace}/events", json=body)
    assert response.status == status
    if status == 422:
        assert (await response.json())["message"] == (
            'Event "web.1" is invalid: '
            'involvedObject.namespace: Invalid value: "": does not match event.namespace'
        )


@pytest.mark.parametrize(
    ("namespace", "status"), [("default", 201), ("kube-system", 201), ("kube-public", 422)]
)
async def test_a_new_style_event_about_a_cluster_object_belongs_in_default_or_kube_system(
    client: Any, namespace: str, status: int
) -> None:
    body = new_style()
    body["involvedObject"] = {"kind": "Node", "name": "node-1", "apiVersion": "v1"}
    response = await client.post(f"/api/v1/namespaces/{namespace}/events", json=body)
    assert response.status == status


async def test_a_new_style_event_is_created(client: Any) -> None:
    response = await client.post(EVENTS, json=new_style())
    assert response.status == 201
    created = await response.json()
    assert created["eventTime"] == "2025-01-01T10:00:00.000000Z"
    assert created["reportingComponent"] == "kubelet"


async def test_a_new_style_event_must_name_its_reporter_action_and_reason(client: Any) -> None:
    body = new_style(reportingComponent="", reportingInstance="", action="", reason="")
    response = await client.post(EVENTS, json=body)
    assert response.status == 422
    status = await response.json()
    assert status["message"] == (
        'Event "web.2" is invalid: [reportingController: Required value, '
        'reportingController: Invalid value: "": name part must be non-empty, '
        f'reportingController: Invalid value: "": {QUALIFIED_NAME_FORMAT}, '
        "reportingInstance: Required value, action: Required value, reason: Required value]"
    )
    assert [cause["field"] for cause in status["details"]["causes"]] == [
        "reportingController",
        "reportingController",
        "reportingController",
        "reportingInstance",
        "action",
        "reason",
    ]


@pytest.mark.parametrize(
    ("field", "limit"), [("reportingInstance", 128), ("action", 128), ("reason", 128), ("message", 1024)]
)
async def test_new_style_event_fields_have_length_limits(client: Any, field: str, limit: int) -> None:
    assert (await client.post(EVENTS, json=new_style("ok", **{field: "x" * limit}))).status == 201
    response = await client.post(EVENTS, json=new_style("long", **{field: "x" * (limit + 1)}))
    assert response.status == 422
    assert (await response.json())["message"] == (
        f'Event "long" is invalid: {field}: Invalid value: "": can have at most {limit} characters'
    )


async def test_an_old_style_event_has_no_length_limits(client: Any) -> None:
    response = await client.post(EVENTS, json=event(message="x" * 5000, reason="y" * 300))
    assert response.status == 201


async def test_the_generic_name_check_runs_once_the_event_rules_pass(client: Any) -> None:
    response = await client.post(EVENTS, json=event(name="a%b"))
    assert response.status == 422
    assert (await response.json())["message"] == (
        """Event "a%b" is invalid: metadata.name: Invalid value: "a%b": may not contain '%'"""
    )


async def test_events_cannot_be_created_in_a_missing_namespace(client: Any) -> None:
    response = await client.post("/api/v1/namespaces/nope/events", json=event(involved_namespace="nope"))
    assert response.status == 404
    assert (await response.json())["message"] == 'namespaces "nope" not found'


async def test_update_keeps_the_event_and_revalidates_it(client: Any) -> None:
    created = await (await client.post(EVENTS, json=event())).json()
    updated_body = {**created, "count": 2, "lastTimestamp": "2025-01-01T10:05:00Z"}
    response = await client.put(f"{EVENTS}/web.1", json=updated_body)
    assert response.status == 200
    updated = await response.json()
    assert (updated["count"], updated["lastTimestamp"]) == (2, "2025-01-01T10:05:00Z")
    assert updated["metadata"]["resourceVersion"] != created["metadata"]["resourceVersion"]
    moved = {**updated, "involvedObject": {**updated["involvedObject"], "namespace": "other"}}
    rejected = await client.put(f"{EVENTS}/web.1", json=moved)
    assert rejected.status == 422
    assert (await rejected.json())["message"] == (
        'Event "web.1" is invalid: '
        'involvedObject.namespace: Invalid value: "other": does not match event.namespace'
    )


async def test_update_reports_the_generic_metadata_errors_as_upstream_does(client: Any) -> None:
    """Upstream's generic update checks validate labels twice (ObjectMeta, then ObjectMeta update); the
    core/v1 event rules add nothing more."""
    created = await (await client.post(EVENTS, json=event())).json()
    bad = {**created, "metadata": {**created["metadata"], "labels": {"a b": "c"}}}
    response = await client.put(f"{EVENTS}/web.1", json=bad)
    assert response.status == 422
    causes = (await response.json())["details"]["causes"]
    assert [cause["field"] for cause in causes] == ["metadata.labels", "metadata.labels"]


async def test_a_recorder_bumps_the_count_with_a_strategic_merge_patch(client: Any) -> None:
    await client.post(EVENTS, json=event())
    response = await client.patch(
        f"{EVENTS}/web.1",
        json={"count": 3, "lastTimestamp": "2025-01-01T11:00:00Z"},
        headers={"Content-Type": "application/strategic-merge-patch+json"},
    )
    assert response.status == 200
    assert (await response.json())["count"] == 3


async def test_list_across_namespaces_with_involved_object_field_selectors(client: Any) -> None:
    await client.post("/api/v1/namespaces", json={"metadata": {"name": "other"}})
    await client.post(EVENTS, json=event("web.1", pod="web"))
    await client.post(EVENTS, json=event("db.1", pod="db"))
    await client.post("/api/v1/namespaces/other/events", json=event("web.2", involved_namespace="other"))
    everything = await (await client.get("/api/v1/events")).json()
    assert everything["kind"] == "EventList"
    assert [(e["metadata"]["namespace"], e["metadata"]["name"]) for e in everything["items"]] == [
        ("default", "db.1"),
        ("default", "web.1"),
        ("other", "web.2"),
    ]
    selector = "involvedObject.name=web,involvedObject.namespace=default,involvedObject.uid=uid-web"
    described = await (await client.get(EVENTS, params={"fieldSelector": selector, "limit": "500"})).json()
    assert [e["metadata"]["name"] for e in described["items"]] == ["web.1"]
    across = await (
        await client.get("/api/v1/events", params={"fieldSelector": "involvedObject.name=web"})
    ).json()
    assert [e["metadata"]["name"] for e in across["items"]] == ["web.1", "web.2"]


async def test_an_unknown_field_selector_is_a_bad_request(client: Any) -> None:
    response = await client.get(EVENTS, params={"fieldSelector": "spec.nodeName=x"})
    assert response.status == 400
    assert (await response.json())["message"] == "field label not supported: spec.nodeName"


async def test_delete_removes_the_event(client: Any) -> None:
    await client.post(EVENTS, json=event())
    response = await client.delete(f"{EVENTS}/web.1")
    assert response.status == 200
    missing = await client.get(f"{EVENTS}/web.1")
    assert missing.status == 404
    assert (await missing.json())["message"] == 'events "web.1" not found'


async def test_events_are_not_created_through_the_all_namespaces_path(client: Any) -> None:
    response = await client.post("/api/v1/events", json=event())
    assert response.status == 405
