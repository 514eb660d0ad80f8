"""The service account issuer's OpenID discovery, as kube-apiserver serves it: GET
/.well-known/openid-configuration and GET /openid/v1/jwks (what lets another party check the server's
tokens)."""

from __future__ import annotations

import orjson
from aiohttp import web

from fakeapi.http.guard import GuardedRouter
from fakeapi.http.keys import api_key
from fakeapi.registry.tokens.issuer import DISCOVERY_PATH, JWKS_PATH

CACHE_CONTROL = "public, max-age=3600"  # upstream's: the keys change rarely


async def openid_configuration(request: web.Request) -> web.Response:
    base = f"{request.scheme}://{request.host}"
    body = request.app[api_key].service_account_issuer.discovery(base)
    return web.Response(body=orjson.dumps(body), headers={"Content-Type": "application/json",
                                                           "Cache-Control": CACHE_CONTROL})


async def jwks(request: web.Request) -> web.Response:
    body = request.app[api_key].service_account_issuer.jwks()
    return web.Response(body=orjson.dumps(body), headers={"Content-Type": "application/jwk-set+json",
                                                           "Cache-Control": CACHE_CONTROL})


def setup_oidc_routes(router: GuardedRouter) -> None:
    router.add_get(DISCOVERY_PATH, openid_configuration)
    router.add_get(JWKS_PATH, jwks)
