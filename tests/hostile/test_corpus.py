"""Every request of the hostile corpus over HTTP: upstream's code and reason in a Status, and the store (its
objects and its resourceVersion) as it was before."""

from __future__ import annotations

from typing import Any

import aiohttp
import orjson
import pytest

from fakeapi.testing import FakeAPIServer
from tests.hostile.corpus import CASES, Case

# aiohttp's client warns of large bytes bodies; the corpus sends a few on purpose
pytestmark = pytest.mark.filterwarnings("ignore:Sending a large body directly:ResourceWarning")


def test_the_corpus_is_large_and_its_names_are_unique() -> None:
    assert len(CASES) >= 100
    assert len({case.name for case in CASES}) == len(CASES)


async def test_every_hostile_request_gets_its_status_and_changes_nothing(async_fakeapi: FakeAPIServer,
                                                                         make_pod: Any) -> None:
    async_fakeapi.seed(make_pod("web", nodeName="node-1"))
    before = orjson.dumps(async_fakeapi.dump())
    answers: dict[str, tuple[int, str] | str] = {}
    async with aiohttp.ClientSession(base_url=async_fakeapi.url) as http:
        for case in CASES:
            answers[case.name] = await _answer(http, case)
            assert orjson.dumps(async_fakeapi.dump()) == before, case.name
    assert answers == {case.name: case.answer for case in CASES}


async def _answer(http: aiohttp.ClientSession, case: Case) -> tuple[int, str] | str:
    """The Status's (code, reason), or what came back instead of a Status."""
    async with http.request(case.method, case.path, data=case.body, headers=case.headers) as response:
        raw = await response.read()
    try:
        status = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return f"{response.status}, not JSON: {raw[:100]!r}"
    if not isinstance(status, dict) or status.get("kind") != "Status" or status.get("code") != response.status:
        return f"{response.status}, not a Status: {raw[:100]!r}"
    return response.status, status.get("reason", "")
