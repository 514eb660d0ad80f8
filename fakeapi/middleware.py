"""The one middleware every request passes: recorded, faults injected, and every error leaves as an
upstream-shaped Status (an unexpected exception is logged and becomes a 500)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from aiohttp import web
from aiohttp.typedefs import Handler, Middleware

from fakeapi.errors import (
    InternalError,
    MethodNotAllowed,
    NotFound,
    RequestEntityTooLarge,
    StatusError,
    UnsupportedMediaType,
)
from fakeapi.faults import inject_faults
from fakeapi.keys import config_key
from fakeapi.requestlog import CONTROL_PREFIX, record_request
from fakeapi.responses import json_response

if TYPE_CHECKING:
    from fakeapi.api import Api

log = logging.getLogger("fakeapi")


def status_response(error: StatusError) -> web.Response:
    response = json_response(error.to_status(), status=error.code)
    response.headers.update(error.headers)
    return response


def api_middleware(api: Api) -> Middleware:
    """One middleware rather than three: each layer costs every request a coroutine and a wrapper."""

    @web.middleware
    async def handle(request: web.Request, handler: Handler) -> web.StreamResponse:
        recorded = None
        try:
            if not request.path.startswith(CONTROL_PREFIX):  # the control API is neither recorded nor faulted
                if api.requests.limit > 0:
                    recorded = await record_request(api.requests, api.clock, request)
                if api.faults.rules:
                    await inject_faults(api.faults, api.clock, lambda: api.store.resource_version, request)
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
        if recorded is not None and recorded.status is None:
            recorded.status = response.status
        return response

    return handle


def _http_error(request: web.Request, error: web.HTTPException) -> StatusError | None:
    """The Status for an error aiohttp raised itself (routing, body size), None for the rest."""
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
