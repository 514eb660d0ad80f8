"""Signed JSON Web Tokens (compact JWS) as kube-apiserver writes and reads service account tokens: ES256 or
RS256, the key named by `kid` (the unpadded base64url SHA-256 of the public key's PKIX DER, upstream's key
id), claims as sorted JSON (go-jose merges the claim structs into a map, which Go encodes sorted).

`cryptography` is imported only by the servers that sign or check a token.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.types import PrivateKeyTypes, PublicKeyTypes

ES256, RS256 = "ES256", "RS256"


class KeyFileError(ValueError):
    """A key file fakeapi cannot sign or verify with, in a sentence."""


class BadToken(ValueError):
    """A token that is not a well-formed compact JWS, or whose signature no key verifies."""


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64(text: str) -> bytes:
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        raise BadToken("illegal base64 data") from None


@dataclass(frozen=True)
class VerifyingKey:
    """A public key tokens are checked with."""

    key: PublicKeyTypes
    kid: str
    algorithm: str

    def jwk(self) -> dict[str, Any]:
        """The key as /openid/v1/jwks lists it (go-jose's field order)."""
        from cryptography.hazmat.primitives.asymmetric import ec, rsa

        if isinstance(self.key, ec.EllipticCurvePublicKey):
            numbers = self.key.public_numbers()
            return {"use": "sig", "kty": "EC", "kid": self.kid, "crv": "P-256", "alg": ES256,
                    "x": b64(numbers.x.to_bytes(32, "big")), "y": b64(numbers.y.to_bytes(32, "big"))}
        assert isinstance(self.key, rsa.RSAPublicKey)
        rsa_numbers = self.key.public_numbers()
        return {"use": "sig", "kty": "RSA", "kid": self.kid, "alg": RS256,
                "n": b64(_big_endian(rsa_numbers.n)), "e": b64(_big_endian(rsa_numbers.e))}

    def verifies(self, signed: bytes, signature: bytes, algorithm: str) -> bool:
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
        from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

        if algorithm != self.algorithm:
            return False
        try:
            if isinstance(self.key, ec.EllipticCurvePublicKey):
                if len(signature) != 64:
                    return False
                der = encode_dss_signature(int.from_bytes(signature[:32], "big"),
                                           int.from_bytes(signature[32:], "big"))
                self.key.verify(der, signed, ec.ECDSA(hashes.SHA256()))
            else:
                assert isinstance(self.key, rsa.RSAPublicKey)
                self.key.verify(signature, signed, padding.PKCS1v15(), hashes.SHA256())
        except InvalidSignature:
            return False
        return True


class SigningKey:
    """A private key that signs tokens, with its public half."""

    def __init__(self, key: PrivateKeyTypes) -> None:
        from cryptography.hazmat.primitives.asymmetric import ec, rsa

        if isinstance(key, ec.EllipticCurvePrivateKey) and isinstance(key.curve, ec.SECP256R1):
            algorithm = ES256
        elif isinstance(key, rsa.RSAPrivateKey):
            algorithm = RS256
        else:
            raise KeyFileError("the service account signing key must be an RSA or an EC P-256 private key")
        self._key = key
        self.public = verifying_key(key.public_key(), algorithm)

    @classmethod
    def generate(cls) -> SigningKey:
        """A new EC P-256 key: made in well under a millisecond, where an RSA key takes tens."""
        from cryptography.hazmat.primitives.asymmetric import ec

        return cls(ec.generate_private_key(ec.SECP256R1()))

    @classmethod
    def from_pem(cls, pem: bytes) -> SigningKey:
        from cryptography.hazmat.primitives import serialization

        try:
            return cls(serialization.load_pem_private_key(pem, password=None))
        except TypeError:
            raise KeyFileError("its private key is encrypted") from None
        except ValueError:
            raise KeyFileError("it holds no PEM private key") from None

    def sign(self, claims: dict[str, Any]) -> str:
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
        from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

        header = {"alg": self.public.algorithm, "kid": self.public.kid}
        signed = f"{b64(orjson.dumps(header))}.{b64(orjson.dumps(claims, option=orjson.OPT_SORT_KEYS))}"
        if isinstance(self._key, ec.EllipticCurvePrivateKey):
            r, s = decode_dss_signature(self._key.sign(signed.encode(), ec.ECDSA(hashes.SHA256())))
            signature = r.to_bytes(32, "big") + s.to_bytes(32, "big")
        else:
            assert isinstance(self._key, rsa.RSAPrivateKey)
            signature = self._key.sign(signed.encode(), padding.PKCS1v15(), hashes.SHA256())
        return f"{signed}.{b64(signature)}"


def verifying_key(key: PublicKeyTypes, algorithm: str | None = None) -> VerifyingKey:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec, rsa

    if algorithm is None:
        if isinstance(key, ec.EllipticCurvePublicKey) and isinstance(key.curve, ec.SECP256R1):
            algorithm = ES256
        elif isinstance(key, rsa.RSAPublicKey):
            algorithm = RS256
        else:
            raise KeyFileError("a service account key must be an RSA or an EC P-256 key")
    der = key.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return VerifyingKey(key, b64(hashlib.sha256(der).digest()), algorithm)


def verifying_keys_from_pem(pem: bytes) -> list[VerifyingKey]:
    """The public keys of a PEM file (upstream's --service-account-key-file: public keys, private keys whose
    public half is taken, or certificates)."""
    import re

    from cryptography import x509
    from cryptography.hazmat.primitives import serialization

    keys: list[VerifyingKey] = []
    for match in re.finditer(rb"-----BEGIN ([A-Z ]+)-----.+?-----END \1-----", pem, re.DOTALL):
        kind, text = match.group(1), match.group(0)
        try:
            if kind == b"CERTIFICATE":
                keys.append(verifying_key(x509.load_pem_x509_certificate(text).public_key()))
            elif kind.endswith(b"PRIVATE KEY"):
                keys.append(verifying_key(serialization.load_pem_private_key(text, password=None).public_key()))
            elif kind.endswith(b"PUBLIC KEY"):
                keys.append(verifying_key(serialization.load_pem_public_key(text)))
        except (ValueError, TypeError):
            raise KeyFileError(f"its {kind.decode()} cannot be read") from None
    if not keys:
        raise KeyFileError("it holds no PEM key or certificate")
    return keys


@dataclass(frozen=True)
class Parsed:
    """A compact JWS taken apart, signature not yet checked."""

    algorithm: str
    kid: str
    claims: dict[str, Any]
    signed: bytes
    signature: bytes


def parse(token: str) -> Parsed:
    """BadToken for anything but three base64url parts, a JSON header and a JSON object of claims."""
    parts = token.split(".")
    if len(parts) != 3:
        raise BadToken("compact JWS format must have three parts")
    try:
        header = orjson.loads(unb64(parts[0]))
        claims = orjson.loads(unb64(parts[1]))
    except orjson.JSONDecodeError:
        raise BadToken("invalid JSON") from None
    if not isinstance(header, dict) or not isinstance(claims, dict):
        raise BadToken("invalid JSON")
    algorithm, kid = header.get("alg"), header.get("kid", "")
    if not isinstance(algorithm, str) or not isinstance(kid, str):
        raise BadToken("invalid header")
    return Parsed(algorithm, kid, claims, f"{parts[0]}.{parts[1]}".encode(), unb64(parts[2]))


def unverified_claims(token: str) -> dict[str, Any] | None:
    """The claims of a token as written, None if it is no JWS (what upstream reads the issuer from before
    checking any signature)."""
    try:
        return parse(token).claims
    except BadToken:
        return None


def verify(parsed: Parsed, keys: list[VerifyingKey]) -> bool:
    """Whether one of `keys` signed the token."""
    return any(key.verifies(parsed.signed, parsed.signature, parsed.algorithm) for key in keys)


def _big_endian(number: int) -> bytes:
    return number.to_bytes((number.bit_length() + 7) // 8 or 1, "big")
