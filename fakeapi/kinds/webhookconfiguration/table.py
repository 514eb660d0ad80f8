"""Webhook configuration Table columns: upstream v1.32 `printMutatingWebhook` / `printValidatingWebhook`."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fakeapi.machinery.tables.columns import AGE_COLUMN, NAME_COLUMN, Column, Printer
from fakeapi.machinery.tables.timefmt import age
from fakeapi.machinery.types import JSON


def _cells(obj: JSON, now: datetime) -> list[Any]:
    meta: JSON = obj.get("metadata") or {}
    created = meta.get("creationTimestamp")
    webhooks = obj.get("webhooks")
    return [meta.get("name", ""), len(webhooks) if isinstance(webhooks, list) else 0,
            age(created, now) if isinstance(created, str) else "<unknown>"]


WEBHOOK_CONFIGURATION_PRINTER = Printer(
    (NAME_COLUMN, Column("Webhooks", "integer", "", 0, "Webhooks is a list of webhooks and the affected resources "
                         "and operations."), AGE_COLUMN),
    _cells,
)
