"""LIST, GET and deletecollection over HTTP: selectors, resourceVersion semantics, ordering, Tables."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from fakeapi.http.keys import api_key, watch_hub_key
from fakeapi.machinery.types import ObjectKey

PODS = "/api/v1/namespaces/default/pods"
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"
MERGE = {"Content-Type": "application/merge-patch+json"}


def status(code: int, reason: str, message: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                            "message": message}
    if reason:
        body["reason"] = reason
    if details is not None:
        body["details"] = details
    body["code"] = code
    return body


def invalid_list_options(*causes: tuple[str, str, str]) -> dict[str, Any]:
    """A 422 for ListOptions: causes are (field, reason, message-without-field)."""
    texts = [f"{field}: {message}" for field, _reason, message in causes]
    shown = texts[0] if len(texts) == 1 else "[" + ", ".join(texts) + "]"
    return status(422, "Invalid", f'ListOptions.meta.k8s.io "" is invalid: {shown}', {
        "group": "meta.k8s.io", "kind": "ListOptions",
        "causes": [{"reason": reason, "message": message, "field": field}
                   for field, reason, message in causes]})


async def create(client: Any, pod: dict[str, Any], namespace: str = "default") -> dict[str, Any]:
    response = await client.post(f"/api/v1/namespaces/{namespace}/pods", json=pod)
    assert response.status == 201, await response.text()
    created: dict[str, Any] = await response.json()
    return created


async def names(client: Any, path: str = PODS, **params: str) -> list[str]:
    response = await client.get(path, params=params)
    assert response.status == 200, await response.text()
    return [item["metadata"]["name"] for item in (await response.json())["items"]]


async def test_list_is_a_pod_list_at_the_current_resource_version(client: Any, make_pod: Any) -> None:
    first = await create(client, make_pod("a"))
    second = await create(client, make_pod("b"))
    response = await client.get(PODS)
    assert response.headers["Content-Type"] == "application/json"
    assert await response.json() == {"kind": "PodList", "apiVersion": "v1",
                                     "metadata": {"resourceVersion": second["metadata"]["resourceVersion"]},
                                     "items": [first, second]}


async def test_list_across_namespaces_is_in_storage_key_order(client: Any, make_pod: Any) -> None:
    for namespace in ("team", "team-a"):
        await client.post("/api/v1/namespaces", json={"metadata": {"name": namespace}})
    for namespace, name in (("team", "b"), ("team-a", "z"), ("default", "m"), ("team", "a")):
        await create(client, make_pod(name), namespace)
    listed = await (await client.get("/api/v1/pods")).json()
    # etcd orders keys `<ns>/<name>` byte-wise, so "team-a/" sorts before "team/"
    assert [(p["metadata"]["namespace"], p["metadata"]["name"]) for p in listed["items"]] == [
        ("default", "m"), ("team-a", "z"), ("team", "a"), ("team", "b")]


async def test_list_of_an_unknown_namespace_is_empty(client: Any) -> None:
    assert await names(client, "/api/v1/namespaces/nowhere/pods") == []


@pytest.mark.parametrize(("selector", "expected"), [
    ("app=web", ["a", "c"]),
    ("app==web,tier=front", ["a"]),
    ("app!=web", ["b", "d"]),
    ("tier in (front,back)", ["a", "b", "c"]),
    ("tier notin (front)", ["b", "c", "d"]),
    ("tier", ["a", "b", "c"]),
    ("!tier", ["d"]),
])
async def test_label_selector_filters_the_list(client: Any, make_pod: Any, selector: str,
                                               expected: list[str]) -> None:
    for name, labels in (("a", {"app": "web", "tier": "front"}), ("b", {"app": "db", "tier": "back"}),
                         ("c", {"app": "web", "tier": "back"}), ("d", {})):
        await create(client, make_pod(name, labels=labels))
    assert await names(client, labelSelector=selector) == expected


@pytest.mark.parametrize(("selector", "message"), [
    ("app in (a", "unable to parse requirement: found '', expected: ',' or ')'"),
    ("app=a b", "found 'b', expected: ',' or 'end of string'"),
])
async def test_malformed_label_selector_is_400(client: Any, selector: str, message: str) -> None:
    response = await client.get(PODS, params={"labelSelector": selector})
    assert response.status == 400
    assert await response.json() == status(400, "BadRequest", message)


@pytest.mark.parametrize(("selector", "expected"), [
    ("spec.nodeName=node-1", ["a"]),
    ("spec.nodeName!=node-1", ["b", "c"]),
    ("status.phase=Running", ["b"]),
    ("status.phase!=Running,spec.nodeName=", ["c"]),
    ("metadata.name=c", ["c"]),
    ("spec.restartPolicy=Never", ["c"]),
    ("metadata.namespace=default", ["a", "b", "c"]),
])
async def test_field_selector_filters_on_pod_fields(client: Any, make_pod: Any, selector: str,
                                                    expected: list[str]) -> None:
    await create(client, make_pod("a", nodeName="node-1"))
    await create(client, make_pod("b"))
    await create(client, make_pod("c", restartPolicy="Never"))
    response = await client.patch(PODS + "/b/status", data=json.dumps({"status": {"phase": "Running"}}),
                                  headers=MERGE)
    assert response.status == 200, await response.text()
    assert await names(client, fieldSelector=selector) == expected


async def test_field_selector_on_namespaces(client: Any) -> None:
    assert await names(client, "/api/v1/namespaces", fieldSelector="metadata.name=default") == ["default"]
    assert await names(client, "/api/v1/namespaces", fieldSelector="status.phase!=Active") == []


@pytest.mark.parametrize(("selector", "message"), [
    ("spec.foo=x", "field label not supported: spec.foo"),
    ("status.phase", "invalid selector: 'status.phase'; can't understand 'status.phase'"),
])
async def test_bad_field_selector_is_400(client: Any, selector: str, message: str) -> None:
    response = await client.get(PODS, params={"fieldSelector": selector})
    assert await response.json() == status(400, "BadRequest", message)


@pytest.mark.parametrize(("params", "causes"), [
    ({"resourceVersionMatch": "NotOlderThan"},
     [("resourceVersionMatch", "FieldValueForbidden",
       "Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided")]),
    ({"resourceVersion": "0", "resourceVersionMatch": "Exact"},
     [("resourceVersionMatch", "FieldValueForbidden",
       'Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"')]),
    ({"resourceVersion": "5", "resourceVersionMatch": "Newest"},
     [("resourceVersionMatch", "FieldValueNotSupported",
       'Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""')]),
    ({"continue": "abc", "resourceVersion": "5", "resourceVersionMatch": "Exact"},
     [("resourceVersionMatch", "FieldValueForbidden",
       "Forbidden: resourceVersionMatch is forbidden when continue is provided")]),
    ({"sendInitialEvents": "true"},
     [("sendInitialEvents", "FieldValueForbidden", "Forbidden: sendInitialEvents is forbidden for list")]),
])
async def test_invalid_list_option_combinations_are_422(client: Any, params: dict[str, str],
                                                        causes: list[tuple[str, str, str]]) -> None:
    response = await client.get(PODS, params=params)
    assert response.status == 422
    assert await response.json() == invalid_list_options(*causes)


@pytest.mark.parametrize(("params", "message"), [
    ({"limit": "ten"}, 'strconv.ParseInt: parsing "ten": invalid syntax'),
    ({"timeoutSeconds": "1.5"}, 'strconv.ParseInt: parsing "1.5": invalid syntax'),
])
async def test_malformed_numbers_are_400(client: Any, params: dict[str, str], message: str) -> None:
    assert await (await client.get(PODS, params=params)).json() == status(400, "BadRequest", message)


async def test_malformed_resource_version_fails_like_upstream(client: Any) -> None:
    detail = 'resourceVersion: Invalid value: "x1": strconv.ParseUint: parsing "x1": invalid syntax'
    # the watch cache hands back a plain storage error: 500 without a reason
    response = await client.get(PODS, params={"resourceVersion": "x1"})
    assert await response.json() == status(500, "", detail)
    # with a limit etcd serves the list, and says 400
    response = await client.get(PODS, params={"resourceVersion": "x1", "limit": "5"})
    assert await response.json() == status(400, "BadRequest", f"invalid resource version: {detail}")


async def test_resource_version_0_serves_everything_and_ignores_limit(client: Any, make_pod: Any) -> None:
    for name in "abc":
        await create(client, make_pod(name))
    listed = await (await client.get(PODS, params={"resourceVersion": "0", "limit": "1"})).json()
    assert [p["metadata"]["name"] for p in listed["items"]] == ["a", "b", "c"]
    assert "continue" not in listed["metadata"]


async def test_not_older_than_serves_the_latest_state(client: Any, make_pod: Any) -> None:
    old = await create(client, make_pod("a"))
    await create(client, make_pod("b"))
    params = {"resourceVersion": old["metadata"]["resourceVersion"], "resourceVersionMatch": "NotOlderThan"}
    listed = await (await client.get(PODS, params=params)).json()
    assert [p["metadata"]["name"] for p in listed["items"]] == ["a", "b"]


async def test_exact_list_serves_an_older_state_from_history(client: Any, make_pod: Any) -> None:
    a = await create(client, make_pod("a", labels={"v": "1"}))
    b = await create(client, make_pod("b"))
    at = b["metadata"]["resourceVersion"]
    await client.patch(PODS + "/a", data=json.dumps({"metadata": {"labels": {"v": "2"}}}), headers=MERGE)
    await client.delete(PODS + "/b")
    await create(client, make_pod("c"))
    response = await client.get(PODS, params={"resourceVersion": at, "resourceVersionMatch": "Exact"})
    assert await response.json() == {"kind": "PodList", "apiVersion": "v1",
                                     "metadata": {"resourceVersion": at}, "items": [a, b]}
    # a version with a limit and no match is exact too (upstream's legacy rule)
    listed = await (await client.get(PODS, params={"resourceVersion": at, "limit": "10"})).json()
    assert listed["items"] == [a, b]


async def test_exact_list_older_than_the_history_is_410(aiohttp_client: Any, make_pod: Any) -> None:
    from fakeapi.app import create_app
    from fakeapi.config import ServerConfig

    client = await aiohttp_client(create_app(ServerConfig(watch_history=3)))
    first = await create(client, make_pod("a"))
    for name in "bcde":  # the history keeps only the last 3 changes (c, d, e)
        await create(client, make_pod(name))
    response = await client.get(PODS, params={"resourceVersion": first["metadata"]["resourceVersion"],
                                              "resourceVersionMatch": "Exact"})
    assert response.status == 410
    assert await response.json() == status(410, "Expired",
                                           "The resourceVersion for the provided list is too old.")


async def test_too_large_resource_version_is_504_after_waiting(client: Any) -> None:
    client.app[watch_hub_key].freshness_wait = 0.05
    current = client.app[api_key].store.resource_version
    response = await client.get(PODS, params={"resourceVersion": str(current + 5)})
    assert response.status == 504
    assert response.headers["Retry-After"] == "1"
    assert await response.json() == status(
        504, "Timeout", f"Timeout: Too large resource version: {current + 5}, current: {current}",
        {"causes": [{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}],
         "retryAfterSeconds": 1})
    # served by etcd (a limit), the answer comes at once and carries no retry hint
    response = await client.get(PODS, params={"resourceVersion": str(current + 5), "limit": "1",
                                              "resourceVersionMatch": "NotOlderThan"})
    assert response.status == 504 and "Retry-After" not in response.headers
    assert (await response.json())["details"] == {
        "causes": [{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}]}


async def test_list_waits_for_a_resource_version_that_arrives(client: Any, make_pod: Any) -> None:
    store = client.app[api_key].store
    wanted = store.resource_version + 1
    pending = asyncio.ensure_future(client.get(PODS, params={"resourceVersion": str(wanted)}))
    await asyncio.sleep(0.05)
    await create(client, make_pod("late"))
    response = await pending
    assert response.status == 200
    listed = await response.json()
    assert listed["metadata"]["resourceVersion"] == str(wanted)
    assert [p["metadata"]["name"] for p in listed["items"]] == ["late"]


async def test_get_one_with_a_too_large_resource_version_is_504(client: Any, make_pod: Any) -> None:
    client.app[watch_hub_key].freshness_wait = 0.01
    pod = await create(client, make_pod("a"))
    rv = int(pod["metadata"]["resourceVersion"])
    assert await (await client.get(PODS + "/a", params={"resourceVersion": str(rv)})).json() == pod
    response = await client.get(PODS + "/a", params={"resourceVersion": str(rv + 1)})
    assert response.status == 504
    message = f"Timeout: Too large resource version: {rv + 1}, current: {rv}"
    assert (await response.json())["message"] == message


# ---- Table output


async def test_list_as_table_has_rows_and_the_list_resource_version(client: Any, make_pod: Any) -> None:
    for name in "ab":
        await create(client, make_pod(name))
    response = await client.get(PODS, params={"limit": "1"}, headers={"Accept": TABLE})
    assert response.headers["Content-Type"] == TABLE
    table = await response.json()
    assert table["kind"] == "Table" and table["apiVersion"] == "meta.k8s.io/v1"
    assert table["metadata"]["resourceVersion"] == str(client.app[api_key].store.resource_version)
    assert table["metadata"]["remainingItemCount"] == 1 and table["metadata"]["continue"]
    assert [column["name"] for column in table["columnDefinitions"]][:3] == ["Name", "Ready", "Status"]
    [row] = table["rows"]
    assert row["cells"][0] == "a"
    assert row["object"]["kind"] == "PartialObjectMetadata"
    assert row["object"]["metadata"]["namespace"] == "default"


@pytest.mark.parametrize(("include", "object_kind"), [("Object", "Pod"), ("None", None)])
async def test_table_include_object(client: Any, make_pod: Any, include: str,
                                    object_kind: str | None) -> None:
    await create(client, make_pod("a"))
    response = await client.get(PODS, params={"includeObject": include}, headers={"Accept": TABLE})
    table = await response.json()
    assert (table["rows"][0].get("object") or {}).get("kind") == object_kind


async def test_table_with_bad_include_object_is_400(client: Any) -> None:
    response = await client.get(PODS, params={"includeObject": "All"}, headers={"Accept": TABLE})
    assert await response.json() == status(
        400, "BadRequest", "Unable to convert to Table as requested: includeObject: Invalid value: \"All\": "
                           "must be 'Metadata', 'Object', 'None', or empty")


async def test_get_one_as_table_is_a_one_row_table(client: Any, make_pod: Any) -> None:
    pod = await create(client, make_pod("a"))
    table = await (await client.get(PODS + "/a", headers={"Accept": TABLE})).json()
    assert table["metadata"] == {"resourceVersion": pod["metadata"]["resourceVersion"]}
    assert len(table["rows"]) == 1 and table["rows"][0]["cells"][0] == "a"


async def test_plain_json_accept_gets_the_object(client: Any, make_pod: Any) -> None:
    pod = await create(client, make_pod("a"))
    response = await client.get(PODS + "/a", headers={"Accept": "application/json"})
    assert await response.json() == pod


# ---- deletecollection


async def test_deletecollection_deletes_what_the_selectors_match(client: Any, make_pod: Any) -> None:
    doomed = await create(client, make_pod("a", labels={"app": "web"}))
    await create(client, make_pod("b", labels={"app": "db"}))
    scheduled = await create(client, make_pod("c", labels={"app": "web"}, nodeName="node-1"))
    await create(client, make_pod("d", labels={"app": "web"}, restartPolicy="Never"))
    rv = client.app[api_key].store.resource_version
    response = await client.delete(PODS, params={"labelSelector": "app=web",
                                                 "fieldSelector": "spec.restartPolicy=Always"})
    assert response.status == 200
    # upstream answers with the list it was about to delete, as it was
    assert await response.json() == {"kind": "PodList", "apiVersion": "v1",
                                     "metadata": {"resourceVersion": str(rv)}, "items": [doomed, scheduled]}
    remaining = await (await client.get(PODS)).json()
    assert [p["metadata"]["name"] for p in remaining["items"]] == ["b", "c", "d"]
    # a scheduled pod is deleted gracefully: it is still there, terminating
    assert remaining["items"][1]["metadata"]["deletionTimestamp"]


async def test_deletecollection_with_grace_period_zero_and_dry_run(client: Any, make_pod: Any) -> None:
    await create(client, make_pod("a", nodeName="node-1"))
    response = await client.delete(PODS, params={"dryRun": "All"})
    assert [p["metadata"]["name"] for p in (await response.json())["items"]] == ["a"]
    assert await names(client) == ["a"]
    response = await client.delete(PODS, json={"gracePeriodSeconds": 0})
    assert response.status == 200
    assert await names(client) == []
    assert not client.app[api_key].store.exists(ObjectKey("pods", "default", "a"))


async def test_deletecollection_with_invalid_options_is_422(client: Any) -> None:
    response = await client.delete(PODS, params={"resourceVersionMatch": "Exact"})
    assert await response.json() == invalid_list_options(
        ("resourceVersionMatch", "FieldValueForbidden",
         "Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided"))
