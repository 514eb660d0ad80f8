"""Impersonation (upstream's WithImpersonation filter), after authentication and before authorization: a
request that carries `Impersonate-User` (with `Impersonate-Group`, `Impersonate-Uid` and
`Impersonate-Extra-<key>` headers) acts as that user once the authenticated user is allowed to
`impersonate` each of them: `users` (or `serviceaccounts` in their namespace, for a
`system:serviceaccount:<ns>:<name>` user) and `groups` in the core group, `uids` and `userextras/<key>` in
authentication.k8s.io. The first refusal is upstream's 403 for that impersonation."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import unquote

from aiohttp import web

from fakeapi.http.authentication import USER_KEY, user_of
from fakeapi.machinery.errors import InternalError
from fakeapi.machinery.users import ANONYMOUS_NAME, AUTHENTICATED_GROUP, UNAUTHENTICATED_GROUP, UserInfo
from fakeapi.registry.authorization.attributes import Attributes
from fakeapi.registry.authorization.forbidden import forbidden
from fakeapi.registry.authorization.modes import ServerAuthorizer

USER_HEADER, GROUP_HEADER, UID_HEADER = "Impersonate-User", "Impersonate-Group", "Impersonate-Uid"
EXTRA_PREFIX = "impersonate-extra-"
SERVICE_ACCOUNT_PREFIX = "system:serviceaccount:"
AUTHENTICATION_GROUP = "authentication.k8s.io"


def impersonator(authorizer: ServerAuthorizer) -> Callable[[web.Request], None]:
    """What the gate runs on each request: it replaces the request's user by the one it impersonates, or
    raises Forbidden."""

    def impersonate(request: web.Request) -> None:
        headers = request.headers
        if USER_HEADER not in headers and GROUP_HEADER not in headers and UID_HEADER not in headers:
            return
        requestor = user_of(request)
        name = headers.get(USER_HEADER, "")
        groups = list(headers.getall(GROUP_HEADER, ()))
        uid = headers.get(UID_HEADER, "")
        extra: dict[str, list[str]] = {}
        for header, value in headers.items():
            if header.lower().startswith(EXTRA_PREFIX):
                extra.setdefault(unquote(header[len(EXTRA_PREFIX):].lower()), []).append(value)
        if not name:
            raise InternalError(f"Internal Server Error: \"{request.path}\": requested impersonation of groups, "
                                f"a uid or extra values without impersonating a user")

        def check(attrs: Attributes) -> None:
            decision = authorizer.authorize(attrs)
            if not decision.allowed:
                raise forbidden(attrs, decision.reason)

        account = _service_account(name)
        if account is not None:
            check(Attributes(requestor, "impersonate", True, account[0], "", "serviceaccounts", name=account[1]))
            if GROUP_HEADER not in headers:
                groups = ["system:serviceaccounts", f"system:serviceaccounts:{account[0]}"]
        else:
            check(Attributes(requestor, "impersonate", True, "", "", "users", name=name))
        if GROUP_HEADER in headers:
            for group in groups:
                check(Attributes(requestor, "impersonate", True, "", "", "groups", name=group))
        for key, values in extra.items():
            for value in values:
                check(Attributes(requestor, "impersonate", True, "", AUTHENTICATION_GROUP, "userextras", key, value))
        if uid:
            check(Attributes(requestor, "impersonate", True, "", AUTHENTICATION_GROUP, "uids", name=uid))
        added = AUTHENTICATED_GROUP if name != ANONYMOUS_NAME else UNAUTHENTICATED_GROUP
        if added not in groups:
            groups.append(added)
        request[USER_KEY] = UserInfo(name, uid, tuple(groups), {key: tuple(values) for key, values in extra.items()})

    return impersonate


def _service_account(name: str) -> tuple[str, str] | None:
    """(namespace, name) of a service account's user name, None for another user."""
    if not name.startswith(SERVICE_ACCOUNT_PREFIX):
        return None
    namespace, sep, account = name[len(SERVICE_ACCOUNT_PREFIX):].partition(":")
    return (namespace, account) if sep and namespace and account and ":" not in account else None
