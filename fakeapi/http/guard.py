"""Every route's handler is guarded: the request is recorded (with the user the gate authenticated),
faults are injected, and every error leaves as an upstream-shaped Status (an unexpected exception is
logged and becomes a 500).

A wrapper per route rather than an aiohttp middleware: around a middleware aiohttp adds a layer of
its own to every request (a measurable share of a GET). Paths no route serves reach
`routing.Unmatched`, the last resource, so that they too are answered with a Status.
"""

from __future__ import annotations

import logging

from aiohttp import web
from aiohttp.typedefs import Handler

from fakeapi.http.authentication import user_of
from fakeapi.http.faults import inject_faults
from fakeapi.http.gate import gated
from fakeapi.http.keys import api_key, config_key, faults_key, request_log_key
from fakeapi.http.pretty import indent_if_asked
from fakeapi.http.requestlog import CONTROL_PREFIX, record_request
from fakeapi.http.responses import status_response
from fakeapi.http.routing import Unmatched
from fakeapi.machinery.errors import (
    InternalError,
    MethodNotAllowed,
    NotFound,
    RequestEntityTooLarge,
    StatusError,
    UnsupportedMediaType,
)

log = logging.getLogger("fakeapi")


def guarded(app: web.Application, handler: Handler, negotiated: bool = True) -> Handler:
    """`handler` recorded, faulted and with its errors answered as Status objects. The answers of a
    `negotiated` handler (every API handler; not the OpenAPI documents) are indented when asked."""
    api, requests, faults = app[api_key], app[request_log_key], app[faults_key]

    async def guard(request: web.Request) -> web.StreamResponse:
        recorded = None
        try:
            if not request.path.startswith(CONTROL_PREFIX):  # the control API is neither recorded nor faulted
                if requests.limit > 0:
                    recorded = record_request(requests, api.clock, request, user_of(request))
                    if request.body_exists:  # read here, a body too large still leaves its 413 recorded
                        requests.set_body(recorded, await request.read())
                if faults.rules:
                    await inject_faults(faults, api.clock, lambda: api.store.resource_version, request)
            response = await handler(request)
        except StatusError as error:
            response = status_response(error)
        except web.HTTPException as error:
            status_error = _http_error(request, error)
            if status_error is None:
                raise
            response = status_response(status_error)
        except Exception as error:
            log.exception("internal error serving %s %s", request.method, request.path_qs)
            response = status_response(InternalError(f"Internal error occurred: {error!r}"))
        if negotiated:
            response = indent_if_asked(request, response)
        if recorded is not None and recorded.status is None:
            recorded.status = response.status
        return response

    return guard


class GuardedRouter:
    """Adds routes to an aiohttp router with their handlers guarded."""

    def __init__(self, router: web.UrlDispatcher, app: web.Application) -> None:
        self.router = router
        self.app = app

    def guard(self, handler: Handler, negotiated: bool = True) -> Handler:
        """`handler` guarded, behind the gate (whose refusals are answered before anything is recorded)."""
        return gated(self.app, guarded(self.app, handler, negotiated))

    def add_get(self, path: str, handler: Handler, negotiated: bool = True) -> None:
        self.router.add_get(path, self.guard(handler, negotiated))

    def add_post(self, path: str, handler: Handler) -> None:
        self.router.add_post(path, self.guard(handler))

    def add_put(self, path: str, handler: Handler) -> None:
        self.router.add_put(path, self.guard(handler))

    def add_patch(self, path: str, handler: Handler) -> None:
        self.router.add_patch(path, self.guard(handler))

    def add_delete(self, path: str, handler: Handler) -> None:
        self.router.add_delete(path, self.guard(handler))

    def register_resource(self, resource: web.AbstractResource) -> None:
        """A resource whose routes were made with `guard`ed handlers."""
        self.router.register_resource(resource)

    def finish(self) -> None:
        """Add the resource that answers every path no route serves: call it after the last route."""
        self.router.register_resource(Unmatched(self.guard(_unmatched)))


async def _unmatched(request: web.Request) -> web.StreamResponse:
    """405 where another method of the path is served, else 404 (as aiohttp's router would say)."""
    for resource in request.app.router.resources():
        if not isinstance(resource, Unmatched) and (await resource.resolve(request))[1]:
            raise MethodNotAllowed.on_path()
    raise NotFound.path()


def _http_error(request: web.Request, error: web.HTTPException) -> StatusError | None:
    """The Status for an HTTP error aiohttp raised in a handler (body size, media type), None for the rest."""
    if isinstance(error, web.HTTPNotFound):
        return NotFound.path()
    if isinstance(error, web.HTTPMethodNotAllowed):
        return MethodNotAllowed.on_path()
    if isinstance(error, web.HTTPRequestEntityTooLarge):
        limit = request.app[config_key].max_body_bytes
        return RequestEntityTooLarge(f"Request entity too large: limit is {limit}")
    if isinstance(error, web.HTTPUnsupportedMediaType):
        return UnsupportedMediaType("the body of the request was in an unknown format")
    return None
