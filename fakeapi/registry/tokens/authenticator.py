"""Reading service account tokens back (upstream's JWT token authenticator with its bound and legacy
validators): a token is the authenticator's when it is a JWS whose `iss` is one of the server's issuers
(bound tokens) or `kubernetes/serviceaccount` (legacy Secret tokens); such a token then authenticates, or is
rejected with upstream's reason. The objects it names are read as stored, so a token stops working the
moment its ServiceAccount, Secret, Pod or Node is gone or made again under a new uid.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from fakeapi.machinery.clock import Clock
from fakeapi.machinery.jws import BadToken, parse, verify
from fakeapi.machinery.types import JSON
from fakeapi.machinery.users import UserInfo
from fakeapi.registry.tokens.claims import (
    LEGACY_ISSUER,
    LEGACY_NAMESPACE,
    LEGACY_SECRET_NAME,
    LEGACY_SERVICE_ACCOUNT_NAME,
    LEGACY_SERVICE_ACCOUNT_UID,
    PRIVATE,
    groups,
    username,
)
from fakeapi.registry.tokens.issuer import Issuer

LEEWAY = 60  # seconds of clock skew go-jose forgives (jwt.DefaultLeeway)
POD_NAME = "authentication.kubernetes.io/pod-name"
POD_UID = "authentication.kubernetes.io/pod-uid"
NODE_NAME = "authentication.kubernetes.io/node-name"
NODE_UID = "authentication.kubernetes.io/node-uid"
CREDENTIAL_ID = "authentication.kubernetes.io/credential-id"
SIGNATURE_ERROR = "square/go-jose: error in cryptographic primitive"
INVALIDATED = "service account token has been invalidated"

# (resource, namespace, name) -> the stored object, or None
Finder = Callable[[str, str, str], JSON | None]


class TokenRejected(Exception):
    """A service account token that does not authenticate; the message is upstream's."""


@dataclass(frozen=True)
class TokenUser:
    user: UserInfo  # without system:authenticated, which the caller adds as upstream's group adder does
    audiences: tuple[str, ...]  # the audiences asked for that the token is for


class ServiceAccountAuthenticator:
    def __init__(self, issuer: Issuer, find: Finder, clock: Clock) -> None:
        self.issuer = issuer
        self._find = find
        self._clock = clock

    def authenticate(self, token: str, audiences: Sequence[str] = ()) -> TokenUser | None:
        """The token's user for `audiences` (empty: the API audiences); None when it is no service account
        token of this server's; TokenRejected when it is one that does not authenticate."""
        try:
            parsed = parse(token)
        except BadToken:
            return None
        claimed_issuer = parsed.claims.get("iss")
        legacy = claimed_issuer == LEGACY_ISSUER
        if not legacy and claimed_issuer not in self.issuer.settings.issuers:
            return None
        if not verify(parsed, self.issuer.verifying_keys()):
            raise TokenRejected(SIGNATURE_ERROR)
        claims = parsed.claims
        implicit = list(self.issuer.audiences)
        token_audiences = _audiences(claims.get("aud")) or implicit
        requested = list(audiences) or implicit
        granted = tuple(audience for audience in token_audiences if audience in requested)
        if not granted:
            raise TokenRejected(f"token audiences {_go_quoted(token_audiences)} is invalid for the target audiences "
                                f"{_go_quoted(requested)}")
        user = self._legacy_user(token, claims) if legacy else self._bound_user(claims)
        return TokenUser(user, granted)

    def _bound_user(self, claims: dict[str, Any]) -> UserInfo:
        self._check_times(claims)
        private = claims.get(PRIVATE)
        if not isinstance(private, dict):
            private = {}
        namespace = _text(private.get("namespace"))
        account = _ref(private.get("serviceaccount")) or ("", "")
        service_account = self._find("serviceaccounts", namespace, account[0])
        if service_account is None:
            raise TokenRejected(f'serviceaccounts "{account[0]}" not found')
        metadata = service_account["metadata"]
        if metadata.get("deletionTimestamp"):
            raise TokenRejected(f"service account {namespace}/{account[0]} has been deleted")
        if metadata.get("uid", "") != account[1]:
            raise TokenRejected(f"service account UID ({metadata.get('uid', '')}) does not match claim ({account[1]})")
        extra: dict[str, tuple[str, ...]] = {}
        secret = _ref(private.get("secret"))
        if secret is not None:
            self._check_bound("secrets", namespace, secret, "secret UID ({}) does not match service account "
                              "secret ref claim ({})")
        pod = _ref(private.get("pod"))
        if pod is not None:
            self._check_bound("pods", namespace, pod, "pod UID ({}) does not match service account pod ref claim ({})")
            extra[POD_NAME], extra[POD_UID] = (pod[0],), (pod[1],)
        jti = _text(claims.get("jti"))
        if jti:
            extra[CREDENTIAL_ID] = (f"JTI={jti}",)
        node = _ref(private.get("node"))
        if node is not None:
            if pod is None:
                self._check_bound("nodes", "", node, "node UID ({}) does not match service account node ref claim ({})")
            extra[NODE_NAME] = (node[0],)
            if node[1]:
                extra[NODE_UID] = (node[1],)
        return UserInfo(username(namespace, account[0]), account[1], groups(namespace), extra)

    def _check_bound(self, resource: str, namespace: str, ref: tuple[str, str], mismatch: str) -> None:
        obj = self._find(resource, namespace, ref[0])
        if obj is None or obj["metadata"].get("deletionTimestamp"):
            raise TokenRejected(INVALIDATED)
        uid = obj["metadata"].get("uid", "")
        if uid != ref[1]:
            raise TokenRejected(mismatch.format(uid, ref[1]))

    def _check_times(self, claims: dict[str, Any]) -> None:
        """go-jose's Claims.Validate with its minute of leeway, in its order."""
        now = self._clock.now().timestamp()
        expiry, not_before, issued = claims.get("exp"), claims.get("nbf"), claims.get("iat")
        if isinstance(not_before, int | float) and now + LEEWAY < not_before:
            raise TokenRejected("service account token is not valid yet")
        if isinstance(expiry, int | float) and now - LEEWAY > expiry:
            raise TokenRejected("service account token has expired")
        if isinstance(issued, int | float) and now + LEEWAY < issued:
            raise TokenRejected("service account token claims could not be validated due to unexpected "
                                "validation error")

    def _legacy_user(self, token: str, claims: dict[str, Any]) -> UserInfo:
        namespace, secret_name = _text(claims.get(LEGACY_NAMESPACE)), _text(claims.get(LEGACY_SECRET_NAME))
        name, uid = _text(claims.get(LEGACY_SERVICE_ACCOUNT_NAME)), _text(claims.get(LEGACY_SERVICE_ACCOUNT_UID))
        for value, why in ((namespace, "namespace claim is missing"), (secret_name, "secretName claim is missing"),
                           (name, "serviceAccountName claim is missing"),
                           (uid, "serviceAccountUID claim is missing")):
            if not value:
                raise TokenRejected(why)
        if claims.get("sub") != username(namespace, name):
            raise TokenRejected("sub claim is invalid")
        secret = self._find("secrets", namespace, secret_name)
        if secret is None or secret["metadata"].get("deletionTimestamp"):
            raise TokenRejected("Token has been invalidated")
        if (secret.get("data") or {}).get("token") != base64.b64encode(token.encode()).decode():
            raise TokenRejected("Token does not match server's copy")
        service_account = self._find("serviceaccounts", namespace, name)
        if service_account is None:
            raise TokenRejected(f'serviceaccounts "{name}" not found')
        metadata = service_account["metadata"]
        if metadata.get("deletionTimestamp"):
            raise TokenRejected(f"ServiceAccount {namespace}/{name} has been deleted")
        if metadata.get("uid", "") != uid:
            raise TokenRejected(f"ServiceAccount UID ({metadata.get('uid', '')}) does not match claim ({uid})")
        return UserInfo(username(namespace, name), uid, groups(namespace))


def _audiences(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [item for item in value if isinstance(item, str)]
    return []


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _ref(value: Any) -> tuple[str, str] | None:
    if not isinstance(value, dict):
        return None
    return _text(value.get("name")), _text(value.get("uid"))


def _go_quoted(values: list[str]) -> str:
    """A []string as Go's %q writes it."""
    return "[" + " ".join(json.dumps(value) for value in values) + "]"
