"""Python functions served as admission webhooks to an in-process server: each over HTTPS on 127.0.0.1 and a
port of its own, with a certificate from a CA made for the server, which the server trusts for webhooks that
name no caBundle; one named by a service is reached through the server's webhook address map.

A function takes the AdmissionReview's `request` and returns its `response` (`allowed`, `status`, `warnings`,
`auditAnnotations`, `patch` as a list of JSONPatch operations or base64 text); the `uid` is filled in.
"""

from __future__ import annotations

import base64
import socket
import ssl
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import orjson
from aiohttp import web

from fakeapi.machinery.types import JSON
from fakeapi.pki import Authority
from fakeapi.registry.admission.webhook.calls import WebhookClient

WebhookFunction = Callable[[JSON], JSON]


@dataclass
class Webhook:
    """One served function: the clientConfig to put in a webhook configuration, and the requests it got."""

    function: WebhookFunction
    client_config: JSON
    ca_bundle: str  # base64 PEM, for a clientConfig written by hand
    requests: list[JSON] = field(default_factory=list)
    _sock: socket.socket | None = None
    _context: ssl.SSLContext | None = None
    _runner: web.AppRunner | None = None

    async def start(self) -> None:
        app = web.Application()
        app.router.add_post("/{path:.*}", self._answer)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        await web.SockSite(runner, self._sock, ssl_context=self._context).start()  # type: ignore[arg-type]
        self._runner = runner

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
        elif self._sock is not None:
            self._sock.close()

    async def _answer(self, request: web.Request) -> web.Response:
        review = await request.json()
        self.requests.append(review["request"])
        response = dict(self.function(review["request"]))
        patch = response.get("patch")
        if isinstance(patch, list):
            response["patch"] = base64.b64encode(orjson.dumps(patch)).decode()
            response.setdefault("patchType", "JSONPatch")
        return web.json_response({"apiVersion": review.get("apiVersion", "admission.k8s.io/v1"),
                                  "kind": "AdmissionReview",
                                  "response": {"uid": review["request"]["uid"], **response}})


class WebhookHost:
    """The webhooks of one in-process server, under a CA made on first use."""

    def __init__(self, client: WebhookClient) -> None:
        self.client = client
        self.authority: Authority | None = None
        self.webhooks: list[Webhook] = []

    def add(self, function: WebhookFunction, service: str | None, path: str) -> Webhook:
        """A webhook listening already (its socket bound; start() serves it)."""
        if self.authority is None:
            self.authority = Authority.new("fakeapi-webhooks")
            self.client.trusted = self.authority.certificate
        if not path.startswith("/"):
            raise ValueError(f"path must start with '/': {path!r}")
        hosts = ["127.0.0.1"]
        if service is not None:
            namespace, _, name = service.partition("/")
            if not namespace or not name:
                raise ValueError(f"service must be NAMESPACE/NAME, not {service!r}")
            hosts.insert(0, f"{name}.{namespace}.svc")
        sock = socket.create_server(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        if service is not None:
            self.client.addresses[f"{hosts[0]}:443"] = f"127.0.0.1:{port}"
            client_config: JSON = {"service": {"namespace": namespace, "name": name, "path": path, "port": 443}}
        else:
            client_config = {"url": f"https://127.0.0.1:{port}{path}"}
        webhook = Webhook(function, client_config, base64.b64encode(self.authority.certificate).decode(),
                          _sock=sock, _context=self._serving_context(hosts))
        self.webhooks.append(webhook)
        return webhook

    def _serving_context(self, hosts: list[str]) -> ssl.SSLContext:
        assert self.authority is not None
        pair = self.authority.issue_server(hosts)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        with tempfile.TemporaryDirectory() as directory:  # (the ssl module loads keys from files only)
            certificate, key = Path(directory) / "tls.crt", Path(directory) / "tls.key"
            certificate.write_bytes(pair.certificate)
            key.write_bytes(pair.key)
            context.load_cert_chain(certificate, key)
        return context

    async def stop(self) -> None:
        for webhook in self.webhooks:
            await webhook.stop()
        self.webhooks.clear()


