"""Serving an app on a TCP port as a production server does: slow and idle connections are closed,
and running out of file descriptors pauses accepting instead of flooding the log.

`fakeapi serve` and the in-process FakeAPIServer both serve through `app_runner` and `Listener`:

- idle: a connection waiting for its next request closes after `idle_timeout` (90 s, upstream's
  http.Server IdleTimeout); aiohttp counts that wait from the end of the last answer, header bytes
  included, so it also bounds the headers of every request after the first;
- first headers: a new connection closes unless its first request's headers are in within
  `read_header_timeout` (32 s, upstream's ReadHeaderTimeout), so connections that never send a request do
  not hold a file descriptor for the whole idle timeout;
- out of file descriptors: the event loop's own server logs every failed accept() (asyncio: about 128 a
  second, each with a traceback) or accepts the waiting clients only to close them (uvloop). `Listener` accepts
  connections itself: on EMFILE it waits (5 ms, doubling to 1 s, as Go's http.Server does), the clients
  queue in the kernel's backlog until connections close, and one line a minute at most says so;
- shutdown: requests still running get `SHUTDOWN_GRACE` seconds, then are cancelled, so that SIGTERM
  ends log streams and half-sent uploads at once (watches end before, at the app's on_shutdown);
- TLS (with an `ssl_context`): each connection's handshake runs in a task of its own, so that a client
  that never finishes one holds up no other; it must be done within `read_header_timeout` too.
"""

from __future__ import annotations

import asyncio
import logging
import math
import resource
import socket
import ssl
from collections.abc import Callable

from aiohttp import web
from aiohttp.web_protocol import RequestHandler

from fakeapi.http.accesslog import RequestLine
from fakeapi.http.keys import config_key

SHUTDOWN_GRACE = 0.2  # seconds running requests get to finish at shutdown
FIRST_DELAY, MAX_DELAY = 0.005, 1.0  # seconds between accept() attempts that failed
WARNING_INTERVAL = 60.0  # seconds between two warnings that accept() fails
HEADERS_END = (b"\r\n\r\n", b"\n\n")

log = logging.getLogger("fakeapi")


def app_runner(app: web.Application, access_log: logging.Logger | None = None) -> web.AppRunner:
    """The runner of `app`, with its idle timeout; serve it with a `Listener`."""
    # handler_cancellation: a watch or log stream whose client went away is cancelled at once (aiohttp's
    # default keeps a streaming handler until its next write)
    return web.AppRunner(app, handle_signals=False, handler_cancellation=True, access_log=access_log,
                         access_log_class=RequestLine, keepalive_timeout=app[config_key].idle_timeout,
                         shutdown_timeout=SHUTDOWN_GRACE)


class Listener(web.BaseSite):
    """A TCP site that accepts connections itself (see the module's notes); `port` is the one bound."""

    def __init__(self, runner: web.AppRunner, host: str, port: int, ssl_context: ssl.SSLContext | None = None,
                 backlog: int = 128) -> None:
        super().__init__(runner, backlog=backlog)
        self._host, self._port = host, port
        self._read_header_timeout = runner.app[config_key].read_header_timeout
        self._ssl = ssl_context
        self._sockets: list[socket.socket] = []
        self._accepting: list[asyncio.Task[None]] = []
        self._handshakes: set[asyncio.Task[None]] = set()
        self._warned_at = -math.inf

    @property
    def name(self) -> str:
        return f"{'https' if self._ssl is not None else 'http'}://{self._host}:{self.port}"

    @property
    def port(self) -> int:
        return int(self._sockets[0].getsockname()[1]) if self._sockets else self._port

    async def start(self) -> None:
        await super().start()
        server, seconds = self._runner.server, self._read_header_timeout
        assert server is not None, "set the runner up first"
        self._sockets = await _bind(self._host, self._port, self._backlog)
        for sock in self._sockets:
            accepting = self._accept(sock, lambda: FirstHeaders(server(), seconds))
            self._accepting.append(asyncio.create_task(accepting))

    async def stop(self) -> None:
        for task in (*self._accepting, *self._handshakes):
            task.cancel()
        await asyncio.gather(*self._accepting, *self._handshakes, return_exceptions=True)
        for sock in self._sockets:
            sock.close()
        self._accepting, self._sockets = [], []
        await super().stop()

    async def _accept(self, sock: socket.socket, protocol: Callable[[], asyncio.Protocol]) -> None:
        loop = asyncio.get_running_loop()
        delay = 0.0
        while True:
            try:
                connection, _ = await loop.sock_accept(sock)
            except ConnectionAbortedError:  # the client left before it was accepted
                continue
            except OSError as error:  # EMFILE, ENFILE, ENOBUFS, ENOMEM: wait for resources to free up
                delay = min(max(delay * 2, FIRST_DELAY), MAX_DELAY)
                self._warn(error)
                await asyncio.sleep(delay)
                continue
            delay = 0.0
            if self._ssl is not None:
                handshake = asyncio.create_task(self._handshake(protocol, connection, self._ssl))
                self._handshakes.add(handshake)
                handshake.add_done_callback(self._handshakes.discard)
                continue
            try:
                await loop.connect_accepted_socket(protocol, connection)
            except OSError:
                connection.close()

    async def _handshake(self, protocol: Callable[[], asyncio.Protocol], connection: socket.socket,
                         context: ssl.SSLContext) -> None:
        try:
            await asyncio.get_running_loop().connect_accepted_socket(
                protocol, connection, ssl=context, ssl_handshake_timeout=self._read_header_timeout)
        except OSError:  # the handshake failed or took too long (SSLError, ConnectionError, TimeoutError)
            connection.close()

    def _warn(self, error: OSError) -> None:
        now = asyncio.get_running_loop().time()
        if now - self._warned_at < WARNING_INTERVAL:
            return
        self._warned_at = now
        limit = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        log.warning("fakeapi: cannot accept connections: %s (open-file limit %s); new clients wait until "
                    "connections close (silent new ones after --read-header-timeout, idle ones after "
                    "--idle-timeout); raise the limit with ulimit -n",
                    (error.strerror or str(error)).lower(),
                    "unlimited" if limit == resource.RLIM_INFINITY else limit)


class FirstHeaders(asyncio.Protocol):
    """aiohttp's protocol for one connection, closed unless its first request's headers arrive in time."""

    def __init__(self, handler: RequestHandler, seconds: float) -> None:
        self._handler = handler
        self._seconds = seconds
        self._timer: asyncio.TimerHandle | None = None
        self._tail = b""  # the last bytes received, where a header block's end may begin

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._handler.connection_made(transport)
        self._timer = asyncio.get_running_loop().call_later(self._seconds, self._handler.force_close)

    def data_received(self, data: bytes) -> None:
        if self._timer is not None:
            seen = self._tail + data
            if any(end in seen for end in HEADERS_END):
                self._timer.cancel()
                self._timer = None
            self._tail = seen[-3:]
        self._handler.data_received(data)

    def eof_received(self) -> None:  # aiohttp's handler keeps nothing open: the transport closes
        self._handler.eof_received()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._handler.connection_lost(exc)

    def pause_writing(self) -> None:
        self._handler.pause_writing()

    def resume_writing(self) -> None:
        self._handler.resume_writing()


async def _bind(host: str, port: int, backlog: int) -> list[socket.socket]:
    """Listening sockets for `host` (every address it resolves to) and `port`, as asyncio's create_server
    binds them; raises what binding raises (socket.gaierror, UnicodeError, OSError)."""
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(host or None, port, family=socket.AF_UNSPEC, type=socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)
    sockets: list[socket.socket] = []
    try:
        for family, kind, proto, _, address in dict.fromkeys(infos):
            sock = socket.socket(family, kind, proto)
            sockets.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind(address)
            sock.listen(backlog)
            sock.setblocking(False)
    except BaseException:
        for sock in sockets:
            sock.close()
        raise
    return sockets
