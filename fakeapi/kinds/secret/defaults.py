"""Decode-time defaulting and conversion of Secrets (upstream SetDefaults_Secret, Convert_v1_Secret_To_core_Secret)."""

from __future__ import annotations

from fakeapi.machinery import gobase64
from fakeapi.machinery.types import JSON

OPAQUE = "Opaque"


def default_secret(secret: JSON) -> None:
    """`type` defaults to Opaque; `stringData` is merged into `data` (its values win) and never kept; an
    empty `data` is dropped, as Go writes an empty map field with omitempty as nothing."""
    string_data = secret.pop("stringData", None)
    if string_data:
        data: JSON = secret.get("data") or {}
        for key, value in string_data.items():
            data[key] = gobase64.encode(str(value).encode())
        secret["data"] = data
    if not secret.get("data"):
        secret.pop("data", None)
    if not secret.get("type"):
        secret["type"] = OPAQUE
