"""Lease Table columns: upstream v1.32 `printLease`, as paths into the object."""

from __future__ import annotations

from fakeapi.machinery.tables.columns import AGE_COLUMN, NAME_COLUMN, Column, PathColumn, path_printer

LEASE_PRINTER = path_printer((
    PathColumn(NAME_COLUMN, ".metadata.name", missing=""),
    # the v1.32 swagger doc of LeaseSpec.holderIdentity, as upstream's printer reads it
    PathColumn(Column("Holder", "string", "", 0,
                      "holderIdentity contains the identity of the holder of a current lease. If Coordinated "
                      "Leader Election is used, the holder identity must be equal to the elected "
                      "LeaseCandidate.metadata.name field."),
               ".spec.holderIdentity", missing=""),
    PathColumn(AGE_COLUMN, ".metadata.creationTimestamp", age=True, missing="<unknown>"),
))
