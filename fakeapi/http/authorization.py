"""Authorization of each request, after authentication (and impersonation), as upstream's WithAuthorization
filter: the request's attributes (fakeapi.http.requestinfo) go to the server's authorizers; a refusal is
upstream's 403 Forbidden Status. fakeapi's own control API (/fakeapi/...) is not authorized."""

from __future__ import annotations

from collections.abc import Callable

from aiohttp import web

from fakeapi.http.authentication import user_of
from fakeapi.http.requestinfo import RequestInfo, request_info
from fakeapi.http.requestlog import CONTROL_PREFIX
from fakeapi.machinery.users import UserInfo
from fakeapi.registry.authorization.attributes import Attributes
from fakeapi.registry.authorization.forbidden import forbidden
from fakeapi.registry.authorization.modes import ServerAuthorizer


def attributes_of(user: UserInfo, info: RequestInfo, path: str) -> Attributes:
    return Attributes(user, info.verb, info.is_resource_request, info.namespace, info.group, info.resource,
                      info.subresource, info.name, path)


def authorization_check(authorizer: ServerAuthorizer) -> Callable[[web.Request], None] | None:
    """What the gate runs on each request (None when every request is allowed): raises Forbidden."""
    if authorizer.always_allows:
        return None

    def authorize(request: web.Request) -> None:
        path = request.path
        if path.startswith(CONTROL_PREFIX):
            return
        attrs = attributes_of(user_of(request), request_info(request.method, path, request.query), path)
        decision = authorizer.authorize(attrs)
        if not decision.allowed:
            raise forbidden(attrs, decision.reason)

    return authorize
