"""Host names: a server on loopback answers only names of loopback and those allowed (DNS rebinding
gives a web page's own name to 127.0.0.1; its requests carry that name)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from fakeapi.app import create_app
from fakeapi.config import ServerConfig
from fakeapi.testing import FakeAPIServer

PODS = "/api/v1/namespaces/default/pods"


def refused(host: str, name: str) -> dict[str, Any]:
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": f'host "{host}" is not allowed: this server answers only localhost, 127.0.0.1, [::1] and '
                       f"the names given to --allowed-hosts, to keep web pages out; to allow this name, start it "
                       f"with --allowed-hosts={name}",
            "reason": "Forbidden", "code": 403}


@pytest.fixture
async def loopback_server() -> AsyncIterator[FakeAPIServer]:
    async with FakeAPIServer() as server:
        yield server


@pytest.mark.parametrize("host", ["localhost", "localhost:8080", "LocalHost:1", "127.0.0.1", "127.0.0.1:6443",
                                  "[::1]", "[::1]:6443", "127.0.0.2:80"])
async def test_loopback_names_are_answered(loopback_server: FakeAPIServer, host: str) -> None:
    async with aiohttp.ClientSession() as session, \
            session.get(loopback_server.url + "/version", headers={"Host": host}) as response:
        assert response.status == 200


@pytest.mark.parametrize(("host", "name"), [("evil.example", "evil.example"), ("evil.example:8080", "evil.example"),
                                            ("localhost.evil.example", "localhost.evil.example"),
                                            ("127.0.0.1.nip.io:80", "127.0.0.1.nip.io"), ("[fe80::1]", "fe80::1")])
async def test_a_loopback_server_refuses_other_names_and_changes_nothing(loopback_server: FakeAPIServer,
                                                                         host: str, name: str, make_pod: Any) -> None:
    async with aiohttp.ClientSession() as session:
        async with session.post(loopback_server.url + PODS, json=make_pod("web"), headers={"Host": host}) as response:
            assert (response.status, await response.json()) == (403, refused(host, name))
        async with session.get(loopback_server.url + "/healthz", headers={"Host": host}) as response:
            assert response.status == 403
    assert loopback_server.list("pods") == []
    assert loopback_server.requests == []  # refused before anything is recorded


async def test_allowed_names_are_answered_too(aiohttp_client: Any) -> None:
    client = await aiohttp_client(create_app(ServerConfig(allowed_hosts=frozenset({"fakeapi", "api.test"}))))
    for host in ("fakeapi", "fakeapi:8080", "API.test:443", "localhost:1"):
        assert (await client.get("/version", headers={"Host": host})).status == 200
    assert (await client.get("/version", headers={"Host": "other.test"})).status == 403


async def test_without_allowed_names_a_server_off_loopback_answers_every_name(aiohttp_client: Any) -> None:
    client = await aiohttp_client(create_app(ServerConfig(allowed_hosts=None)))
    assert (await client.get("/version", headers={"Host": "fakeapi.internal:8080"})).status == 200
