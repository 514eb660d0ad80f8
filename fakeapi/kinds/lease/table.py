"""Lease Table cells: upstream v1.32 `printLease`."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fakeapi.machinery.tables.columns import AGE_COLUMN, NAME_COLUMN, Column, Printer
from fakeapi.machinery.tables.timefmt import age
from fakeapi.machinery.types import JSON


def lease_cells(lease: JSON, now: datetime) -> list[Any]:
    meta: JSON = lease.get("metadata") or {}
    holder = (lease.get("spec") or {}).get("holderIdentity") or ""
    return [meta.get("name", ""), holder, age(meta.get("creationTimestamp"), now)]


_COLUMNS = (
    NAME_COLUMN,
    # the v1.32 swagger doc of LeaseSpec.holderIdentity, as upstream's printer reads it
    Column("Holder", "string", "", 0,
           "holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader "
           "Election is used, the holder identity must be equal to the elected LeaseCandidate.metadata.name "
           "field."),
    AGE_COLUMN,
)

LEASE_PRINTER = Printer(_COLUMNS, lease_cells)
