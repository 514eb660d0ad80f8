"""How the server issues and checks service account tokens: kube-apiserver's --service-account-* flags."""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_ISSUER = "https://kubernetes.default.svc.cluster.local"


@dataclass(frozen=True)
class ServiceAccountSettings:
    # --service-account-issuer (repeatable): the first signs, every one is accepted
    issuers: tuple[str, ...] = (DEFAULT_ISSUER,)
    # --api-audiences: what a token is for when no audience is asked for (empty: the issuers)
    api_audiences: tuple[str, ...] = ()
    signing_key: bytes | None = None  # --service-account-signing-key-file (PEM; None: made at the first token)
    verifying_keys: bytes | None = None  # --service-account-key-file (PEM): more keys tokens may be signed with
    max_expiration: int = 0  # --service-account-max-token-expiration in seconds (0: none)
    extend_expiration: bool = True  # --service-account-extend-token-expiration
    jwks_uri: str = ""  # --service-account-jwks-uri (empty: this server's /openid/v1/jwks)
