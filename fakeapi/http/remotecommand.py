"""pods/exec and pods/attach over WebSockets, as kube-apiserver and the kubelet answer them.

The apiserver's part comes first, as HTTP errors (Status): the pod (404), the container (`container x is
not valid for pod web`, or which one to choose), a node (`pod web does not have a host assigned`), an
upgrade (`Upgrade request required`). Then the kubelet's: its pod's container must be running (`container
not found ("web")`), one of stdin, stdout, stderr asked for.

Two ways in, as with kubectl 1.32 and the Python clients:

- `v5.channel.k8s.io` (kubectl >= 1.30): the apiserver upgrades the connection itself and translates to
  the kubelet, so the kubelet's refusals arrive as an InternalError Status on the error channel
  (`unable to upgrade connection: container not found ("web")`), and the exit code as
  `command terminated with non-zero exit code: command terminated with exit code 3`.
- `v4.channel.k8s.io` and the older protocols: the connection goes through to the kubelet, which refuses
  before upgrading (a plain-text 500) and reports the runtime's exit error on the error channel
  (`... error executing command [sh -c exit 3], exit code 3`); the first versions write only the text of
  a failure.

The session: an empty message on the first output channel once connected, stdin and terminal sizes from
the client, output as the process writes it (waiting while the client is slow to read), then the Status
on the error channel and a normal close. A client that goes away ends the process.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import orjson
from aiohttp import web

from fakeapi.http.admitted import admitted_connect
from fakeapi.http.channels import (
    KUBELET_PROTOCOLS,
    MAX_RECEIVED_BYTES,
    V1,
    V1_BASE64,
    V5,
    Channels,
    is_websocket,
    requested_protocols,
)
from fakeapi.http.keys import api_key, containers_key
from fakeapi.http.requestlog import record_status
from fakeapi.machinery.errors import BadRequest
from fakeapi.machinery.types import JSON
from fakeapi.processes.containers import ContainerKey, Containers, container_spec
from fakeapi.processes.pipes import Pipe
from fakeapi.processes.process import Process

STDIN, STDOUT, STDERR, ERROR, RESIZE = 0, 1, 2, 3, 4
_TRUE = frozenset({"1", "t", "T", "true", "TRUE", "True"})
_FALSE = frozenset({"0", "f", "F", "false", "FALSE", "False"})
CLOSE_SECONDS = 10.0  # how long the closing handshake may take


class KubeletError(Exception):
    """The kubelet (or the runtime behind it) refused: `message` is its text, `code` its HTTP status."""

    def __init__(self, message: str, code: int = 500) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


@dataclass(frozen=True)
class StreamOptions:
    """PodExecOptions / PodAttachOptions from the query."""

    container: str
    command: tuple[str, ...]
    stdin: bool
    stdout: bool
    stderr: bool
    tty: bool

    @classmethod
    def parse(cls, request: web.Request) -> StreamOptions:
        query = request.query
        tty = _bool(query, "tty")
        return cls(query.get("container", ""), tuple(query.getall("command", [])), _bool(query, "stdin"),
                   _bool(query, "stdout"), _bool(query, "stderr"), tty)

    def to_json(self, exec_: bool) -> JSON:
        """The PodExecOptions (or PodAttachOptions) admission sees, as Go writes it (false and empty left out)."""
        obj: JSON = {"kind": "PodExecOptions" if exec_ else "PodAttachOptions", "apiVersion": "v1"}
        for key in ("stdin", "stdout", "stderr", "tty"):
            if getattr(self, key):
                obj[key] = True
        if self.container:
            obj["container"] = self.container
        if exec_:
            obj["command"] = list(self.command)
        return obj


def _bool(query: object, key: str) -> bool:
    value = query.get(key, "")  # type: ignore[attr-defined]
    if value == "" or value in _FALSE:
        return False
    if value in _TRUE:
        return True
    raise BadRequest(f'strconv.ParseBool: parsing "{value}": invalid syntax')


# ---- the handlers


async def pod_exec(request: web.Request) -> web.StreamResponse:
    """GET (WebSocket) or POST pods/{name}/exec."""
    return await _serve(request, exec_=True)


async def pod_attach(request: web.Request) -> web.StreamResponse:
    """GET (WebSocket) or POST pods/{name}/attach."""
    return await _serve(request, exec_=False)


async def _serve(request: web.Request, exec_: bool) -> web.StreamResponse:
    options = StreamOptions.parse(request)
    await admitted_connect(request, "exec" if exec_ else "attach", options.to_json(exec_))
    pod = request.app[api_key].registry("pods").get(request.match_info["namespace"], request.match_info["name"])
    container = validate_container(pod, options.container)
    require_host(pod)
    if not is_websocket(request):
        raise BadRequest("Upgrade request required")
    containers = request.app[containers_key]
    protocols = requested_protocols(request)
    # v5: the apiserver upgrades the connection itself, and the kubelet's answers come through the channels
    protocol: str | None = V5 if V5 in protocols else next(
        (protocol for protocol in protocols if protocol in KUBELET_PROTOCOLS), None)
    if protocol is None and protocols:
        return web.Response(status=400, text=f"websocket: requested protocol(s) are not supported: {protocols}; "
                                             f"supports {list(KUBELET_PROTOCOLS)}")
    protocol = protocol or ""
    try:
        _check_kubelet(containers, pod, container, options, exec_)
    except KubeletError as refused:
        if protocol != V5:
            return web.Response(status=refused.code, text=refused.message, content_type="text/plain")
        channels = await _upgrade(request, protocol)
        await _finish(channels, _internal(f"unable to upgrade connection: {refused.message}"))
        return channels.ws
    channels = await _upgrade(request, protocol)
    if exec_ and not options.command:  # the runtime cannot start a process without a program
        failure = f"error executing command in container: {_no_command(pod, container)}"
        if protocol == V5:  # (the translator wraps the kubelet's InternalError in one of its own)
            failure = f"Internal error occurred: {failure}"
        status = _internal(failure)
        await _finish(channels, status["message"] if protocol in (V1, V1_BASE64, "") else status)
        return channels.ws
    target: Process | Attachment
    if exec_:
        target = containers.exec(pod, container, list(options.command), options.tty)
    else:
        meta: JSON = pod["metadata"]
        spec = container_spec(pod, container) or {}
        target = Attachment((meta.get("namespace", ""), meta["name"], container), bool(spec.get("tty")))
    await _session(channels, target, options, containers, pod)
    return channels.ws


def _no_command(pod: JSON, container: str) -> str:
    """containerd's (and runc's) error for an exec without a command."""
    exec_id = hashlib.sha256(f"exec/{pod['metadata'].get('uid', '')}/{container}".encode()).hexdigest()
    return (f'failed to exec in container: failed to start exec "{exec_id}": OCI runtime exec failed: exec failed: '
            "args must not be empty: unknown")


def validate_container(pod: JSON, requested: str) -> str:
    """The apiserver's validateContainer: the one named, or the only one."""
    name = pod["metadata"]["name"]
    spec: JSON = pod.get("spec") or {}
    names = [c.get("name", "") for key in ("initContainers", "containers", "ephemeralContainers")
             for c in spec.get(key) or []]
    if not requested:
        containers = spec.get("containers") or []
        if len(containers) == 1:
            return str(containers[0].get("name", ""))
        if not containers:
            raise BadRequest(f"a container name must be specified for pod {name}")
        raise BadRequest(f"a container name must be specified for pod {name}, choose one of: [{' '.join(names)}]")
    if requested not in names:
        raise BadRequest(f"container {requested} is not valid for pod {name}")
    return requested


def require_host(pod: JSON) -> str:
    node = (pod.get("spec") or {}).get("nodeName") or ""
    if not node:
        raise BadRequest(f"pod {pod['metadata']['name']} does not have a host assigned")
    return str(node)


@dataclass(frozen=True)
class Attachment:
    """What attach connects to: the container (its log from now on, its command's stdin) and its TTY."""

    key: ContainerKey
    tty: bool


def _check_kubelet(containers: Containers, pod: JSON, container: str, options: StreamOptions, exec_: bool) -> None:
    """The kubelet's and the runtime's checks (KubeletError with their words)."""
    meta: JSON = pod["metadata"]
    node = require_host(pod)
    if node in containers.unreachable:
        raise KubeletError(f"error dialing backend: dial tcp {_node_address(pod)}:10250: connect: connection refused")
    if not (options.stdin or options.stdout or options.stderr):
        raise KubeletError("you must specify at least 1 of stdin, stdout, stderr", 400)
    if not running(pod, container):
        if exec_:
            raise KubeletError(f'container not found ("{container}")')
        raise KubeletError(f"container {container} not found in pod {meta['name']}_{meta.get('namespace', '')}")


def running(pod: JSON, container: str) -> bool:
    """Whether the pod's status shows the container running (what the runtime would find)."""
    status: JSON = pod.get("status") or {}
    for key in ("containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses"):
        for item in status.get(key) or []:
            if item.get("name") == container:
                return "running" in (item.get("state") or {})
    return False


def _node_address(pod: JSON) -> str:
    return str((pod.get("status") or {}).get("hostIP") or (pod.get("spec") or {}).get("nodeName", ""))


async def _upgrade(request: web.Request, protocol: str) -> Channels:
    ws = web.WebSocketResponse(protocols=(protocol,) if protocol else (), max_msg_size=MAX_RECEIVED_BYTES,
                               compress=False)
    await ws.prepare(request)
    record_status(request, ws)
    return Channels(ws, protocol)


# ---- the session


async def _session(channels: Channels, process: Process | Attachment, options: StreamOptions,
                   containers: Containers, pod: JSON) -> None:
    """Run the session to its end; if it is cut short (the client went away, the handler was cancelled),
    the process is killed and every task of the session ends with it."""
    if isinstance(process, Attachment):
        await channels.send(_first_channel(options), b"")
        await _attach_session(channels, process, options, containers, pod)
        return
    if not options.stdin:
        process.stdin.close()
    if not options.stdout:
        process.stdout.break_()
    if not options.stderr and process.stderr is not process.stdout:
        process.stderr.break_()
    pumps = [asyncio.ensure_future(_pump(process.stdout, channels, STDOUT))]
    if process.stderr is not process.stdout:
        pumps.append(asyncio.ensure_future(_pump(process.stderr, channels, STDERR)))
    reader = asyncio.ensure_future(_read_client(channels, process.stdin, process.resize))
    exited = asyncio.ensure_future(process.wait())
    tasks = [*pumps, reader, exited]
    finished = False
    try:
        await channels.send(_first_channel(options), b"")
        done, _pending = await asyncio.wait([reader, exited], return_when=asyncio.FIRST_COMPLETED)
        if exited in done:
            await asyncio.gather(*pumps, return_exceptions=True)
            finished = True
            await _finish(channels, _exit_status(channels.protocol, process.argv, exited.result()))
    finally:
        if not finished:  # the client went away: the process goes too
            process.kill()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if not finished:
            await _close(channels)


def _first_channel(options: StreamOptions) -> int:
    """Where the empty message that says `connected` goes: the first output channel asked for."""
    return STDOUT if options.stdout else STDERR if options.stderr else ERROR


async def _attach_session(channels: Channels, attachment: Attachment, options: StreamOptions,
                          containers: Containers, pod: JSON) -> None:
    """Attach: what the container writes to its log from now on goes to the client, what the client types
    to the container's command; it ends when the container's instance does (Success), or the client goes."""
    namespace, name, container = attachment.key
    logs = containers.api.pod_logs
    log = logs.get(namespace, name, container)
    sent = log.end_position()  # (before the command starts: what it writes at once is sent too)
    main = containers.attach(attachment.key)
    stdin = main.stdin if main is not None else None
    sink = stdin if options.stdin and stdin is not None else Pipe()
    # a stdinOnce container's stdin ends with the first session; another's stays open for the next one
    close_stdin = stdin is None or (main is not None and main.stdin_once)
    reader = asyncio.ensure_future(_read_client(channels, sink, _ignore_size, close_stdin=close_stdin))
    waiter: asyncio.Future[Literal[True]] | None = None
    output = STDOUT if options.stdout else STDERR if options.stderr else None
    ended = False
    try:
        while True:
            changed = logs.changed(namespace, name)
            pieces, sent = log.since(sent)
            if output is not None and pieces:
                await channels.send(output, "".join(text for _line, text, _begins in pieces).encode())
            if logs.get(namespace, name, container) is not log or log.ended or not _same_pod(containers, pod):
                ended = True  # the instance attached to is gone (exited, restarted, or its pod deleted)
                break
            change = waiter = asyncio.ensure_future(changed.wait())
            done, _pending = await asyncio.wait([change, reader], return_when=asyncio.FIRST_COMPLETED)
            if reader in done:
                break  # the client went away
    finally:
        if main is not None:
            containers.detach(main)
        for task in (reader, waiter):
            if task is not None:
                task.cancel()
        await asyncio.gather(*(task for task in (reader, waiter) if task is not None), return_exceptions=True)
    if ended:
        await _finish(channels, _success(channels.protocol))
    else:
        await _close(channels)


def _ignore_size(width: int, height: int) -> None:
    """(A container's terminal size changes nothing the simulation shows.)"""


def _same_pod(containers: Containers, pod: JSON) -> bool:
    meta: JSON = pod["metadata"]
    current = containers.api.registry("pods").find(meta.get("namespace", ""), meta["name"])
    return current is not None and current["metadata"].get("uid") == meta.get("uid")


async def _pump(pipe: Pipe, channels: Channels, channel: int) -> None:
    """Send what the process writes, as it comes; a slow client holds the process back (the pipe fills)."""
    while True:
        data = await pipe.read()
        if not data:
            return
        try:
            await channels.send(channel, data)
        except ConnectionError:
            pipe.break_()
            return


async def _read_client(channels: Channels, stdin: Pipe, resize: Callable[[int, int], None],
                       close_stdin: bool = True) -> None:
    """What the client sends, until it closes: stdin (waiting while the process is slow to read it),
    terminal sizes, and the end of stdin (v5's CLOSE)."""
    decoder = _SizeDecoder(resize)
    while True:
        message = await channels.receive()
        if message is None:
            if close_stdin:
                stdin.close()
            return
        if message.channel == STDIN:
            if message.close:
                stdin.close()
            elif not stdin.closed:
                stdin.write(message.data)
                await stdin.drain()
        elif message.channel == RESIZE and not message.close:
            decoder.feed(message.data)


class _SizeDecoder:
    """Terminal sizes as the client sends them on the resize channel: JSON objects one after another."""

    LIMIT = 4096

    def __init__(self, resize: Callable[[int, int], None]) -> None:
        self.resize = resize
        self.buffer = b""

    def feed(self, data: bytes) -> None:
        self.buffer = (self.buffer + data)[-self.LIMIT:]
        while self.buffer:
            text = self.buffer.lstrip()
            end = text.find(b"}")
            if end == -1:
                return
            chunk, self.buffer = text[:end + 1], text[end + 1:]
            try:
                size = orjson.loads(chunk)
            except orjson.JSONDecodeError:
                continue
            if isinstance(size, dict):
                width, height = size.get("Width"), size.get("Height")
                if isinstance(width, int) and isinstance(height, int) and width > 0 and height > 0:
                    self.resize(width, height)


# ---- statuses


def _exit_status(protocol: str, argv: list[str], code: int) -> JSON | str | None:
    """How the exit is reported: a Status for v4 and v5 (as each side words the exit error), the text of a
    failure for the first versions."""
    if code == 0:
        return _success(protocol)
    if protocol == V5:
        detail = f"command terminated with exit code {code}"
    else:
        detail = f"error executing command [{' '.join(argv)}], exit code {code}"
    status: JSON = {"metadata": {}, "status": "Failure",
                    "message": f"command terminated with non-zero exit code: {detail}",
                    "reason": "NonZeroExitCode",
                    "details": {"causes": [{"reason": "ExitCode", "message": str(code)}]}}
    if protocol in ("", V1, V1_BASE64):
        return str(status["message"])
    return status


def _success(protocol: str) -> JSON | None:
    if protocol in ("", V1, V1_BASE64):
        return None  # the first versions write nothing on success
    return {"metadata": {}, "status": "Success"}


def _internal(message: str) -> JSON:
    return {"metadata": {}, "status": "Failure", "message": f"Internal error occurred: {message}",
            "reason": "InternalError", "details": {"causes": [{"message": message}]}, "code": 500}


async def _finish(channels: Channels, status: JSON | str | None) -> None:
    """The Status on the error channel, then a normal close."""
    with contextlib.suppress(ConnectionError):
        if isinstance(status, dict):
            await channels.send(ERROR, orjson.dumps(status))
        elif status:
            await channels.send(ERROR, status.encode())
    await _close(channels)


async def _close(channels: Channels) -> None:
    with contextlib.suppress(ConnectionError, asyncio.TimeoutError):
        await asyncio.wait_for(channels.ws.close(), CLOSE_SECONDS)

