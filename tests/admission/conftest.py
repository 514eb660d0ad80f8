"""An HTTPS admission webhook server for the tests, on 127.0.0.1 in a thread of its own, with a test CA:
each path answers with a function of the AdmissionReview's request, and the reviews it got are kept."""

from __future__ import annotations

import asyncio
import base64
import ssl
import tempfile
import threading
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from fakeapi.config import ServerConfig
from fakeapi.pki import Authority
from fakeapi.testing import FakeAPIServer

Answer = Callable[[dict[str, Any]], Any]  # the review's request -> the response dict, or an aiohttp Response


def allow(request: dict[str, Any]) -> dict[str, Any]:
    return {"allowed": True}


class WebhookServer:
    def __init__(self) -> None:
        authority = Authority.new("webhook")
        pair = authority.issue_server(["hook.default.svc", "127.0.0.1"])
        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        with tempfile.TemporaryDirectory() as directory:
            certificate, key = Path(directory) / "tls.crt", Path(directory) / "tls.key"
            certificate.write_bytes(pair.certificate)
            key.write_bytes(pair.key)
            self.context.load_cert_chain(certificate, key)
        self.ca_bundle = base64.b64encode(authority.certificate).decode()
        self.answers: dict[str, Answer] = {}
        self.raw: dict[str, Callable[[web.Request], Awaitable[web.StreamResponse]]] = {}
        self.reviews: dict[str, list[dict[str, Any]]] = {}
        self.port = 0
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)

    def url(self, path: str) -> str:
        return f"https://127.0.0.1:{self.port}{path}"

    def client_config(self, path: str) -> dict[str, Any]:
        return {"url": self.url(path), "caBundle": self.ca_bundle}

    def start(self) -> None:
        self._thread.start()
        self._ready.wait(10)

    def stop(self) -> None:
        if self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(10)

    def _run(self) -> None:
        try:
            self._loop.run_until_complete(self._serve())
        finally:
            self._loop.close()

    async def _serve(self) -> None:
        app = web.Application()
        app.router.add_route("*", "/{path:.*}", self._handle)
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=self.context)
        await site.start()
        self.port = runner.addresses[0][1]
        self._stop = asyncio.Event()
        self._ready.set()
        await self._stop.wait()
        await runner.cleanup()

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        path = request.path
        if path in self.raw:
            return await self.raw[path](request)
        review = await request.json()
        self.reviews.setdefault(path, []).append(review)
        answer = self.answers.get(path, allow)(review["request"])
        if isinstance(answer, web.StreamResponse):
            return answer
        return web.json_response({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                                  "response": {"uid": review["request"]["uid"], **answer}})


@pytest.fixture
def hooks() -> Iterator[WebhookServer]:
    server = WebhookServer()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def served(hooks: WebhookServer) -> Iterator[FakeAPIServer]:
    """A fakeapi server that reaches the `hook` service in `default` at the test's webhook server."""
    config = ServerConfig(webhook_addresses={"hook.default.svc:443": f"127.0.0.1:{hooks.port}"})
    with FakeAPIServer(config=config) as server:
        yield server
