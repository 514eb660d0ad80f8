"""Fault injection: rule matching and firing, upstream-shaped errors, latency and cut watch streams."""

from __future__ import annotations

import time
from typing import Any

import aiohttp
import orjson
import pytest

from fakeapi.http.faults import FaultRule
from fakeapi.http.requestinfo import RequestInfo
from fakeapi.testing import FakeAPIServer

POD = "/api/v1/namespaces/default/pods"
UPDATE_STATUS = RequestInfo("update", "pods", "status", "default", "web", True)


# ---- matching and firing (no HTTP)


@pytest.mark.parametrize(
    ("rule", "info", "field_manager", "user_agent", "matches"),
    [
        (FaultRule(status=409), UPDATE_STATUS, "", "", True),
        (FaultRule(verb="update", status=409), UPDATE_STATUS, "", "", True),
        (FaultRule(verb="patch", status=409), UPDATE_STATUS, "", "", False),
        (FaultRule(resource="pods", subresource="status", status=409), UPDATE_STATUS, "", "", True),
        (FaultRule(resource="pods", subresource="", status=409), UPDATE_STATUS, "", "", False),
        (FaultRule(namespace="default", name="web", status=409), UPDATE_STATUS, "", "", True),
        (FaultRule(namespace="other", status=409), UPDATE_STATUS, "", "", False),
        (FaultRule(name="we*", status=409), UPDATE_STATUS, "", "", True),
        (FaultRule(name="db-[0-9]", status=409), UPDATE_STATUS, "", "", False),
        (FaultRule(field_manager="my-controller", status=409), UPDATE_STATUS, "my-controller", "", True),
        (FaultRule(field_manager="my-controller", status=409), UPDATE_STATUS, "kubectl", "", False),
        (FaultRule(user_agent="kubectl/*", status=409), UPDATE_STATUS, "", "kubectl/v1.32.0", True),
        (FaultRule(user_agent="kubectl/*", status=409), UPDATE_STATUS, "", "OpenAPI-Generator/37/py", False),
        # a watch cut only ever matches watches
        (FaultRule(cut_watch_after=1), UPDATE_STATUS, "", "", False),
        (FaultRule(cut_watch_after=1), RequestInfo("watch", "pods", "", "default", "", True), "", "", True),
    ],
)
def test_rule_matches_on_every_request_attribute(rule: FaultRule, info: RequestInfo, field_manager: str,
                                                 user_agent: str, matches: bool) -> None:
    assert rule.matches(info, field_manager, user_agent) is matches


def _firings(rule: FaultRule, requests: int) -> list[bool]:
    return [rule.decide() for _ in range(requests)]


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        (FaultRule(status=500), [True, True, True, True, True]),
        (FaultRule(status=500, nth=3), [False, False, True, False, False]),
        (FaultRule(status=500, times=2), [True, True, False, False, False]),
        (FaultRule(status=500, times=0), [False] * 5),
        (FaultRule(status=500, probability=0), [False] * 5),
        (FaultRule(status=500, probability=1), [True] * 5),
    ],
)
def test_rule_fires_always_on_the_nth_match_or_for_the_first_k(rule: FaultRule, expected: list[bool]) -> None:
    assert _firings(rule, 5) == expected
    assert rule.matched == 5
    assert rule.fired == expected.count(True)


def test_probability_is_reproducible_from_the_seed() -> None:
    first = _firings(FaultRule(status=503, probability=0.5, seed=7), 200)
    again = _firings(FaultRule(status=503, probability=0.5, seed=7), 200)
    other = _firings(FaultRule(status=503, probability=0.5, seed=8), 200)
    assert first == again
    assert first != other
    assert 70 < first.count(True) < 130


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({}, "a fault rule needs an action: status, delay or cutWatchAfter"),
        ({"status": 418},
         "status 418 is not supported: use one of [400, 403, 404, 409, 410, 429, 500, 503, 504]"),
        ({"status": 500, "cut_watch_after": 2}, "a watch cut ends the stream, or sends a 410 ERROR event "
                                                "(status 410); status 500 cannot go with cutWatchAfter"),
        ({"status": 409, "nth": 0}, "nth counts matches from 1"),
        ({"status": 409, "probability": 1.5}, "probability must be between 0 and 1"),
        ({"status": 409, "times": -1}, "times must be a non-negative integer"),
        ({"delay": "slow"}, "delay must be a non-negative number"),
        ({"status": 409, "verb": 3}, "verb must be a string"),
    ],
)
def test_invalid_rules_are_refused_with_a_reason(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError) as raised:
        FaultRule(**kwargs)
    assert str(raised.value) == message


def test_rule_json_uses_camel_case_both_ways() -> None:
    rule = FaultRule.from_json({"verb": "update", "fieldManager": "ctl", "userAgent": "py*", "status": 429,
                                "retryAfterSeconds": 3, "times": 2})
    assert (rule.field_manager, rule.user_agent, rule.retry_after) == ("ctl", "py*", 3)
    assert rule.to_json() == {"id": 0, "verb": "update", "fieldManager": "ctl", "userAgent": "py*",
                              "status": 429, "retryAfterSeconds": 3, "times": 2, "matched": 0, "fired": 0}
    with pytest.raises(ValueError, match="unknown field 'field_manager' in fault rule"):
        FaultRule.from_json({"field_manager": "ctl", "status": 409})


# ---- over HTTP: what clients receive


def _status(message: str, reason: str, code: int, details: dict[str, Any] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                            "message": message, "reason": reason}
    if details is not None:
        body["details"] = details
    body["code"] = code
    return body


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        (409, _status('Operation cannot be fulfilled on pods "web": the object has been modified; please '
                      "apply your changes to the latest version and try again", "Conflict", 409,
                      {"name": "web", "kind": "pods"})),
        (429, _status("Too many requests, please try again later.", "TooManyRequests", 429,
                      {"retryAfterSeconds": 1})),
        (500, _status("Internal error occurred: injected fault", "InternalError", 500,
                      {"causes": [{"message": "injected fault"}]})),
        (503, _status("the server is currently unable to handle the request", "ServiceUnavailable", 503)),
        (504, _status("Timeout: request did not complete within requested timeout - context deadline "
                      "exceeded", "Timeout", 504, {})),
        (403, _status('pods "web" is forbidden: User "system:anonymous" cannot get resource "pods" in API '
                      'group "" in the namespace "default"', "Forbidden", 403,
                      {"name": "web", "kind": "pods"})),
        (404, _status('pods "web" not found', "NotFound", 404, {"name": "web", "kind": "pods"})),
    ],
)
async def test_injected_status_is_an_upstream_shaped_status(async_fakeapi: FakeAPIServer,
                                                            http: aiohttp.ClientSession, make_pod: Any,
                                                            status: int, expected: dict[str, Any]) -> None:
    async_fakeapi.seed(make_pod("web"))
    rule = async_fakeapi.inject(verb="get", resource="pods", status=status)
    async with http.get(POD + "/web") as response:
        assert response.status == status
        assert await response.json() == expected
        if status == 429:
            assert response.headers["Retry-After"] == "1"
    assert rule.fired == 1


async def test_faults_fire_only_where_they_match_and_are_recorded(async_fakeapi: FakeAPIServer,
                                                                  http: aiohttp.ClientSession,
                                                                  make_pod: Any) -> None:
    async_fakeapi.seed([make_pod("web"), make_pod("db")])
    rule = async_fakeapi.inject(verb="patch", resource="pods", name="web", field_manager="ctl", status=409,
                                times=1)
    patch = {"metadata": {"labels": {"a": "b"}}}
    headers = {"Content-Type": "application/merge-patch+json"}
    async with http.patch(POD + "/web?fieldManager=other", json=patch, headers=headers) as response:
        assert response.status == 200  # another field manager
    async with http.patch(POD + "/db?fieldManager=ctl", json=patch, headers=headers) as response:
        assert response.status == 200  # another pod
    async with http.patch(POD + "/web?fieldManager=ctl", json=patch, headers=headers) as response:
        assert response.status == 409
    async with http.patch(POD + "/web?fieldManager=ctl", json=patch, headers=headers) as response:
        assert response.status == 200  # times=1: only the first match
    assert (rule.matched, rule.fired) == (2, 1)
    [fired] = async_fakeapi.fired_faults
    assert (fired.rule, fired.method, fired.path, fired.verb, fired.name) == (rule.id, "PATCH", POD + "/web",
                                                                              "patch", "web")
    assert [r.status for r in async_fakeapi.requests] == [200, 200, 409, 200]


async def test_delay_adds_latency_before_the_answer(async_fakeapi: FakeAPIServer,
                                                    http: aiohttp.ClientSession) -> None:
    async_fakeapi.inject(verb="list", resource="pods", delay=0.2)
    started = time.perf_counter()
    async with http.get(POD) as response:
        assert response.status == 200
    assert time.perf_counter() - started >= 0.2


async def test_cleared_faults_stop_firing(async_fakeapi: FakeAPIServer, http: aiohttp.ClientSession) -> None:
    async_fakeapi.inject(verb="list", status=500)
    async with http.get(POD) as response:
        assert response.status == 500
    async_fakeapi.clear_faults()
    async with http.get(POD) as response:
        assert response.status == 200
    assert async_fakeapi.faults == [] and async_fakeapi.fired_faults == []


async def test_a_list_answers_410_expired_with_the_versions(async_fakeapi: FakeAPIServer,
                                                            http: aiohttp.ClientSession) -> None:
    async_fakeapi.inject(verb="list", status=410)
    rv = async_fakeapi.api.store.resource_version
    async with http.get(POD + "?resourceVersion=2&resourceVersionMatch=NotOlderThan") as response:
        assert response.status == 410
        assert await response.json() == _status(f"too old resource version: 2 ({rv})", "Expired", 410)


# ---- watch streams


async def _watch_events(http: aiohttp.ClientSession, query: str = "") -> list[dict[str, Any]]:
    """Every event of a watch until the server ends the stream."""
    async with http.get(POD + "?watch=true&allowWatchBookmarks=false" + query) as response:
        assert response.status == 200
        return [orjson.loads(line) for line in (await response.read()).splitlines() if line]


async def test_cut_watch_after_n_events_ends_the_stream(async_fakeapi: FakeAPIServer,
                                                        http: aiohttp.ClientSession, make_pod: Any) -> None:
    async_fakeapi.seed([make_pod("a"), make_pod("b"), make_pod("c")])
    rule = async_fakeapi.inject(verb="watch", resource="pods", cut_watch_after=2)
    events = await _watch_events(http)
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in events] == [("ADDED", "a"), ("ADDED", "b")]
    assert rule.fired == 1


async def test_cut_watch_with_410_sends_an_expired_error_event(async_fakeapi: FakeAPIServer,
                                                               http: aiohttp.ClientSession,
                                                               make_pod: Any) -> None:
    async_fakeapi.seed([make_pod("a"), make_pod("b")])
    async_fakeapi.inject(verb="watch", status=410, cut_watch_after=1)
    rv = async_fakeapi.api.store.resource_version
    events = await _watch_events(http)
    assert [e["type"] for e in events] == ["ADDED", "ERROR"]
    assert events[1]["object"] == _status(f"too old resource version: 0 ({rv})", "Expired", 410)


async def test_status_410_on_a_watch_is_an_immediate_error_event(async_fakeapi: FakeAPIServer,
                                                                 http: aiohttp.ClientSession,
                                                                 make_pod: Any) -> None:
    async_fakeapi.seed(make_pod("a"))
    async_fakeapi.inject(verb="watch", status=410, nth=1)
    events = await _watch_events(http, "&resourceVersion=1")
    rv = async_fakeapi.api.store.resource_version
    expired = _status(f"too old resource version: 1 ({rv})", "Expired", 410)
    assert events == [{"type": "ERROR", "object": expired}]


async def test_other_statuses_on_a_watch_answer_before_the_stream(async_fakeapi: FakeAPIServer,
                                                                  http: aiohttp.ClientSession) -> None:
    async_fakeapi.inject(verb="watch", status=503)
    async with http.get(POD + "?watch=true") as response:
        assert response.status == 503

