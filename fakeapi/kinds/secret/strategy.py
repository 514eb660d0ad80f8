"""Secret strategy (upstream pkg/registry/core/secret): no server-owned fields, unconditional updates, and
a warning when a TLS secret's certificate and key do not form a pair.

Upstream's PrepareForUpdate keeps the stored type when the new one is empty; decode-time defaulting (type
Opaque) means a v1 request never gets there, so an update without `type` meets the immutable-type check.
"""

from __future__ import annotations

from fakeapi.kinds.secret.defaults import default_secret
from fakeapi.kinds.secret.tlspair import key_pair_error
from fakeapi.kinds.secret.validation import (
    TLS,
    TLS_CERT_KEY,
    TLS_PRIVATE_KEY_KEY,
    validate_secret,
    validate_secret_update,
)
from fakeapi.kinds.strategy import Strategy
from fakeapi.machinery import gobase64
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON


class SecretStrategy(Strategy):
    validation_covers_object_meta = True  # validate_secret checks ObjectMeta with DNS names

    def default(self, obj: JSON) -> None:
        default_secret(obj)

    def validate(self, obj: JSON) -> list[FieldError]:
        return validate_secret(obj)

    def warnings_on_create(self, obj: JSON) -> list[str]:
        return _tls_warnings(obj)

    def validate_update(self, new: JSON, old: JSON) -> list[FieldError]:
        return validate_secret_update(new, old)

    def warnings_on_update(self, new: JSON, old: JSON) -> list[str]:
        return _tls_warnings(new)


def _tls_warnings(secret: JSON) -> list[str]:
    if secret.get("type") != TLS:
        return []
    data: JSON = secret.get("data") or {}
    error = key_pair_error(gobase64.decode(data.get(TLS_CERT_KEY) or ""),
                           gobase64.decode(data.get(TLS_PRIVATE_KEY_KEY) or ""))
    return [error] if error else []
