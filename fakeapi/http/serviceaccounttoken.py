"""POST serviceaccounts/{name}/token (`kubectl create token`): fakeapi.registry.tokens.tokenrequest."""

from __future__ import annotations

from aiohttp import web

from fakeapi.http.bodies import read_object
from fakeapi.http.keys import api_key
from fakeapi.http.responses import json_response
from fakeapi.registry.options import WriteOptions


async def create_token(request: web.Request) -> web.Response:
    """POST /api/v1/namespaces/{namespace}/serviceaccounts/{name}/token"""
    options = WriteOptions.from_request(request.query, request.headers.get("User-Agent", ""))
    body = await read_object(request)
    answer = request.app[api_key].token_requests().create(request.match_info["namespace"], request.match_info["name"],
                                                          body, options)
    return json_response(answer, status=201, warnings=options.warnings)
