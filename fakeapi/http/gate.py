"""The gate every request passes before the guard, as upstream's filters run before its handlers: how
many requests at once and for how long (`limits`). One wrapper for all of it, since each layer of
coroutine costs every request."""

from __future__ import annotations

import asyncio

from aiohttp import web
from aiohttp.typedefs import Handler

from fakeapi.http.keys import deadlines_key, inflight_key
from fakeapi.http.limits import READ_METHODS, long_running, timed_out, too_many_requests


def gated(app: web.Application, handler: Handler) -> Handler:
    """`handler` under the in-flight limits and the request deadline (long-running requests under
    neither, as upstream's)."""
    inflight, deadlines = app[inflight_key], app[deadlines_key]

    async def gate(request: web.Request) -> web.StreamResponse:
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
