"""pods/portforward, as kube-apiserver and the kubelet answer it.

Two ways in:

- kubectl 1.32 tunnels SPDY through a WebSocket (`SPDY/3.1+portforward.k8s.io`): for each connection to a
  forwarded local port it opens a pair of streams (headers `streamType: error|data`, `port`, `requestID`);
  the data stream carries the connection both ways, the error stream the kubelet's message if the port
  cannot be reached (kubectl then reports it and stops).
- The Python clients' channel protocol (`v4.channel.k8s.io`, ports in the query): two channels per port,
  each starting with the port number (two bytes, little endian); one connection per port.

What a connection reaches is the pod's (fakeapi.processes.ports): a test's handler, an address, or a
refusal in the runtime's words. When either direction of a connection ends, the other gets a second to
finish, as containerd's forwarder gives it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

from aiohttp import WSMsgType, web

from fakeapi.http.admitted import admitted_connect
from fakeapi.http.channels import (
    MAX_RECEIVED_BYTES,
    V4,
    V4_BASE64,
    Channels,
    is_websocket,
    requested_protocols,
)
from fakeapi.http.keys import api_key, containers_key
from fakeapi.http.remotecommand import require_host
from fakeapi.http.requestlog import record_status
from fakeapi.http.spdy import Session, Stream
from fakeapi.machinery.errors import BadRequest
from fakeapi.machinery.types import JSON
from fakeapi.processes.containers import Containers
from fakeapi.processes.pipes import Pipe
from fakeapi.processes.ports import PortClosed, sandbox_id

TUNNEL_PREFIX = "SPDY/3.1+"
PORT_FORWARD_PROTOCOL = "portforward.k8s.io"
CHANNEL_PROTOCOLS = ("", V4, V4_BASE64)  # the kubelet's port-forward WebSocket protocols
LINGER_SECONDS = 1.0  # what the other direction gets once one direction of a connection ended
READ_BYTES = 32 * 1024
CLOSE_SECONDS = 10.0


class Refused(Exception):
    """The kubelet's answer before upgrading: its text and HTTP status."""

    def __init__(self, message: str, code: int = 500) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


def forward_options(request: web.Request) -> JSON:
    """The PodPortForwardOptions admission sees (the ports the query names, when they are numbers)."""
    options: JSON = {"kind": "PodPortForwardOptions", "apiVersion": "v1"}
    ports = [int(port) for value in request.query.getall("ports", []) for port in value.split(",")
             if port.strip().isdigit()]
    if ports:
        options["ports"] = ports
    return options


async def pod_portforward(request: web.Request) -> web.StreamResponse:
    """GET (WebSocket) or POST pods/{name}/portforward."""
    await admitted_connect(request, "portforward", forward_options(request))
    pod = request.app[api_key].registry("pods").get(request.match_info["namespace"], request.match_info["name"])
    require_host(pod)
    if not is_websocket(request):
        raise BadRequest("Upgrade request required")
    containers = request.app[containers_key]
    protocols = requested_protocols(request)
    tunneled = [protocol[len(TUNNEL_PREFIX):] for protocol in protocols
                if protocol.startswith(TUNNEL_PREFIX) and protocol.endswith(".k8s.io")]
    try:
        _check_kubelet(containers, pod)
        if tunneled:
            if PORT_FORWARD_PROTOCOL not in tunneled:
                raise Refused(f"unable to upgrade: unable to negotiate protocol: client supports {tunneled}, "
                              f"server supports [{PORT_FORWARD_PROTOCOL}]", 403)
            return await _tunnel(request, containers, pod)
        protocol = next((protocol for protocol in protocols if protocol in CHANNEL_PROTOCOLS), None)
        if protocol is None and protocols:
            raise Refused(f"websocket: requested protocol(s) are not supported: {protocols}; "
                          f"supports {list(CHANNEL_PROTOCOLS)}", 400)
        ports = _ports(request)
    except Refused as refused:
        return web.Response(status=refused.code, text=refused.message, content_type="text/plain")
    return await _channels(request, containers, pod, protocol or "", ports)


def _check_kubelet(containers: Containers, pod: JSON) -> None:
    """The kubelet's checks: reachable, and the pod's sandbox running."""
    meta: JSON = pod["metadata"]
    status: JSON = pod.get("status") or {}
    if (pod.get("spec") or {}).get("nodeName") in containers.unreachable:
        raise Refused(f"error dialing backend: dial tcp {status.get('hostIP', '')}:10250: connect: connection refused")
    if status.get("phase") != "Running":
        raise Refused(f'pod not found ("{meta["name"]}_{meta.get("namespace", "")}")')


def _ports(request: web.Request) -> list[int]:
    """The `ports` query parameter (the channel protocol's), as the kubelet's NewV4Options reads it."""
    values = request.query.getall("ports", [])
    if not values:
        raise Refused('query parameter "ports" is required', 400)
    ports: list[int] = []
    for value in values:
        if not value:
            raise Refused('query parameter "ports" cannot be empty', 400)
        for part in value.split(","):
            if not part.isdigit() or int(part) > 65535:
                raise Refused(f'unable to parse "{value}" as a port: strconv.ParseUint: parsing "{part}": '
                              f"invalid syntax", 400)
            if int(part) < 1:
                raise Refused(f'port "{value}" must be > 0', 400)
            ports.append(int(part))
    return ports


# ---- one forwarded connection


Write = Callable[[bytes], Awaitable[None]]


async def forward(containers: Containers, pod: JSON, port: int, incoming: Pipe, send: Write,
                  report: Write) -> None:
    """Connect to the pod's port and copy both ways until the connection is done; a port that cannot be
    reached is reported (`report`) with the kubelet's message."""
    try:
        reader, writer = await containers.connect(pod, port)
    except PortClosed as closed:
        uid = pod["metadata"].get("uid", "")
        await report(f"error forwarding port {port} to pod {sandbox_id(uid)}, uid : {closed}".encode())
        return

    async def to_client() -> None:
        while data := await reader.read(READ_BYTES):
            await send(data)

    async def to_port() -> None:
        while data := await incoming.read():
            writer.write(data)
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()

    directions = [asyncio.ensure_future(to_client()), asyncio.ensure_future(to_port())]
    try:
        _done, pending = await asyncio.wait(directions, return_when=asyncio.FIRST_COMPLETED)
        if pending:
            await asyncio.wait(pending, timeout=LINGER_SECONDS)
    finally:
        for direction in directions:
            direction.cancel()
        await asyncio.gather(*directions, return_exceptions=True)
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()


# ---- kubectl: SPDY through the WebSocket


async def _tunnel(request: web.Request, containers: Containers, pod: JSON) -> web.StreamResponse:
    ws = web.WebSocketResponse(protocols=(TUNNEL_PREFIX + PORT_FORWARD_PROTOCOL,), max_msg_size=MAX_RECEIVED_BYTES,
                               compress=False)
    await ws.prepare(request)
    record_status(request, ws)
    pairs: dict[str, dict[str, Stream]] = {}
    tasks: set[asyncio.Task[None]] = set()

    async def send(data: bytes) -> None:
        await ws.send_bytes(data)

    def accept(stream: Stream) -> str | None:
        """httpStreamReceived: a port and a stream type are required."""
        port = stream.header("port")
        if not port.isdigit() or not 1 <= int(port) <= 65535:
            return f'"{port}" is not a port'
        return None if stream.header("streamType") in ("error", "data") else "invalid stream type"

    session = Session(send, accept)

    async def run(data: Stream, error: Stream) -> None:
        async def report(message: bytes) -> None:
            await error.write(message)

        try:
            await forward(containers, pod, int(data.header("port")), data.incoming, data.write, report)
        except (ConnectionError, OSError):
            pass
        finally:
            with contextlib.suppress(ConnectionError):
                await data.close()
                await error.close()
            session.remove(data)
            session.remove(error)

    try:
        while not session.gone:
            message = await ws.receive()
            if message.type != WSMsgType.BINARY:
                if message.type in (WSMsgType.TEXT, WSMsgType.PING, WSMsgType.PONG):
                    continue
                break
            for stream in await session.feed(message.data):
                request_id = stream.header("requestID") or _legacy_request_id(stream)
                pair = pairs.setdefault(request_id, {})
                pair[stream.header("streamType")] = stream
                if len(pair) == 2:
                    del pairs[request_id]
                    task = asyncio.ensure_future(run(pair["data"], pair["error"]))
                    tasks.add(task)
                    task.add_done_callback(tasks.discard)
    except ConnectionError:
        pass
    finally:
        session.close()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        with contextlib.suppress(ConnectionError, asyncio.TimeoutError):
            await asyncio.wait_for(ws.close(), CLOSE_SECONDS)
    return ws


def _legacy_request_id(stream: Stream) -> str:
    """For clients that send no requestID: the error stream's id, the data stream's id minus 2 (upstream's
    best effort)."""
    return str(stream.id if stream.header("streamType") == "error" else stream.id - 2)


# ---- the Python clients: channels


async def _channels(request: web.Request, containers: Containers, pod: JSON, protocol: str,
                    ports: list[int]) -> web.StreamResponse:
    ws = web.WebSocketResponse(protocols=(protocol,) if protocol else (), max_msg_size=MAX_RECEIVED_BYTES,
                               compress=False)
    await ws.prepare(request)
    record_status(request, ws)
    channels = Channels(ws, protocol)
    incoming = [Pipe() for _port in ports]
    for index, port in enumerate(ports):
        await channels.send(2 * index, port.to_bytes(2, "little"))
        await channels.send(2 * index + 1, port.to_bytes(2, "little"))

    def forwarding(index: int, port: int) -> Awaitable[None]:
        async def send(data: bytes) -> None:
            await channels.send(2 * index, data)

        async def report(message: bytes) -> None:
            await channels.send(2 * index + 1, message)

        return forward(containers, pod, port, incoming[index], send, report)

    async def forward_all() -> None:
        await asyncio.gather(*(forwarding(index, port) for index, port in enumerate(ports)), return_exceptions=True)

    forwards = asyncio.ensure_future(forward_all())

    async def read_client() -> None:
        while True:
            message = await channels.receive()
            if message is None:
                return
            if message.channel % 2 == 0 and message.channel // 2 < len(incoming) and not message.close:
                pipe = incoming[message.channel // 2]
                pipe.write(message.data)
                await pipe.drain()

    reader = asyncio.ensure_future(read_client())
    try:
        await asyncio.wait([forwards, reader], return_when=asyncio.FIRST_COMPLETED)
    finally:
        for pipe in incoming:
            pipe.close()
        reader.cancel()
        if not forwards.done():
            forwards.cancel()
        await asyncio.gather(forwards, reader, return_exceptions=True)
        with contextlib.suppress(ConnectionError, asyncio.TimeoutError):
            await asyncio.wait_for(ws.close(), CLOSE_SECONDS)
    return ws
