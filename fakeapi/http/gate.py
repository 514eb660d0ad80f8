"""The gate every request passes before the guard, as upstream's filters run before its handlers: who
may ask (`access`), who asks (`authentication`, `impersonation`), whether they may (`authorization`), then
how many requests at once and for how long (`limits`). One wrapper for all of it, since each layer of
coroutine costs every request."""

from __future__ import annotations

import asyncio

from aiohttp import web
from aiohttp.typedefs import Handler

from fakeapi.http.access import access_check
from fakeapi.http.authentication import authenticator
from fakeapi.http.authorization import authorization_check
from fakeapi.http.impersonation import impersonator
from fakeapi.http.keys import api_key, config_key, deadlines_key, inflight_key
from fakeapi.http.limits import READ_METHODS, long_running, timed_out, too_many_requests
from fakeapi.http.responses import status_response
from fakeapi.machinery.errors import StatusError


def gated(app: web.Application, handler: Handler) -> Handler:
    """`handler` behind the access rules, authentication, the in-flight limits and the request deadline
    (long-running requests are under neither of the last two, as upstream's)."""
    config = app[config_key]
    check = access_check(config)
    authenticate = authenticator(config.authentication, app[api_key].service_account_tokens)
    impersonate, authorize = impersonator(app[api_key].authorizer), authorization_check(app[api_key].authorizer)
    inflight, deadlines = app[inflight_key], app[deadlines_key]

    async def gate(request: web.Request) -> web.StreamResponse:
        try:
            if check is not None:
                check(request)
            authenticate(request)
            impersonate(request)
            if authorize is not None:
                authorize(request)
        except StatusError as error:
            return status_response(error)
        if long_running(request):
            return await handler(request)
        write = request.method not in READ_METHODS
        if not inflight.enter(write):
            return too_many_requests()
        task = asyncio.current_task()
        assert task is not None  # aiohttp runs every request in a task of its own
        deadlines.add(task)
        try:
            return await handler(request)
        except asyncio.CancelledError:
            if task not in deadlines.expired or task.uncancel() > 0:  # cancelled for another reason too
                raise
            return timed_out()
        finally:
            deadlines.remove(task)
            inflight.leave(write)

    return gate
