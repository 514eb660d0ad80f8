"""The control API checks every input and never reads a file a request names (only `--seed-file` and the
in-process `seed(path)` read files)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import aiohttp
import orjson
import pytest

from fakeapi.testing import FakeAPIServer
from tests.hostile.checks import CONTROL, PODS, status_of, store_unchanged

OUT_OF_RANGE = "the clock must stay between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z"


async def answer(http: aiohttp.ClientSession, method: str, path: str, **kwargs: Any) -> tuple[int, str, str]:
    async with http.request(method, path, **kwargs) as response:
        body = await response.json()
    return (*status_of(body), body["message"])


@pytest.fixture
def pod_file(tmp_path: Path) -> Path:
    path = tmp_path / "pods.yaml"
    path.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: from-file}\nspec: {containers: [{name: a, image: i}]}")
    return path


@pytest.mark.parametrize("body", [
    lambda path: {"items": str(path)},
    lambda path: {"kind": "List", "items": str(path)},
    lambda path: [str(path)],
    lambda path: str(path),
], ids=["items", "List items", "array", "string"])
async def test_a_seed_body_naming_a_file_does_not_read_it(http: aiohttp.ClientSession, async_fakeapi: FakeAPIServer,
                                                          pod_file: Path, body: Any) -> None:
    with store_unchanged(async_fakeapi):
        code, reason, _ = await answer(http, "POST", CONTROL + "/seed", json=body(pod_file))
    assert (code, reason) == (400, "BadRequest")


async def test_a_seed_text_naming_a_file_is_only_text(http: aiohttp.ClientSession, async_fakeapi: FakeAPIServer,
                                                      pod_file: Path) -> None:
    for content_type, code_and_reason in (("application/yaml", (400, "BadRequest")),
                                          ("text/plain", (415, "UnsupportedMediaType"))):
        with store_unchanged(async_fakeapi):
            code, reason, _ = await answer(http, "POST", CONTROL + "/seed", data=str(pod_file),
                                           headers={"Content-Type": content_type})
        assert (code, reason) == code_and_reason
    assert [pod["metadata"]["name"] for pod in async_fakeapi.seed(pod_file)] == ["from-file"]  # in-process: a file


@pytest.mark.parametrize("change", [
    {"advanceSeconds": 1e17},
    {"advanceSeconds": -1e17},
    {"advanceSeconds": 10_000 * 366 * 86400},
    {"now": "9999-12-31T23:00:00-05:00"},  # year 10000 in UTC
    {"now": "9999-12-31T23:59:00Z", "advanceSeconds": 120},
    {"frozen": True, "now": "0001-01-01T00:00:00Z", "advanceSeconds": -1},
])
async def test_the_clock_stays_within_the_years_rfc3339_can_write(http: aiohttp.ClientSession,
                                                                 change: dict[str, Any]) -> None:
    async with http.get(CONTROL + "/clock") as response:
        before = await response.json()
    assert await answer(http, "POST", CONTROL + "/clock", json=change) == (400, "BadRequest", OUT_OF_RANGE)
    async with http.get(CONTROL + "/clock") as response:  # nothing of the change was applied
        after = await response.json()
    assert after["frozen"] == before["frozen"] is False and after["now"][:4] == before["now"][:4]


@pytest.mark.parametrize(("change", "message"), [
    ({"now": "10000-01-01T00:00:00Z"}, "now must be an RFC 3339 time, not '10000-01-01T00:00:00Z'"),
    ({"advanceSeconds": "60"}, "advanceSeconds must be a number"),
    ({"frozen": "yes"}, "frozen must be true or false"),
    ([], "the clock body must be a JSON object"),
])
async def test_clock_inputs_are_checked(http: aiohttp.ClientSession, change: Any, message: str) -> None:
    assert await answer(http, "POST", CONTROL + "/clock", json=change) == (400, "BadRequest", message)


async def test_a_clock_at_the_end_of_year_9999_still_deletes(http: aiohttp.ClientSession,
                                                             async_fakeapi: FakeAPIServer, make_pod: Any) -> None:
    async_fakeapi.seed([make_pod("web", nodeName="node-1"), make_pod("db", nodeName="node-1")])
    async with http.post(CONTROL + "/clock", json={"frozen": True, "now": "9999-12-31T23:59:59Z"}) as response:
        assert response.status == 200
    for name, grace in (("web", 30), ("db", 9223372036854775807)):  # deadlines past year 9999
        async with http.delete(f"{PODS}/{name}?gracePeriodSeconds={grace}") as response:
            assert response.status == 200
            meta = (await response.json())["metadata"]
        assert (meta["deletionTimestamp"], meta["deletionGracePeriodSeconds"]) == ("9999-12-31T23:59:59Z", grace)


async def test_log_text_and_log_options_are_checked(http: aiohttp.ClientSession, async_fakeapi: FakeAPIServer,
                                                    make_pod: Any) -> None:
    async_fakeapi.seed(make_pod("web"))
    log = CONTROL + "/logs/default/web/main"
    for body in (b'{"text": "\xff\xfe"}', b'{"text": 5}', b'"one"', b'{"text": "one", "more": 1}'):
        code, reason, _ = await answer(http, "PUT", log, data=body, headers={"Content-Type": "application/json"})
        assert (code, reason) == (400, "BadRequest")
    async with http.put(log, json={"text": "one\n"}):
        pass
    async with http.get(PODS + "/web/log?sinceSeconds=9223372036854775807") as response:
        assert (response.status, await response.text()) == (200, "one\n")


async def test_control_bodies_are_held_to_the_request_body_limits(http: aiohttp.ClientSession) -> None:
    deep = b'{"now":' + b"[" * 200 + b"]" * 200 + b"}"
    code, reason, message = await answer(http, "POST", CONTROL + "/clock", data=deep,
                                         headers={"Content-Type": "application/json"})
    assert (code, reason) == (400, "BadRequest")
    assert message == "json parse error: exceeded max depth of 100 at now[0][0][0][0][0][0][0][0][0] ..."
    rule = orjson.dumps({"status": 500, "message": "x" * 10, "name": [[[[1]]]] * 3})
    code, reason, _ = await answer(http, "POST", CONTROL + "/faults", data=rule,
                                   headers={"Content-Type": "application/json"})
    assert (code, reason) == (400, "BadRequest")
