"""core/v1 Service: defaults, strategies (service, status), validation, the spec.clusterIP and spec.type
field selectors and Table columns; addresses and ports are given out by fakeapi.registry.serviceallocation."""

from __future__ import annotations

from fakeapi.kinds.kind import STATUS_VERBS, Kind, ResourceInfo, SubresourceInfo
from fakeapi.kinds.service.fields import SERVICE_FIELD_LABELS
from fakeapi.kinds.service.strategy import ServiceStatusStrategy, ServiceStrategy
from fakeapi.kinds.service.table import SERVICE_PRINTER

SERVICE = Kind(
    ResourceInfo(
        "services", "Service", namespaced=True, singular="service", short_names=("svc",), categories=("all",),
        subresources=(SubresourceInfo("status", "Service", STATUS_VERBS),),
        definition="io.k8s.api.core.v1.Service",
    ),
    ServiceStrategy(),
    {"status": ServiceStatusStrategy()},
    SERVICE_PRINTER,
    SERVICE_FIELD_LABELS,
)
