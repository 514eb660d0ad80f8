"""The server's service account issuer: the key tokens are signed with (made at the first token, unless a
key file gave one), the keys tokens are checked with, and the OpenID discovery documents that publish them."""

from __future__ import annotations

from typing import Any

from fakeapi.machinery.jws import SigningKey, VerifyingKey, verifying_keys_from_pem
from fakeapi.machinery.serviceaccountsettings import ServiceAccountSettings

JWKS_PATH = "/openid/v1/jwks"
DISCOVERY_PATH = "/.well-known/openid-configuration"


class Issuer:
    """Signs tokens as `settings.issuers[0]`; accepts tokens of every issuer given, signed by the signing
    key or one of the verifying keys (upstream's --service-account-key-file)."""

    def __init__(self, settings: ServiceAccountSettings) -> None:
        self.settings = settings
        self._signing: SigningKey | None = None
        self._extra: list[VerifyingKey] | None = None

    @property
    def name(self) -> str:
        return self.settings.issuers[0]

    @property
    def audiences(self) -> tuple[str, ...]:
        """The API audiences (--api-audiences, by default the issuers): what a token is for when no
        audience is asked for."""
        return self.settings.api_audiences or self.settings.issuers

    @property
    def signing_key(self) -> SigningKey:
        if self._signing is None:
            key = self.settings.signing_key
            self._signing = SigningKey.from_pem(key) if key is not None else SigningKey.generate()
        return self._signing

    def verifying_keys(self) -> list[VerifyingKey]:
        if self._extra is None:
            pem = self.settings.verifying_keys
            self._extra = verifying_keys_from_pem(pem) if pem is not None else []
        keys = [self.signing_key.public, *self._extra]
        return list({key.kid: key for key in keys}.values())

    def sign(self, claims: dict[str, Any]) -> str:
        return self.signing_key.sign(claims)

    def jwks(self) -> dict[str, Any]:
        """GET /openid/v1/jwks: the public keys tokens are checked with."""
        return {"keys": [key.jwk() for key in self.verifying_keys()]}

    def discovery(self, base_url: str) -> dict[str, Any]:
        """GET /.well-known/openid-configuration (the keys' address is --service-account-jwks-uri, else this
        server's own, as upstream derives it from its external address)."""
        algorithms = sorted({key.algorithm for key in self.verifying_keys()})
        return {"issuer": self.name, "jwks_uri": self.settings.jwks_uri or base_url + JWKS_PATH,
                "response_types_supported": ["id_token"], "subject_types_supported": ["public"],
                "id_token_signing_alg_values_supported": algorithms}
