"""Shared fixtures: an in-process test client, a live server on 127.0.0.1, and a pod factory."""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from fakeapi.app import create_app

# pytest puts only tests/ on sys.path (no __init__.py); helpers import as `tests.<module>` from the root
_ROOT = str(Path(__file__).resolve().parent.parent)
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from tests import builders  # noqa: E402  (importable once the root is on sys.path)

PodFactory = Callable[..., dict[str, Any]]
ServerFactory = Callable[..., "LiveServer"]


def build_pod(name: str, **overrides: Any) -> dict[str, Any]:
    """A minimal valid Pod named `name`, with one container `main` and no labels (see tests.builders.pod)."""
    return builders.pod(name, container="main", **{"labels": {}, **overrides})


@pytest.fixture
def make_pod() -> PodFactory:
    return build_pod


@pytest.fixture
async def client(aiohttp_client: Any) -> Any:
    """An aiohttp test client on a fresh server (the app is `client.app`, its server `client.server`)."""
    return await aiohttp_client(create_app())


class LiveServer(threading.Thread):
    """One aiohttp app served on 127.0.0.1 (a free port) from its own thread and event loop.

    `url` is its address, `app` the application; `call(fn, *args)` runs `fn` on the server's loop (the
    only safe way to touch the app from the test thread) and returns its result.
    """

    def __init__(self, app: web.Application) -> None:
        super().__init__(name="fakeapi-live-server", daemon=True)
        self.app = app
        self.url = ""
        self._ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop_event: asyncio.Event | None = None
        self._error: BaseException | None = None

    def run(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            loop.run_until_complete(self._serve())
        except BaseException as error:  # noqa: BLE001 - reported to the test thread
            self._error = error
            self._ready.set()
        finally:
            loop.close()

    async def _serve(self) -> None:
        self._stop_event = asyncio.Event()
        runner = web.AppRunner(self.app, access_log=None, handle_signals=False, handler_cancellation=True,
                               shutdown_timeout=5.0)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = runner.addresses[0][1]
        self.url = f"http://127.0.0.1:{port}"
        self._ready.set()
        try:
            await self._stop_event.wait()
        finally:
            await runner.cleanup()

    def start_and_wait(self) -> str:
        self.start()
        if not self._ready.wait(30) or self._error is not None:
            raise RuntimeError(f"live server did not start: {self._error!r}")
        return self.url

    def call(self, function: Callable[..., Any], *args: Any) -> Any:
        if self._loop is None:
            raise RuntimeError("the live server is not running")

        async def run() -> Any:
            return function(*args)

        return asyncio.run_coroutine_threadsafe(run(), self._loop).result(30)

    def stop(self) -> None:
        if self._loop is not None and self._stop_event is not None and self.is_alive():
            self._loop.call_soon_threadsafe(self._stop_event.set)
        self.join(30)


@pytest.fixture
def live_server_factory() -> Iterator[ServerFactory]:
    """Start servers on 127.0.0.1, each in a thread with its own loop: `server = factory(app=None)`
    gives a started `LiveServer` (`server.url`, `server.app`, `server.call(...)`).

    Every server started is stopped (cleanly, through the app's shutdown) when the test ends.
    """
    servers: list[LiveServer] = []

    def start(app: web.Application | None = None) -> LiveServer:
        server = LiveServer(app if app is not None else create_app())
        servers.append(server)
        server.start_and_wait()
        return server

    yield start
    for server in servers:
        server.stop()


@pytest.fixture
def live_server(live_server_factory: ServerFactory) -> str:
    """The URL (`http://127.0.0.1:PORT`) of a fresh server running in a background thread."""
    return live_server_factory().url
