"""events.k8s.io/v1 events: the core events seen through the newer API, as upstream's cohabiting resources
(one stored object; its fields under the newer names), with the stricter validation of that API."""

from __future__ import annotations

import asyncio
from typing import Any

import orjson
from kubernetes import client as k8s

EVENTS_V1 = "/apis/events.k8s.io/v1/namespaces/default/events"
CORE_EVENTS = "/api/v1/namespaces/default/events"


def new_event(name: str = "web.1", **fields: Any) -> dict[str, Any]:
    """An event as a controller records it through events.k8s.io/v1 (client-go's events recorder)."""
    body: dict[str, Any] = {
        "apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": name},
        "eventTime": "2025-01-01T10:00:00.000000Z", "reportingController": "example.com/widgets",
        "reportingInstance": "widgets-1", "action": "Sync", "reason": "Synced", "type": "Normal",
        "regarding": {"kind": "Pod", "namespace": "default", "name": "web", "uid": "uid-web", "apiVersion": "v1"},
        "note": "synced the pod",
    }
    body.update(fields)
    return body


async def test_an_event_created_through_events_k8s_io_is_a_core_event_with_the_core_names(client: Any) -> None:
    created = await client.post(EVENTS_V1, json=new_event())
    assert created.status == 201, await created.text()
    event = await created.json()
    assert event["regarding"]["name"] == "web" and event["note"] == "synced the pod"
    # Go writes the value fields of the struct even when empty
    assert (event["deprecatedSource"], event["deprecatedFirstTimestamp"]) == ({}, None)
    core = await (await client.get(CORE_EVENTS + "/web.1")).json()
    assert core["apiVersion"] == "v1"
    assert core["involvedObject"] == event["regarding"]
    assert (core["message"], core["reportingComponent"]) == ("synced the pod", "example.com/widgets")
    assert core["metadata"]["resourceVersion"] == event["metadata"]["resourceVersion"]
    assert core["metadata"]["uid"] == event["metadata"]["uid"]


async def test_a_name_taken_in_one_api_is_taken_in_the_other(client: Any) -> None:
    assert (await client.post(EVENTS_V1, json=new_event())).status == 201
    taken = await client.post(CORE_EVENTS, json={"metadata": {"name": "web.1"},
                                                 "involvedObject": {"namespace": "default"}})
    assert taken.status == 409
    assert (await taken.json())["message"] == 'events "web.1" already exists'
    again = await client.post(EVENTS_V1, json=new_event())
    assert again.status == 409
    assert (await again.json())["message"] == 'events.events.k8s.io "web.1" already exists'


async def test_a_core_event_is_listed_and_read_through_events_k8s_io(client: Any) -> None:
    core = {"metadata": {"name": "old.1"}, "involvedObject": {"kind": "Pod", "namespace": "default", "name": "db"},
            "reason": "Pulled", "message": "pulled the image", "type": "Normal",
            "source": {"component": "kubelet", "host": "node-1"}, "count": 3,
            "firstTimestamp": "2025-01-01T10:00:00Z", "lastTimestamp": "2025-01-01T10:05:00Z"}
    assert (await client.post(CORE_EVENTS, json=core)).status == 201
    listed = await (await client.get(EVENTS_V1)).json()
    assert listed["kind"] == "EventList" and listed["apiVersion"] == "events.k8s.io/v1"
    [event] = listed["items"]
    assert event["regarding"]["name"] == "db" and event["note"] == "pulled the image"
    assert event["deprecatedSource"] == {"component": "kubelet", "host": "node-1"}
    assert (event["deprecatedCount"], event["deprecatedLastTimestamp"]) == (3, "2025-01-01T10:05:00Z")
    assert "involvedObject" not in event and "reportingController" not in event  # empty: left out


async def test_field_selectors_take_the_names_of_events_k8s_io(client: Any) -> None:
    await client.post(EVENTS_V1, json=new_event("a"))
    await client.post(EVENTS_V1, json=new_event("b", regarding={"kind": "Pod", "namespace": "default",
                                                                 "name": "db"}))
    selected = await (await client.get(EVENTS_V1 + "?fieldSelector=regarding.name=db")).json()
    assert [item["metadata"]["name"] for item in selected["items"]] == ["b"]
    wrong = await client.get(EVENTS_V1 + "?fieldSelector=involvedObject.name=db")
    assert wrong.status == 400
    by_controller = await (await client.get(EVENTS_V1 + "?fieldSelector=reportingController=example.com/widgets"))\
        .json()
    assert len(by_controller["items"]) == 2


async def test_events_k8s_io_requires_what_upstream_requires_of_a_new_event(client: Any) -> None:
    response = await client.post(EVENTS_V1, json=new_event(eventTime=None, type="Info", deprecatedCount=2))
    assert response.status == 422
    assert [(cause["field"], cause["message"]) for cause in (await response.json())["details"]["causes"]] == [
        ("eventTime", "Required value"),
        ("type", 'Invalid value: "": has invalid value: Info'),
        ("count", 'Invalid value: "": needs to be unset'),
    ]
    assert (await client.get(CORE_EVENTS)).status == 200
    assert (await (await client.get(CORE_EVENTS)).json())["items"] == []  # nothing was stored


async def test_an_update_through_events_k8s_io_may_not_change_what_happened(client: Any) -> None:
    await client.post(EVENTS_V1, json=new_event())
    changed = await client.patch(EVENTS_V1 + "/web.1", json={"note": "rewritten"},
                                 headers={"Content-Type": "application/merge-patch+json"})
    assert changed.status == 422
    assert (await changed.json())["message"] == (
        'Event.events.k8s.io "web.1" is invalid: message: Invalid value: "rewritten": field is immutable')
    series = {"count": 2, "lastObservedTime": "2025-01-01T10:01:00.000000Z"}
    observed = await client.patch(EVENTS_V1 + "/web.1", json={"series": series},
                                  headers={"Content-Type": "application/merge-patch+json"})
    assert observed.status == 200, await observed.text()
    assert (await observed.json())["series"] == series
    core = await (await client.get(CORE_EVENTS + "/web.1")).json()
    assert core["series"] == series


async def test_a_watch_of_events_k8s_io_sees_core_events_in_its_form(client: Any) -> None:
    watch = await client.get(EVENTS_V1 + "?watch=true")
    core = {"metadata": {"name": "seen"}, "involvedObject": {"kind": "Pod", "namespace": "default", "name": "x"},
            "reason": "Killing", "message": "stopping", "type": "Normal"}
    assert (await client.post(CORE_EVENTS, json=core)).status == 201
    line = await asyncio.wait_for(watch.content.readline(), 5)
    event = orjson.loads(line)
    assert event["type"] == "ADDED"
    assert event["object"]["apiVersion"] == "events.k8s.io/v1"
    assert (event["object"]["regarding"]["name"], event["object"]["note"]) == ("x", "stopping")
    watch.close()


async def test_discovery_lists_events_k8s_io(client: Any) -> None:
    resources = await (await client.get("/apis/events.k8s.io/v1")).json()
    assert [(r["name"], r["kind"], r["namespaced"]) for r in resources["resources"]] == [("events", "Event", True)]


def test_the_official_clients_events_v1_api_records_and_lists(live_server: str) -> None:
    configuration = k8s.Configuration()
    configuration.host = live_server
    api = k8s.EventsV1Api(k8s.ApiClient(configuration))
    api.create_namespaced_event("default", k8s.EventsV1Event(
        metadata=k8s.V1ObjectMeta(name="from-client"), event_time="2025-01-01T10:00:00.000000Z",
        reporting_controller="example.com/widgets", reporting_instance="widgets-1", action="Sync",
        reason="Synced", type="Warning", note="it failed",
        regarding=k8s.V1ObjectReference(kind="Pod", namespace="default", name="web")))
    [event] = api.list_namespaced_event("default").items
    assert (event.metadata.name, event.note, event.regarding.name) == ("from-client", "it failed", "web")
    core = k8s.CoreV1Api(k8s.ApiClient(configuration)).read_namespaced_event("from-client", "default")
    assert (core.message, core.involved_object.name, core.type) == ("it failed", "web", "Warning")
