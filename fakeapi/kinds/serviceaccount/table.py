"""ServiceAccount Table cells: upstream v1.32 `printServiceAccount` (NAME, SECRETS, AGE)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fakeapi.machinery.tables.columns import AGE_COLUMN, NAME_COLUMN, Column, Printer
from fakeapi.machinery.tables.timefmt import age
from fakeapi.machinery.types import JSON


def service_account_cells(account: JSON, now: datetime) -> list[Any]:
    meta: JSON = account.get("metadata") or {}
    return [meta.get("name", ""), len(account.get("secrets") or []), age(meta.get("creationTimestamp"), now)]


_COLUMNS = (
    NAME_COLUMN,
    Column("Secrets", "string", "", 0,
           "Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount "
           "are allowed to use. Pods are only limited to this list if this service account has a "
           "\"kubernetes.io/enforce-mountable-secrets\" annotation set to \"true\". The "
           "\"kubernetes.io/enforce-mountable-secrets\" annotation is deprecated since v1.32. Prefer separate "
           "namespaces to isolate access to mounted secrets. This field should not be used to find "
           "auto-generated service account token secrets for use outside of pods. Instead, tokens can be "
           "requested directly using the TokenRequest API, or service account token secrets can be manually "
           "created. More info: https://kubernetes.io/docs/concepts/configuration/secret"),
    AGE_COLUMN,
)

SERVICE_ACCOUNT_PRINTER = Printer(_COLUMNS, service_account_cells)
