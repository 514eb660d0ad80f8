"""Calling admission webhooks for a write: the write's pipeline runs, stops at webhooks it has no answer of
(CallsPending), they are called (together, when the stop is for validating webhooks) while the server goes on
with other requests, and the pipeline runs again with their answers and the same random draws."""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import TypeVar

import aiohttp

from fakeapi.machinery.errors import InternalError
from fakeapi.machinery.ids import IdSource
from fakeapi.machinery.webhook import WebhookError, post, ssl_context, target
from fakeapi.registry.admission.request import CallsPending, RequestContext
from fakeapi.registry.admission.webhook.plugins import Answered, Call, Failed
from fakeapi.registry.admission.webhook.review import InvalidAnswer, read_answer

T = TypeVar("T")
MAX_RUNS = 500  # a write stops for calls at most this many times (upstream has no limit but its request timeout)
DEFAULT_TIMEOUT = 10


@dataclass
class WebhookClient:
    """How a server calls webhooks: the address of each service, by `<name>.<namespace>.svc:<port>` (fakeapi
    runs no Services); the CA that webhooks without a caBundle are checked against (the in-process test
    server's own; None: the system's roots); the connections and TLS contexts kept between calls."""

    addresses: MutableMapping[str, str] = field(default_factory=dict)
    trusted: bytes | None = None
    _session: aiohttp.ClientSession | None = None  # connections kept between calls, as upstream's clients keep
    # the TLS context of each caBundle, made once
    _contexts: Callable[[bytes | None], ssl.SSLContext] = field(
        default_factory=lambda: lru_cache(maxsize=64)(ssl_context))

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def call(self, call: Call) -> Answered | Failed:
        client_config = call.hook.webhook.get("clientConfig") or {}
        timeout = call.hook.webhook.get("timeoutSeconds") or DEFAULT_TIMEOUT
        try:
            to = target(client_config, self.addresses)
        except WebhookError as error:
            return Failed(f'failed to call webhook: Post "{_service_url(client_config)}?timeout={timeout}s": {error}')
        if to.ca_bundle is None and self.trusted is not None:
            to = replace(to, ca_bundle=self.trusted)
        try:
            if self._session is None:
                self._session = aiohttp.ClientSession()
            answer = await post(to, call.review, timeout=float(timeout), session=self._session,
                                contexts=self._contexts)
        except WebhookError as error:
            return Failed(f"failed to call webhook: {error}")
        try:
            return Answered(read_answer(answer, call.review["request"]["uid"], call.mutating))
        except InvalidAnswer as error:
            return Failed(f"received invalid webhook response: {error}")

    async def admitted(self, write: Callable[[], T], context: RequestContext, ids: IdSource) -> T:
        """The result of `write` once every webhook it reaches has answered."""
        for _run in range(MAX_RUNS):
            context.warnings.clear()
            context.audit_annotations.clear()
            context.pending = []
            try:
                with ids.replaying(context.draws):
                    return write()
            except CallsPending:
                calls: list[Call] = list(context.pending)
            outcomes = await asyncio.gather(*(self.call(call) for call in calls))
            for call, outcome in zip(calls, outcomes, strict=True):
                context.answers[call.key] = outcome
        raise InternalError(f"admission webhooks were called more than {MAX_RUNS} times for one request")


def _service_url(client_config: dict[str, object]) -> str:
    service = client_config.get("service")
    if not isinstance(service, dict):
        return str(client_config.get("url") or "")
    return (f"https://{service.get('name')}.{service.get('namespace')}.svc:{service.get('port') or 443}"
            f"{service.get('path') or ''}")
