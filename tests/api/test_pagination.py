"""limit and continue over HTTP: upstream's tokens, consistent snapshots, and their errors."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from fakeapi.app import create_app
from fakeapi.config import ServerConfig
from fakeapi.http.keys import api_key

PODS = "/api/v1/namespaces/default/pods"
MERGE = {"Content-Type": "application/merge-patch+json"}


def token(start: str, rv: int, version: str = "meta.k8s.io/v1") -> str:
    raw = json.dumps({"v": version, "rv": rv, "start": start}, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def decoded(continue_token: str) -> Any:
    return json.loads(base64.urlsafe_b64decode(continue_token + "=" * (-len(continue_token) % 4)))


def bad_request(message: str) -> dict[str, Any]:
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message,
            "reason": "BadRequest", "code": 400}


async def create(client: Any, pod: dict[str, Any], namespace: str = "default") -> dict[str, Any]:
    response = await client.post(f"/api/v1/namespaces/{namespace}/pods", json=pod)
    assert response.status == 201, await response.text()
    created: dict[str, Any] = await response.json()
    return created


async def page(client: Any, path: str = PODS, **params: str) -> Any:
    response = await client.get(path, params=params)
    assert response.status == 200, await response.text()
    return await response.json()


def item_names(listed: Any) -> list[str]:
    return [item["metadata"]["name"] for item in listed["items"]]


async def test_pages_carry_upstream_tokens_and_remaining_counts(client: Any, make_pod: Any) -> None:
    for name in "abcde":
        await create(client, make_pod(name))
    first = await page(client, limit="2")
    rv = int(first["metadata"]["resourceVersion"])
    assert item_names(first) == ["a", "b"]
    assert first["metadata"]["remainingItemCount"] == 3
    assert decoded(first["metadata"]["continue"]) == {"v": "meta.k8s.io/v1", "rv": rv, "start": "b\x00"}
    second = await page(client, limit="2", **{"continue": first["metadata"]["continue"]})
    assert item_names(second) == ["c", "d"]
    assert second["metadata"]["resourceVersion"] == str(rv)
    assert second["metadata"]["remainingItemCount"] == 1
    last = await page(client, limit="2", **{"continue": second["metadata"]["continue"]})
    assert item_names(last) == ["e"]
    assert last["metadata"] == {"resourceVersion": str(rv)}


async def test_tokens_across_namespaces_start_at_namespace_slash_name(client: Any, make_pod: Any) -> None:
    await client.post("/api/v1/namespaces", json={"metadata": {"name": "other"}})
    await create(client, make_pod("x"), "other")
    await create(client, make_pod("y"))
    first = await page(client, "/api/v1/pods", limit="1")
    assert decoded(first["metadata"]["continue"])["start"] == "default/y\x00"
    rest = await page(client, "/api/v1/pods", limit="1", **{"continue": first["metadata"]["continue"]})
    assert [(p["metadata"]["namespace"], p["metadata"]["name"]) for p in rest["items"]] == [("other", "x")]


async def test_pages_are_a_snapshot_at_the_first_page_version(client: Any, make_pod: Any) -> None:
    pods = {name: await create(client, make_pod(name)) for name in "abcd"}
    first = await page(client, limit="2")
    # writes between pages: a new pod that sorts late, a modified and a deleted one on the next page
    await create(client, make_pod("e"))
    await client.patch(PODS + "/c", data=json.dumps({"metadata": {"labels": {"x": "y"}}}), headers=MERGE)
    await client.delete(PODS + "/d")
    rest = await page(client, limit="10", **{"continue": first["metadata"]["continue"]})
    assert rest["items"] == [pods["c"], pods["d"]]
    assert rest["metadata"]["resourceVersion"] == first["metadata"]["resourceVersion"]


async def test_selector_pages_have_no_remaining_count_and_follow_any_later_key(client: Any,
                                                                               make_pod: Any) -> None:
    for index, name in enumerate("abcdef"):
        await create(client, make_pod(name, labels={"odd": str(index % 2 == 1).lower()}))
    first = await page(client, labelSelector="odd=true", limit="2")
    assert item_names(first) == ["b", "d"]
    assert "remainingItemCount" not in first["metadata"]
    second = await page(client, labelSelector="odd=true", limit="2",
                        **{"continue": first["metadata"]["continue"]})
    assert item_names(second) == ["f"]
    assert "continue" not in second["metadata"]
    # etcd gives a token whenever keys follow the page, even if none of them matches
    only_first = await page(client, labelSelector="odd=false", limit="1")
    assert item_names(only_first) == ["a"] and only_first["metadata"]["continue"]


async def test_a_page_whose_keys_all_fail_the_selector_is_empty(client: Any, make_pod: Any) -> None:
    await create(client, make_pod("a", labels={"keep": "yes"}))
    await create(client, make_pod("b"))
    first = await page(client, labelSelector="keep=yes", limit="1")
    rest = await page(client, labelSelector="keep=yes", limit="1",
                      **{"continue": first["metadata"]["continue"]})
    assert rest["items"] == [] and "continue" not in rest["metadata"]


async def test_resource_version_0_may_go_with_continue(client: Any, make_pod: Any) -> None:
    for name in "ab":
        await create(client, make_pod(name))
    first = await page(client, limit="1")
    rest = await page(client, limit="1", resourceVersion="0", **{"continue": first["metadata"]["continue"]})
    assert item_names(rest) == ["b"]


async def test_resource_version_other_than_0_with_continue_is_400(client: Any, make_pod: Any) -> None:
    await create(client, make_pod("a"))
    response = await client.get(PODS, params={"continue": token("a\x00", 1), "resourceVersion": "1"})
    assert await response.json() == bad_request(
        "specifying resource version is not allowed when using continue")


@pytest.mark.parametrize(("value", "message"), [
    ("!!!", "illegal base64 data at input byte 0"),
    ("abcde", "illegal base64 data at input byte 4"),
    (token("a\x00", 5, version="meta.k8s.io/v2"),
     "server does not recognize this encoded version meta.k8s.io/v2"),
    (token("a\x00", 0), "incorrect encoded start resourceVersion (version meta.k8s.io/v1)"),
    (token("", 5), "encoded start key empty (version meta.k8s.io/v1)"),
    (token("../kube-system/a", 5), "../kube-system/a"),
    (base64.urlsafe_b64encode(b'{"v":"meta.k8s.io/v1","rv":"5","start":"a"}').decode().rstrip("="),
     "json: cannot unmarshal string into Go struct field continueToken.rv of type int64"),
    (base64.urlsafe_b64encode(b"hello").decode().rstrip("="),
     "invalid character 'h' looking for beginning of value"),
])
async def test_malformed_continue_token_is_400(client: Any, value: str, message: str) -> None:
    response = await client.get(PODS, params={"limit": "1", "continue": value})
    assert response.status == 400
    expected = bad_request(f"invalid continue token: continue key is not valid: {message}")
    assert await response.json() == expected


async def test_token_older_than_the_history_is_410_with_a_latest_token(aiohttp_client: Any,
                                                                       make_pod: Any) -> None:
    client = await aiohttp_client(create_app(ServerConfig(watch_history=2)))
    for name in "abc":
        await create(client, make_pod(name))
    first = await page(client, limit="1")
    for name in "xyz":  # three more changes push the first page's version out of the history
        await create(client, make_pod(name))
    response = await client.get(PODS, params={"limit": "1", "continue": first["metadata"]["continue"]})
    assert response.status == 410
    body = await response.json()
    fresh = token("a\x00", -1)
    assert body == {
        "kind": "Status", "apiVersion": "v1", "metadata": {"continue": fresh}, "status": "Failure",
        "message": "The provided continue parameter is too old to display a consistent list result. You "
                   "can start a new list without the continue parameter, or use the continue token in "
                   "this response to retrieve the remainder of the results. Continuing with the provided "
                   "token results in an inconsistent list - objects that were created, modified, or "
                   "deleted between the time the first chunk was returned and now may show up in the list.",
        "reason": "Expired", "code": 410}
    # the fresh token continues at the latest version, inconsistently by design
    rest = await page(client, limit="10", **{"continue": fresh})
    assert item_names(rest) == ["b", "c", "x", "y", "z"]
    assert rest["metadata"]["resourceVersion"] == str(client.app[api_key].store.resource_version)


async def test_limit_on_namespaces_pages_too(client: Any) -> None:
    first = await page(client, "/api/v1/namespaces", limit="3")
    assert item_names(first) == ["default", "kube-node-lease", "kube-public"]
    assert first["metadata"]["remainingItemCount"] == 1
    rest = await page(client, "/api/v1/namespaces", limit="3", **{"continue": first["metadata"]["continue"]})
    assert item_names(rest) == ["kube-system"]
