"""pods/exec and pods/attach over WebSockets, frame by frame: the v5 protocol kubectl 1.32 speaks, the v4
and older ones the Python clients and the kubelet speak, the errors of the apiserver (before the upgrade)
and of the kubelet (before the upgrade for v4, on the error channel for v5), and what exec runs."""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import AsyncIterator

import aiohttp
import pytest
import websocket

from fakeapi.processes.handlers import ExecCall
from fakeapi.testing import FakeAPIServer
from tests import builders

EXEC = "/api/v1/namespaces/default/pods/{pod}/exec"
RUNNING = {"phase": "Running", "containerStatuses": [
    {"name": "web", "image": "nginx:1.27", "imageID": "", "ready": True, "restartCount": 0,
     "containerID": "containerd://c1", "state": {"running": {"startedAt": "2030-01-01T00:00:00Z"}}}]}
SUCCESS = {"metadata": {}, "status": "Success"}


@pytest.fixture
async def server() -> AsyncIterator[FakeAPIServer]:
    async with FakeAPIServer() as started:
        started.seed([builders.pod("web", nodeName="node-1", status=RUNNING),
                      builders.pod("pending", nodeName="node-1"), builders.pod("unbound")])
        yield started


def query(*command: str, stdin: bool = False, stdout: bool = True, stderr: bool = True, tty: bool = False,
          container: str = "") -> list[tuple[str, str]]:
    pairs = [("command", word) for word in command]
    pairs += [(name, "true") for name, on in (("stdin", stdin), ("stdout", stdout), ("stderr", stderr),
                                               ("tty", tty)) if on]
    return pairs + ([("container", container)] if container else [])


async def session(server: FakeAPIServer, protocol: str, params: list[tuple[str, str]], pod: str = "web",
                  send: list[bytes] | None = None) -> tuple[list[tuple[int, bytes]], int | None, str]:
    """Open an exec session, send `send` (binary messages), read every message until the server closes;
    (channel, data) pairs, the close code and the protocol the server chose."""
    async with aiohttp.ClientSession() as http, http.ws_connect(
            server.url + EXEC.format(pod=pod), params=params, protocols=(protocol,) if protocol else ()) as ws:
        for message in send or []:
            await ws.send_bytes(message)
        received: list[tuple[int, bytes]] = []
        async for message in ws:
            if message.type == aiohttp.WSMsgType.BINARY:
                received.append((message.data[0], message.data[1:]))
            elif message.type == aiohttp.WSMsgType.TEXT:
                received.append((ord(message.data[0]) - ord("0"), base64.b64decode(message.data[1:])))
        return received, ws.close_code, ws.protocol or ""


async def test_v5_sends_output_then_the_status_then_closes(server: FakeAPIServer) -> None:
    received, code, protocol = await session(server, "v5.channel.k8s.io", query("sh", "-c", "echo out; echo err >&2"))
    assert (protocol, code) == ("v5.channel.k8s.io", 1000)
    assert received[0] == (1, b"")  # connected: an empty message on the first output channel
    assert b"".join(data for channel, data in received if channel == 1) == b"out\n"
    assert b"".join(data for channel, data in received if channel == 2) == b"err\n"
    assert received[-1] == (3, json.dumps(SUCCESS, separators=(",", ":")).encode())


async def test_the_exit_code_is_worded_as_each_side_words_it(server: FakeAPIServer) -> None:
    v5, _code, _protocol = await session(server, "v5.channel.k8s.io", query("sh", "-c", "exit 3"))
    assert json.loads(v5[-1][1]) == {
        "metadata": {}, "status": "Failure", "reason": "NonZeroExitCode",
        "message": "command terminated with non-zero exit code: command terminated with exit code 3",
        "details": {"causes": [{"reason": "ExitCode", "message": "3"}]}}
    v4, _code, _protocol = await session(server, "v4.channel.k8s.io", query("sh", "-c", "exit 3"))
    assert json.loads(v4[-1][1])["message"] == (
        "command terminated with non-zero exit code: error executing command [sh -c exit 3], exit code 3")
    v1, _code, protocol = await session(server, "channel.k8s.io", query("sh", "-c", "exit 3"))
    assert (protocol, v1[-1]) == ("channel.k8s.io", (3, b"command terminated with non-zero exit code: error "
                                                         b"executing command [sh -c exit 3], exit code 3"))
    quiet, _code, _protocol = await session(server, "", query("true"))
    assert [channel for channel, _data in quiet] == [1]  # the first versions say nothing on success
    encoded, _code, protocol = await session(server, "v4.base64.channel.k8s.io", query("echo", "hi"))
    assert protocol == "v4.base64.channel.k8s.io" and (1, b"hi\n") in encoded


async def test_stdin_ends_with_the_v5_close_signal(server: FakeAPIServer) -> None:
    received, _code, _protocol = await session(server, "v5.channel.k8s.io", query("cat", stdin=True),
                                               send=[b"\x00line one\n", b"\x00line two\n", b"\xff\x00"])
    assert b"".join(data for channel, data in received if channel == 1) == b"line one\nline two\n"
    assert json.loads(received[-1][1]) == SUCCESS


async def test_a_tty_merges_the_outputs_and_echoes_what_is_typed(server: FakeAPIServer) -> None:
    resize = b'\x04{"Width":80,"Height":24}'
    received, _code, _protocol = await session(
        server, "v5.channel.k8s.io", query("sh", stdin=True, tty=True, stderr=False),
        send=[resize, b"\x00echo hi >&2\r", b"\x00exit 5\r"])
    output = b"".join(data for channel, data in received if channel == 1)
    assert output == b"echo hi >&2\r\nhi\r\nexit 5\r\n"
    assert json.loads(received[-1][1])["details"]["causes"][0]["message"] == "5"


async def test_the_apiserver_refuses_before_the_upgrade(server: FakeAPIServer) -> None:
    async with aiohttp.ClientSession() as http:
        async def status(path: str, method: str = "GET", **params: str) -> tuple[int, str]:
            async with http.request(method, server.url + path, params=params) as response:
                return response.status, (await response.json())["message"]

        assert await status(EXEC.format(pod="web"), command="ls", stdout="1") == (400, "Upgrade request required")
        assert await status(EXEC.format(pod="web"), "POST", command="ls") == (400, "Upgrade request required")
        assert await status(EXEC.format(pod="nope")) == (404, 'pods "nope" not found')
        assert await status(EXEC.format(pod="web"), container="db") == (400, "container db is not valid for pod web")
        assert await status(EXEC.format(pod="unbound")) == (400, "pod unbound does not have a host assigned")
        for method in ("GET", "POST", "PUT", "DELETE"):
            assert (await status("/api/v1/namespaces/default/pods/web/nope", method))[0] == 404
        assert (await status("/api/v1/namespaces/default/pods/web/status", "POST"))[0] == 405


async def test_the_kubelet_refuses_before_v4_upgrades_and_on_the_error_channel_for_v5(server: FakeAPIServer) -> None:
    async with aiohttp.ClientSession() as http:
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await http.ws_connect(server.url + EXEC.format(pod="pending"), params=query("ls"),
                                  protocols=("v4.channel.k8s.io",))
        assert refused.value.status == 500
        async with http.get(server.url + EXEC.format(pod="pending"), params=query("ls"), headers={
                "Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
                "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Protocol": "v4.channel.k8s.io"}) as raw:
            assert (raw.status, await raw.text()) == (500, 'container not found ("web")')
    received, code, _protocol = await session(server, "v5.channel.k8s.io", query("ls"), pod="pending")
    assert code == 1000 and json.loads(received[-1][1]) == {
        "metadata": {}, "status": "Failure", "reason": "InternalError", "code": 500,
        "message": 'Internal error occurred: unable to upgrade connection: container not found ("web")',
        "details": {"causes": [{"message": 'unable to upgrade connection: container not found ("web")'}]}}
    nothing, _code, _protocol = await session(server, "v5.channel.k8s.io", query("ls", stdout=False, stderr=False))
    assert json.loads(nothing[-1][1])["message"] == (
        "Internal error occurred: unable to upgrade connection: you must specify at least 1 of stdin, stdout, stderr")


async def test_an_exec_without_a_command_fails_in_the_runtime(server: FakeAPIServer) -> None:
    v5, _code, _protocol = await session(server, "v5.channel.k8s.io", query())
    message = json.loads(v5[-1][1])["message"]
    assert message.startswith("Internal error occurred: Internal error occurred: error executing command in "
                              "container: failed to exec in container") and message.endswith(
        "args must not be empty: unknown")


async def test_handlers_come_before_scripts_which_come_before_the_shell(server: FakeAPIServer) -> None:
    async def backup(call: ExecCall) -> int:
        data = await call.stdin.read()
        call.stdout.write(f"{call.pod}/{call.container} {call.command} got {len(data)} bytes\n")
        return 7

    def blocking(call: ExecCall) -> None:
        call.stderr.write(call.stdin.read().upper())

    server.on_exec(backup, pod="web", command="pg_dump *")
    server.on_exec(blocking, command="shout")
    async with aiohttp.ClientSession(headers={"X-Fakeapi-Control": "1"}) as http:
        async with http.post(server.url + "/fakeapi/v1/exec", json={"command": "pg_dump *", "stdout": "script\n"}):
            pass
        async with http.post(server.url + "/fakeapi/v1/exec", json={"command": "pg_isready", "exitCode": 2,
                                                                    "stdout": "no response\n"}) as created:
            assert created.status == 201
    dumped, _code, _protocol = await session(server, "v5.channel.k8s.io", query("pg_dump", "shop", stdin=True),
                                             send=[b"\x00abc", b"\xff\x00"])
    assert (1, b"web/web ['pg_dump', 'shop'] got 3 bytes\n") in dumped
    assert json.loads(dumped[-1][1])["details"]["causes"][0]["message"] == "7"
    shouted, _code, _protocol = await session(server, "v5.channel.k8s.io", query("shout", stdin=True),
                                              send=[b"\x00quiet", b"\xff\x00"])
    assert (2, b"QUIET") in shouted and json.loads(shouted[-1][1]) == SUCCESS
    ready, _code, _protocol = await session(server, "v5.channel.k8s.io", query("pg_isready"))
    assert (1, b"no response\n") in ready and json.loads(ready[-1][1])["details"]["causes"][0]["message"] == "2"


async def test_a_client_that_never_reads_holds_the_process_back(server: FakeAPIServer) -> None:
    written: list[int] = [0]
    ended = asyncio.Event()

    async def flood(call: ExecCall) -> int:
        try:
            while True:
                call.stdout.write(b"x" * 65536)
                written[0] += 65536
                await call.stdout.drain()
        finally:
            ended.set()

    server.on_exec(flood, command="flood")
    url = server.url.replace("http", "ws") + EXEC.format(pod="web") + "?command=flood&stdout=1"
    client = await asyncio.to_thread(websocket.create_connection, url, subprotocols=["v5.channel.k8s.io"])
    try:  # (it reads nothing)
        await asyncio.sleep(1.0)
        held = written[0]
        assert held < 16 * 1024 * 1024  # held back by the pipe and the sockets, not filling memory
        await asyncio.sleep(0.5)
        assert written[0] == held
    finally:
        client.sock.close()  # an abrupt disconnect
    await asyncio.wait_for(ended.wait(), 10)  # the process goes with its client


async def test_huge_stdin_waits_for_a_process_that_does_not_read_it(server: FakeAPIServer) -> None:
    url = server.url.replace("http", "ws") + EXEC.format(pod="web") + "?command=sleep&command=infinity&stdin=1"
    client = await asyncio.to_thread(websocket.create_connection, url, subprotocols=["v5.channel.k8s.io"])
    client.sock.settimeout(2)
    sent = 0
    with pytest.raises(websocket.WebSocketTimeoutException):
        while sent < 256 * 1024 * 1024:  # the sends block long before this
            await asyncio.to_thread(client.send_binary, b"\x00" + b"y" * 65536)
            sent += 65536
    assert sent < 64 * 1024 * 1024
    client.sock.close()


async def test_a_thousand_sessions_at_once(server: FakeAPIServer) -> None:
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector) as http:
        async def one(index: int) -> bytes:
            async with http.ws_connect(server.url + EXEC.format(pod="web"), params=query("echo", str(index)),
                                       protocols=("v5.channel.k8s.io",)) as ws:
                output = b""
                async for message in ws:
                    if message.data[0] == 1:
                        output += message.data[1:]
                return output

        outputs = await asyncio.wait_for(asyncio.gather(*(one(index) for index in range(1000))), 120)
    assert outputs == [f"{index}\n".encode() for index in range(1000)]


async def test_a_pods_annotation_gives_scripts_per_container(server: FakeAPIServer) -> None:
    server.seed(builders.pod("db", nodeName="node-1", status=RUNNING, annotations={
        "fakeapi.dev/exec": '- command: "pg_isready*"\n  stdout: "accepting connections\\n"\n',
        "fakeapi.dev/exec.web": '[{"command": "psql *", "script": "echo \\"psql $1\\"; exit 2"}]'}))
    ready, _code, _protocol = await session(server, "v5.channel.k8s.io", query("pg_isready", "-q"), pod="db")
    assert (1, b"accepting connections\n") in ready and json.loads(ready[-1][1]) == SUCCESS
    psql, _code, _protocol = await session(server, "v5.channel.k8s.io", query("psql", "-c", "select 1"), pod="db")
    assert (1, b"psql -c\n") in psql and json.loads(psql[-1][1])["details"]["causes"][0]["message"] == "2"


async def test_sessions_cut_off_leave_no_tasks_behind(server: FakeAPIServer) -> None:
    before = len(asyncio.all_tasks())
    async with aiohttp.ClientSession() as http:
        sockets = [await http.ws_connect(server.url + EXEC.format(pod="web"),
                                         params=query("sh", "-c", "echo started; sleep infinity", stdin=True),
                                         protocols=("v5.channel.k8s.io",)) for _ in range(50)]
        for ws in sockets:
            assert (await ws.receive_bytes())[:1] == b"\x01"  # connected
        assert len(asyncio.all_tasks()) > before
        for ws in sockets:
            ws._response.connection.transport.abort()  # cut off, no closing handshake
    for _ in range(200):
        if len(asyncio.all_tasks()) <= before:
            break
        await asyncio.sleep(0.05)
    assert len(asyncio.all_tasks()) <= before
