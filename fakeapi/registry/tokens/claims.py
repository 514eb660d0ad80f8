"""The claims of the tokens the server signs, as upstream's serviceaccount.Claims and LegacyClaims write them."""

from __future__ import annotations

from typing import Any

from fakeapi.machinery.types import JSON

LEGACY_ISSUER = "kubernetes/serviceaccount"
LEGACY_NAMESPACE = "kubernetes.io/serviceaccount/namespace"
LEGACY_SECRET_NAME = "kubernetes.io/serviceaccount/secret.name"
LEGACY_SERVICE_ACCOUNT_NAME = "kubernetes.io/serviceaccount/service-account.name"
LEGACY_SERVICE_ACCOUNT_UID = "kubernetes.io/serviceaccount/service-account.uid"
PRIVATE = "kubernetes.io"
# the kubelet asks for this lifetime; a pod's token for the API audiences then lives a year, and warns after it
WARN_ONLY_EXPIRATION = 60 * 60 + 7
EXTENDED_EXPIRATION = 24 * 365 * 60 * 60


def username(namespace: str, name: str) -> str:
    return f"system:serviceaccount:{namespace}:{name}"


def groups(namespace: str) -> tuple[str, ...]:
    return "system:serviceaccounts", f"system:serviceaccounts:{namespace}"


def bound_claims(issuer: str, service_account: JSON, audiences: list[str], now: int, expiration: int, jti: str, *,
                 pod: JSON | None = None, secret: JSON | None = None, node: JSON | None = None,
                 warn_after: int = 0) -> dict[str, Any]:
    """A TokenRequest's token: bound to at most one object (a pod's token also names the pod's node)."""
    metadata = service_account["metadata"]
    private: dict[str, Any] = {"namespace": metadata["namespace"],
                               "serviceaccount": _ref(service_account)}
    if pod is not None:
        private["pod"] = _ref(pod)
    elif secret is not None:
        private["secret"] = _ref(secret)
    if node is not None:
        private["node"] = _ref(node)
    if warn_after:
        private["warnafter"] = now + warn_after
    return {"iss": issuer, "sub": username(metadata["namespace"], metadata["name"]),
            "aud": audiences, "exp": now + expiration, "iat": now, "nbf": now, "jti": jti, PRIVATE: private}


def legacy_claims(service_account: JSON, secret_name: str) -> dict[str, Any]:
    """The token the tokens controller writes into a service-account-token Secret: no audience, no expiry."""
    metadata = service_account["metadata"]
    return {"iss": LEGACY_ISSUER, LEGACY_NAMESPACE: metadata["namespace"], LEGACY_SECRET_NAME: secret_name,
            LEGACY_SERVICE_ACCOUNT_NAME: metadata["name"], LEGACY_SERVICE_ACCOUNT_UID: metadata.get("uid", ""),
            "sub": username(metadata["namespace"], metadata["name"])}


def _ref(obj: JSON) -> dict[str, str]:
    metadata = obj["metadata"]
    ref = {"name": metadata["name"]}
    if metadata.get("uid"):
        ref["uid"] = metadata["uid"]
    return ref
