"""coordination.k8s.io/v1 Lease: strategy, validation and Table columns (the first kind in a named
API group)."""

from __future__ import annotations

from fakeapi.kinds.kind import Kind, ResourceInfo
from fakeapi.kinds.lease.strategy import LeaseStrategy
from fakeapi.kinds.lease.table import LEASE_PRINTER

COORDINATION_GROUP = "coordination.k8s.io"

LEASE = Kind(
    ResourceInfo("leases", "Lease", namespaced=True, singular="lease", group=COORDINATION_GROUP,
                 returns_deleted_object=False, definition="io.k8s.api.coordination.v1.Lease"),
    LeaseStrategy(),
    printer=LEASE_PRINTER,
)
