"""The Python clients with exec and port-forward: the official client's `stream()` (v5, then v4 as the
kubelet speaks it) and `portforward()`, and kubernetes_asyncio's WsApiClient, against a simulated cluster
with a test's handlers."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from aiohttp import web
from kubernetes import client
from kubernetes.stream import portforward, stream
from kubernetes_asyncio import client as async_client
from kubernetes_asyncio.stream import WsApiClient

from fakeapi.processes.handlers import ExecCall
from fakeapi.testing import FakeAPIServer
from tests import builders


@pytest.fixture
def cluster() -> Iterator[FakeAPIServer]:
    with FakeAPIServer(nodes=1) as server:
        core = client.CoreV1Api(server.kubernetes_client())
        core.create_namespaced_pod("default", builders.pod("web"))
        while not (core.read_namespaced_pod("web", "default").status.container_statuses or [None])[0] \
                or not core.read_namespaced_pod("web", "default").status.container_statuses[0].ready:
            threading.Event().wait(0.05)
        yield server


def execute(cluster: FakeAPIServer, command: list[str], stdin: str | None = None) -> tuple[str, str, int]:
    """Run `command` in pod web through stream(): its stdout, stderr and exit code."""
    core = client.CoreV1Api(cluster.kubernetes_client())
    session = stream(core.connect_get_namespaced_pod_exec, "web", "default", command=command, stderr=True,
                     stdin=stdin is not None, stdout=True, tty=False, _preload_content=False)
    try:
        if stdin is not None:
            session.write_stdin(stdin)
            session.close_channel(0)  # v5's CLOSE: the end of stdin
        session.run_forever(timeout=10)
        return session.read_stdout(), session.read_stderr(), session.returncode
    finally:
        session.close()
        session.sock.shutdown()  # (websocket-client leaves the socket open when the server closed first)


def test_stream_runs_a_command_and_reports_its_exit(cluster: FakeAPIServer) -> None:
    assert execute(cluster, ["sh", "-c", "echo hi; hostname"]) == ("hi\nweb\n", "", 0)
    assert execute(cluster, ["sh", "-c", "echo e >&2; exit 6"]) == ("", "e\n", 6)


def test_stream_writes_stdin_and_closes_it(cluster: FakeAPIServer) -> None:
    assert execute(cluster, ["wc", "-l"], stdin="one\ntwo\n") == ("2\n", "", 0)


def test_stream_reaches_a_tests_handler(cluster: FakeAPIServer) -> None:
    def psql(call: ExecCall) -> int:
        call.stdout.write(f"{len(call.stdin.read())} bytes of SQL for {call.pod}\n")
        return 0

    cluster.on_exec(psql, command="psql *")
    assert execute(cluster, ["psql", "-f", "-"], stdin="select 1;") == ("9 bytes of SQL for web\n", "", 0)


def test_portforward_reaches_a_stream_handler_and_an_aiohttp_app(cluster: FakeAPIServer) -> None:
    async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"echo: " + await reader.readline())
        await writer.drain()
        writer.close()

    async def hello(request: web.Request) -> web.Response:
        return web.Response(text="hello from the app\n")

    app = web.Application()
    app.router.add_get("/", hello)
    cluster.on_port(echo, pod="web", port=7000)
    cluster.on_port(app, pod="web", port=8080)
    core = client.CoreV1Api(cluster.kubernetes_client())
    forwarded = portforward(core.connect_get_namespaced_pod_portforward, "web", "default", ports="7000,8080,9")
    try:
        echoed = forwarded.socket(7000)
        echoed.sendall(b"ping\n")
        assert _read_until(echoed, b"\n") == b"echo: ping\n"
        web_socket = forwarded.socket(8080)
        web_socket.sendall(b"GET / HTTP/1.1\r\nHost: web\r\n\r\n")
        assert _read_until(web_socket, b"hello from the app\n").startswith(b"HTTP/1.1 200 OK\r\n")
        assert _read_until(forwarded.socket(9), b"") == b""  # refused: its socket closes
        assert "connect: connection refused" in (forwarded.error(9) or "")
    finally:
        forwarded.close()
        for thread in threading.enumerate():  # the client's proxy thread ends once its ports are closed
            if thread.name.startswith("Kubernetes port forward proxy"):
                thread.join(10)
        forwarded.websocket.shutdown()


def _read_until(sock: Any, end: bytes) -> bytes:
    """What the socket gives until `end` arrives (until it closes for b""). (A port of the channel protocol
    closes only when the whole connection does, as the kubelet's.)"""
    data = b""
    sock.setblocking(True)
    sock.settimeout(10)
    while not end or not data.endswith(end):
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    return data


async def test_kubernetes_asyncio_execs_through_v4() -> None:
    async with FakeAPIServer(seed=1) as server:
        server.seed([builders.pod("web", nodeName="node-1", status={"phase": "Running", "containerStatuses": [
            {"name": "web", "image": "nginx", "imageID": "", "ready": True, "restartCount": 0,
             "containerID": "containerd://c", "state": {"running": {"startedAt": "2030-01-01T00:00:00Z"}}}]})])
        configuration = async_client.Configuration(host=server.url)
        async with WsApiClient(configuration) as api:
            output = await client_exec(api, ["sh", "-c", "echo from asyncio"])
        assert output == "from asyncio\n"


async def client_exec(api: WsApiClient, command: list[str]) -> str:
    core = async_client.CoreV1Api(api_client=api)
    output = await core.connect_get_namespaced_pod_exec("web", "default", command=command, stderr=True,
                                                        stdin=False, stdout=True, tty=False)
    return str(output)
