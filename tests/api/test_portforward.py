"""pods/portforward frame by frame: the Python clients' channel protocol (the port first on each channel,
then the data), where a connection goes (a test's handler, the control API's address, the pod's
annotation, else refused), and the kubelet's refusals before the upgrade."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import aiohttp
import pytest

from fakeapi.testing import FakeAPIServer
from tests import builders

FORWARD = "/api/v1/namespaces/default/pods/{pod}/portforward"
RUNNING = {"phase": "Running", "containerStatuses": [
    {"name": "web", "image": "nginx:1.27", "imageID": "", "ready": True, "restartCount": 0,
     "containerID": "containerd://c1", "state": {"running": {"startedAt": "2030-01-01T00:00:00Z"}}}]}


async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    writer.write(b"echo: " + await reader.readline())
    await writer.drain()
    writer.close()


@pytest.fixture
async def server() -> AsyncIterator[FakeAPIServer]:
    listener = await asyncio.start_server(echo, "127.0.0.1", 0)
    annotated = f"5000=127.0.0.1:{listener.sockets[0].getsockname()[1]}"
    async with FakeAPIServer() as started:
        started.seed([builders.pod("web", nodeName="node-1", status=RUNNING),
                      builders.pod("annotated", nodeName="node-1", status=RUNNING,
                                   annotations={"fakeapi.dev/port-forward": annotated}),
                      builders.pod("pending", nodeName="node-1")])
        yield started
    listener.close()


async def forward(server: FakeAPIServer, pod: str, ports: str, send: dict[int, bytes]) -> dict[int, bytes]:
    """Open a port-forward with the channel protocol, send `send` (by channel), read until the server closes."""
    received: dict[int, bytes] = {}
    async with aiohttp.ClientSession() as http, http.ws_connect(
            server.url + FORWARD.format(pod=pod), params={"ports": ports}, protocols=("v4.channel.k8s.io",)) as ws:
        assert ws.protocol == "v4.channel.k8s.io"
        for channel, data in send.items():
            await ws.send_bytes(bytes((channel,)) + data)
        async for message in ws:
            received[message.data[0]] = received.get(message.data[0], b"") + message.data[1:]
    return received


async def test_each_port_has_a_data_and_an_error_channel_that_start_with_the_port(server: FakeAPIServer) -> None:
    server.on_port(echo, pod="web", port=7000)
    received = await forward(server, "web", "7000,7001", {0: b"hello\n"})
    assert received[0] == (7000).to_bytes(2, "little") + b"echo: hello\n"
    assert received[1] == (7000).to_bytes(2, "little")  # no error
    assert received[2] == (7001).to_bytes(2, "little")
    assert received[3].startswith((7001).to_bytes(2, "little") + b"error forwarding port 7001 to pod ")
    assert received[3].endswith(b"dial tcp6 [::1]:7001: connect: connection refused ")


async def test_the_control_apis_address_then_the_annotations(server: FakeAPIServer) -> None:
    listener = await asyncio.start_server(echo, "127.0.0.1", 0)
    address = f"127.0.0.1:{listener.sockets[0].getsockname()[1]}"
    async with aiohttp.ClientSession(headers={"X-Fakeapi-Control": "1"}) as http:
        async with http.post(server.url + "/fakeapi/v1/ports", json={"pod": "web", "port": 8080,
                                                                     "address": address}) as created:
            rule = await created.json()
            assert (created.status, rule["address"]) == (201, address)
        async with http.post(server.url + "/fakeapi/v1/ports", json={"pod": "web", "address": "nowhere"}) as bad:
            assert (bad.status, (await bad.json())["message"]) == (400, '"nowhere" is not an address (host:port)')
    assert (await forward(server, "web", "8080", {0: b"ping\n"}))[0][2:] == b"echo: ping\n"
    assert (await forward(server, "annotated", "5000", {0: b"pong\n"}))[0][2:] == b"echo: pong\n"
    async with aiohttp.ClientSession() as http, http.get(server.url + f"/fakeapi/v1/ports/{rule['id']}") as one:
        assert (await one.json())["connections"] == 1
    listener.close()


async def test_the_kubelet_refuses_before_the_upgrade(server: FakeAPIServer) -> None:
    async with aiohttp.ClientSession() as http:
        async def refusal(pod: str, **params: str) -> tuple[int, str]:
            headers = {"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
                       "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Protocol": "v4.channel.k8s.io"}
            async with http.get(server.url + FORWARD.format(pod=pod), params=params, headers=headers) as response:
                return response.status, await response.text()

        assert await refusal("pending", ports="80") == (500, 'pod not found ("pending_default")')
        assert await refusal("web") == (400, 'query parameter "ports" is required')
        assert await refusal("web", ports="http") == (
            400, 'unable to parse "http" as a port: strconv.ParseUint: parsing "http": invalid syntax')
        assert await refusal("web", ports="0") == (400, 'port "0" must be > 0')
        async with http.get(server.url + FORWARD.format(pod="web")) as plain:
            assert (plain.status, (await plain.json())["message"]) == (400, "Upgrade request required")
