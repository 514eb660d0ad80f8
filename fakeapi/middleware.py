"""Every error leaves as an upstream-shaped Status; an unexpected exception is logged and becomes a 500."""

from __future__ import annotations

import logging

from aiohttp import web
from aiohttp.typedefs import Handler

from fakeapi.errors import (
    InternalError,
    MethodNotAllowed,
    NotFound,
    RequestEntityTooLarge,
    StatusError,
    UnsupportedMediaType,
)
from fakeapi.keys import config_key
from fakeapi.responses import json_response

log = logging.getLogger("fakeapi")


def status_response(error: StatusError) -> web.Response:
    response = json_response(error.to_status(), status=error.code)
    response.headers.update(error.headers)
    return response


@web.middleware
async def status_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    try:
        return await handler(request)
    except StatusError as error:
        return status_response(error)
    except web.HTTPNotFound:
        return status_response(NotFound.path())
    except web.HTTPMethodNotAllowed:
        return status_response(MethodNotAllowed.on_path())
    except web.HTTPRequestEntityTooLarge:
        limit = request.app[config_key].max_body_bytes
        return status_response(RequestEntityTooLarge(f"Request entity too large: limit is {limit}"))
    except web.HTTPUnsupportedMediaType:
        return status_response(UnsupportedMediaType("the body of the request was in an unknown format"))
    except web.HTTPException:
        raise
    except Exception as error:
        log.exception("internal error serving %s %s", request.method, request.path_qs)
        return status_response(InternalError(f"Internal error occurred: {error!r}"))
