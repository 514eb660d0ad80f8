"""Secret Table cells: upstream v1.32 `printSecret` (NAME, TYPE, DATA, AGE)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fakeapi.machinery.tables.columns import AGE_COLUMN, NAME_COLUMN, Column, Printer
from fakeapi.machinery.tables.timefmt import age
from fakeapi.machinery.types import JSON


def secret_cells(secret: JSON, now: datetime) -> list[Any]:
    meta: JSON = secret.get("metadata") or {}
    return [meta.get("name", ""), secret.get("type") or "", len(secret.get("data") or {}),
            age(meta.get("creationTimestamp"), now)]


_COLUMNS = (
    NAME_COLUMN,
    Column("Type", "string", "", 0,
           "Used to facilitate programmatic handling of secret data. More info: "
           "https://kubernetes.io/docs/concepts/configuration/secret/#secret-types"),
    Column("Data", "string", "", 0,
           "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. "
           "The serialized form of the secret data is a base64 encoded string, representing the arbitrary "
           "(possibly non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4"),
    AGE_COLUMN,
)

SECRET_PRINTER = Printer(_COLUMNS, secret_cells)
