"""Calling a webhook the way kube-apiserver does (k8s.io/apiserver/pkg/util/webhook): a JSON POST over HTTPS to
a `clientConfig`'s `url`, or to its `service` (`https://<name>.<namespace>.svc:<port><path>`, the certificate
checked against that name) reached at the address a server's `webhook_addresses` map gives it, since fakeapi
runs no Services; the server's certificate checked against the `caBundle` (else the system's roots); bounded
in time and in the size of the answer. Errors read as Go's http client's: `Post "<url>": <reason>`.

Conversion webhooks use it now; admission webhooks can share it.
"""

from __future__ import annotations

import base64
import binascii
import ssl
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import aiohttp
import orjson

from fakeapi.machinery.types import JSON

DEFAULT_TIMEOUT = 30.0  # seconds: upstream's webhook client timeout (conversion webhooks have no other)
MAX_RESPONSE_BYTES = 32 * 1024 * 1024


class WebhookError(Exception):
    """A call that failed, in Go's words (`Post "https://...": dial tcp ...: connect: connection refused`)."""


@dataclass(frozen=True)
class Target:
    """Where a call goes: the URL clients see, the address it is made to, the name the certificate must hold."""

    url: str
    connect_url: str
    server_name: str
    ca_bundle: bytes | None


def target(client_config: JSON, addresses: Mapping[str, str]) -> Target:
    """The target of a webhook's clientConfig; WebhookError when it names a service the server cannot reach."""
    ca_bundle = _ca_bundle(client_config.get("caBundle"))
    url = client_config.get("url")
    if isinstance(url, str) and url:
        host = url.split("://", 1)[-1].split("/", 1)[0].rsplit(":", 1)[0].strip("[]")
        return Target(url, url, host, ca_bundle)
    service = client_config.get("service") or {}
    name, namespace = str(service.get("name") or ""), str(service.get("namespace") or "")
    port = int(service.get("port") or 443)
    path = str(service.get("path") or "")
    host = f"{name}.{namespace}.svc"
    url = f"https://{host}:{port}{path}"
    address = addresses.get(f"{host}:{port}")
    if address is None:
        raise WebhookError(f'service "{name}" not found')
    return Target(url, f"https://{address}{path}", host, ca_bundle)


def _ca_bundle(value: Any) -> bytes | None:
    if not value:
        return None
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError, TypeError):
        return None


def ssl_context(ca_bundle: bytes | None) -> ssl.SSLContext:
    """The context that checks a webhook's certificate (making one, the system's roots above all, costs more than
    a call: callers keep them)."""
    if ca_bundle is not None:
        return ssl.create_default_context(cadata=ca_bundle.decode(errors="replace"))
    return ssl.create_default_context()


async def post(to: Target, body: JSON, timeout: float = DEFAULT_TIMEOUT,
               max_response_bytes: int = MAX_RESPONSE_BYTES, session: aiohttp.ClientSession | None = None,
               contexts: Callable[[bytes | None], ssl.SSLContext] = ssl_context) -> Any:
    """POST `body` as JSON; the decoded JSON answer (WebhookError on anything else). With a `session`, its
    connections are reused (else one is made for the call); `contexts` gives the TLS context of a bundle."""
    if session is None:
        async with aiohttp.ClientSession() as own:
            return await post(to, body, timeout, max_response_bytes, own, contexts)
    shown = f'Post "{to.url}?timeout={int(timeout)}s"'
    try:
        context = contexts(to.ca_bundle)
    except ssl.SSLError:
        raise WebhookError(f"{shown}: unable to load root certificates: unable to parse bytes as PEM block") \
            from None
    try:
        async with session.post(to.connect_url, data=orjson.dumps(body), ssl=context,
                                server_hostname=to.server_name, timeout=aiohttp.ClientTimeout(total=timeout),
                                headers={"Content-Type": "application/json", "Accept": "application/json"},
                                params={"timeout": f"{int(timeout)}s"}) as response:
            data = await _read_bounded(response, max_response_bytes)
            if data is None:
                raise WebhookError(f"{shown}: response body too large")
            if response.status >= 300:
                raise WebhookError(f"the server responded with the status code {response.status} but did not "
                                   "return more information")
    except aiohttp.TooManyRedirects:
        raise WebhookError(f"{shown}: stopped after 10 redirects") from None
    except aiohttp.ClientConnectorCertificateError as error:
        raise WebhookError(f"{shown}: tls: failed to verify certificate: {_x509(error)}") from None
    except aiohttp.ClientConnectorError as error:
        raise WebhookError(f"{shown}: dial tcp {error.host}:{error.port}: connect: connection refused") from None
    except (TimeoutError, aiohttp.ServerTimeoutError):
        raise WebhookError(f"{shown}: context deadline exceeded") from None
    except aiohttp.ClientError as error:
        raise WebhookError(f"{shown}: {error}") from None
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as error:
        raise WebhookError(f"{shown}: {error}") from None


async def _read_bounded(response: aiohttp.ClientResponse, limit: int) -> bytes | None:
    """The whole body, or None once it passes `limit` bytes (a read returns what has arrived, not all)."""
    parts: list[bytes] = []
    size = 0
    while chunk := await response.content.read(limit + 1 - size):
        parts.append(chunk)
        size += len(chunk)
        if size > limit:
            return None
    return b"".join(parts)


def _x509(error: aiohttp.ClientConnectorCertificateError) -> str:
    reason = str(getattr(error.certificate_error, "verify_message", "") or error.certificate_error)
    if "unable to get local issuer" in reason or "self-signed" in reason or "self signed" in reason:
        return "x509: certificate signed by unknown authority"
    if "Hostname mismatch" in reason or "hostname" in reason.lower():
        return "x509: certificate is not valid for the requested name"
    return f"x509: {reason}"
