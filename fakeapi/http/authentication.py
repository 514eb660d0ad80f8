"""Authentication: who a request is from, found as kube-apiserver finds it (see config.Authentication).

The authenticators run in upstream's order, the first to recognise the request wins:

1. a client certificate the TLS layer verified against the client CAs: the user is its subject's last
   CN, the groups its O values, and `extra` names the certificate by its SHA-256 (upstream's credential
   id); a certificate without a CN counts as none;
2. `Authorization: Bearer <token>` (the scheme in any case; what follows a second space is ignored) with a
   token of the token file, or a service account token the server signed (fakeapi.registry.tokens, always
   on, as upstream's service account authenticator is): its user. Any other token is a 401, even when
   anonymous requests are allowed: only a request that presents no credential is anonymous;
3. for a WebSocket request (what browsers open for exec), a bearer token sent as the subprotocol
   `base64url.bearer.authorization.k8s.io.<token in unpadded base64url>`, beside at least one real
   subprotocol (upstream's protocol authenticator).

Every user found gets the group `system:authenticated`. The gate (fakeapi.http.gate) authenticates each
request after its access rules and before the in-flight limits, as upstream's filters run; its 401 is
upstream's `Unauthorized` Status, and is not recorded in the request log.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Callable, Mapping

from aiohttp import web

from fakeapi.config import Authentication
from fakeapi.http.responses import warning_header
from fakeapi.machinery.errors import Unauthorized
from fakeapi.machinery.users import ANONYMOUS, UserInfo
from fakeapi.registry.reviews import TokenResult
from fakeapi.registry.tokens.authenticator import ServiceAccountAuthenticator, TokenRejected

# token -> its user, or Unauthorized (the token file's, then the service accounts')
TokenLookup = Callable[[str], UserInfo]

USER_KEY = web.RequestKey("fakeapi_user", UserInfo)
WARNING_KEY = web.RequestKey("fakeapi_authentication_warning", str)
CREDENTIAL_ID = "authentication.kubernetes.io/credential-id"
WEBSOCKET_TOKEN = "base64url.bearer.authorization.k8s.io."  # a bearer token sent as a WebSocket subprotocol
EXTRA_SPACE_WARNING = "the provided Authorization header contains extra space before the bearer token, and is ignored"


def user_of(request: web.Request) -> UserInfo:
    """Who sent `request` (the anonymous user when the server checks no credentials)."""
    user: UserInfo = request.get(USER_KEY, ANONYMOUS)
    return user


def authenticator(authentication: Authentication,
                  service_accounts: ServiceAccountAuthenticator) -> Callable[[web.Request], None]:
    """What the gate runs on each request: it sets the request's user, or raises Unauthorized."""
    tokens, certificates, anonymous = authentication.tokens, authentication.client_certificates, \
        authentication.anonymous
    lookup = token_lookup(tokens, service_accounts)

    def authenticate(request: web.Request) -> None:
        headers = request.headers
        user = _certificate_user(request) if certificates else None
        if user is None and ("Authorization" in headers or "Sec-WebSocket-Protocol" in headers):
            refused: Unauthorized | None = None
            try:
                user, warning = _bearer_user(headers.get("Authorization", ""), lookup)
            except Unauthorized as error:
                refused, warning = error, None
            if warning is not None:
                request[WARNING_KEY] = warning
            if user is None:
                user = _websocket_user(request, lookup)
            if user is None and refused is not None:
                raise refused
        if user is None:
            if not anonymous:
                raise Unauthorized("Unauthorized")
            user = ANONYMOUS
        request[USER_KEY] = user

    return authenticate


def token_lookup(tokens: Mapping[str, UserInfo] | None, service_accounts: ServiceAccountAuthenticator) -> TokenLookup:
    """The token file's tokens first, then service account tokens, as upstream's union of token
    authenticators tries them."""
    def lookup(token: str) -> UserInfo:
        user = tokens.get(token) if tokens is not None else None
        if user is not None:
            return user.authenticated()
        try:
            found = service_accounts.authenticate(token)
        except TokenRejected:
            found = None
        if found is None:
            raise Unauthorized("Unauthorized")
        return found.user.authenticated()

    return lookup


async def add_warning(request: web.BaseRequest, response: web.StreamResponse) -> None:
    """(on_response_prepare) The answer warns about a malformed Authorization header."""
    warning = request.get(WARNING_KEY)
    if warning is not None:
        response.headers.add("Warning", warning_header(warning))


def review_token(authentication: Authentication, service_accounts: ServiceAccountAuthenticator, token: str,
                 audiences: list[str]) -> TokenResult:
    """What upstream's TokenReview reports: the authenticators run on a request that carries only
    `Authorization: Bearer <token>`, for the audiences asked for (none: the API audiences). The token
    file's tokens are for the API audiences only (upstream's audience-agnostic wrapper); a token no
    authenticator knows is "invalid bearer token", and a service account token that does not authenticate
    gets its reason."""
    api_audiences = service_accounts.issuer.audiences
    wanted = audiences or list(api_audiences)
    static = [audience for audience in api_audiences if audience in wanted]
    parts = f"Bearer {token}".strip().split(" ", 2)
    bearer = parts[1] if len(parts) > 1 else ""
    if not bearer:  # a token that begins with a space is none
        return TokenResult(ANONYMOUS if authentication.anonymous else None)
    user = (authentication.tokens or {}).get(bearer) if static else None
    if user is not None:
        return TokenResult(user.authenticated(), audiences=tuple(static))
    try:
        found = service_accounts.authenticate(bearer, wanted)
    except TokenRejected as rejected:
        return TokenResult(None, str(rejected))
    if found is None:
        return TokenResult(None, "invalid bearer token")
    return TokenResult(found.user.authenticated(), audiences=found.audiences)


def _bearer_user(header: str, lookup: TokenLookup) -> tuple[UserInfo | None, str | None]:
    """The user of an Authorization header's bearer token; None without one (with a warning for one after
    two spaces); Unauthorized for a token no authenticator knows."""
    parts = header.strip().split(" ", 2)
    if len(parts) < 2 or parts[0].lower() != "bearer":
        return None, None
    if not parts[1]:
        return None, EXTRA_SPACE_WARNING if len(parts) == 3 else None
    return lookup(parts[1]), None


def _websocket_user(request: web.Request, lookup: TokenLookup) -> UserInfo | None:
    """The user of a bearer token sent as a WebSocket subprotocol; None without one."""
    if request.headers.get("Upgrade", "").lower() != "websocket":
        return None
    protocols = [part.strip() for header in request.headers.getall("Sec-WebSocket-Protocol", [])
                 for part in header.split(",") if part.strip()]
    encoded = [protocol[len(WEBSOCKET_TOKEN):] for protocol in protocols if protocol.startswith(WEBSOCKET_TOKEN)]
    if not encoded:
        return None
    if len(encoded) > 1 or len(encoded) == len(protocols):  # upstream: one token, and a protocol to answer
        raise Unauthorized("Unauthorized")
    try:
        token = base64.urlsafe_b64decode(encoded[0] + "=" * (-len(encoded[0]) % 4)).decode()
    except (binascii.Error, ValueError):
        raise Unauthorized("Unauthorized") from None
    return lookup(token)


def _certificate_user(request: web.Request) -> UserInfo | None:
    """The user a verified client certificate names, None without one (or without a CN in it)."""
    transport = request.transport
    ssl_object = transport.get_extra_info("ssl_object") if transport is not None else None
    if ssl_object is None:
        return None
    certificate = ssl_object.getpeercert()
    if not certificate:  # none sent (only verified certificates are given here)
        return None
    name, groups = "", []
    for attributes in certificate.get("subject", ()):
        for key, value in attributes:
            if key == "commonName":
                name = value  # the last CN, as Go's pkix.Name keeps it
            elif key == "organizationName":
                groups.append(value)
    if not name:
        return None
    fingerprint = hashlib.sha256(ssl_object.getpeercert(binary_form=True)).hexdigest()
    return UserInfo(name, "", tuple(groups), {CREDENTIAL_ID: (f"X509SHA256={fingerprint}",)}).authenticated()
