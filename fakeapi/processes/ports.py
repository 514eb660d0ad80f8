"""What a port-forwarded connection reaches: a test's handler (a coroutine function taking asyncio's
`(reader, writer)`, as `asyncio.start_server` calls it, or an aiohttp `web.Application`), an address given
through the control API (`POST /fakeapi/v1/ports`) or the pod's `fakeapi.dev/port-forward` annotation
(`"8080=127.0.0.1:9000,9090=localhost:9091"`); with none of these, the port is closed and the connection
refused, as the container runtime reports it.

A handler or application is served on a loopback port of its own, started at its first connection; a
connection is then an ordinary TCP connection to an address.
"""

from __future__ import annotations

import asyncio
import fnmatch
import hashlib
import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from fakeapi.machinery.types import JSON

ANNOTATION = "fakeapi.dev/port-forward"
CONNECT_SECONDS = 10.0
StreamHandler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]
Target = StreamHandler | web.Application | str


class PortClosed(Exception):
    """Nothing listens on the port: the message is the container runtime's."""


@dataclass(eq=False)
class PortRule:
    """Where connections to a port of the pods matched go."""

    target: Target
    namespace: str = "*"
    pod: str = "*"
    port: int | None = None  # None: every port
    id: int = 0
    connections: int = 0
    _address: tuple[str, int] | None = field(default=None, repr=False)
    _server: Any = field(default=None, repr=False)  # the asyncio.Server or web.AppRunner serving a handler
    _starting: asyncio.Lock | None = field(default=None, repr=False)

    def matches(self, namespace: str, pod: str, port: int) -> bool:
        return (fnmatch.fnmatchcase(namespace, self.namespace) and fnmatch.fnmatchcase(pod, self.pod)
                and (self.port is None or self.port == port))

    async def address(self) -> tuple[str, int]:
        """The host and port to connect to (a handler's loopback server is started at the first call)."""
        if isinstance(self.target, str):
            return parse_address(self.target)
        if self._address is not None:
            return self._address
        if self._starting is None:
            self._starting = asyncio.Lock()
        async with self._starting:
            if self._address is None:
                if isinstance(self.target, web.Application):
                    runner = web.AppRunner(self.target, access_log=None)
                    await runner.setup()
                    await web.TCPSite(runner, "127.0.0.1", 0).start()
                    self._server = runner
                    self._address = tuple(runner.addresses[0][:2])
                else:
                    served = await asyncio.start_server(self.target, "127.0.0.1", 0)
                    self._server = served
                    self._address = served.sockets[0].getsockname()[:2]
        assert self._address is not None
        return self._address

    async def close(self) -> None:
        server, self._server, self._address = self._server, None, None
        if isinstance(server, web.AppRunner):
            await server.cleanup()
        elif isinstance(server, asyncio.Server):
            server.close()

    def to_json(self) -> JSON:
        body: JSON = {"id": str(self.id), "namespace": self.namespace, "pod": self.pod}
        if self.port is not None:
            body["port"] = self.port
        body["address"] = self.target if isinstance(self.target, str) else "(a handler of the test)"
        body["connections"] = self.connections
        return body

    @classmethod
    def from_json(cls, body: Any) -> PortRule:
        """A rule from its JSON; ValueError saying what is wrong."""
        from fakeapi.processes.bodies import PORT_RULE  # marshmallow loads with the first rule

        loaded: dict[str, Any] = PORT_RULE.load_body(body)
        parse_address(loaded["address"])
        return cls(loaded["address"], loaded["namespace"] or "*", loaded["pod"] or "*", loaded["port"])

def parse_address(text: str) -> tuple[str, int]:
    """`host:port` (`[::1]:port` for IPv6); ValueError otherwise."""
    host, sep, port = text.rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not sep or not host or not port.isdigit() or not 1 <= int(port) <= 65535:
        raise ValueError(f'"{text}" is not an address (host:port)')
    return host, int(port)


def annotation_ports(annotations: Mapping[str, str]) -> dict[int, str]:
    """The addresses the pod's `fakeapi.dev/port-forward` annotation gives its ports; ValueError if it does
    not parse."""
    value = annotations.get(ANNOTATION)
    if value is None:
        return {}
    found: dict[int, str] = {}
    for item in value.replace("\n", ",").split(","):
        item = item.strip()
        if not item:
            continue
        port, sep, address = item.partition("=")
        if not sep or not port.strip().isdigit() or not 1 <= int(port) <= 65535:
            raise ValueError(f'"{item}" is not PORT=HOST:PORT')
        parse_address(address.strip())
        found[int(port)] = address.strip()
    return found


async def connect(address: tuple[str, int]) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    return await asyncio.wait_for(asyncio.open_connection(*address), CONNECT_SECONDS)


def refused(pod_uid: str, port: int) -> str:
    """containerd's error for a port nothing listens on, in the pod's network namespace."""
    sandbox = sandbox_id(pod_uid)
    namespace = f"/var/run/netns/cni-{uuid.UUID(hashlib.sha256(f'netns/{pod_uid}'.encode()).hexdigest()[:32])}"
    return (f'failed to execute portforward in network namespace "{namespace}": failed to connect to localhost:{port} '
            f'inside namespace "{sandbox}", IPv4: dial tcp4 127.0.0.1:{port}: connect: connection refused IPv6 '
            f"dial tcp6 [::1]:{port}: connect: connection refused ")


def sandbox_id(pod_uid: str) -> str:
    """The pod sandbox's id, as the runtime names it (the kubelet's port-forward errors name the pod so)."""
    return hashlib.sha256(f"sandbox/{pod_uid}".encode()).hexdigest()

