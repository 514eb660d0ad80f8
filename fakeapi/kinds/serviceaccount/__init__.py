"""core/v1 ServiceAccount: strategy, validation and Table columns."""

from __future__ import annotations

from fakeapi.kinds.kind import Kind, ResourceInfo, SubresourceInfo
from fakeapi.kinds.serviceaccount.strategy import ServiceAccountStrategy
from fakeapi.kinds.serviceaccount.table import SERVICE_ACCOUNT_PRINTER

SERVICE_ACCOUNT = Kind(
    ResourceInfo("serviceaccounts", "ServiceAccount", namespaced=True, singular="serviceaccount",
                 short_names=("sa",), definition="io.k8s.api.core.v1.ServiceAccount",
                 subresources=(SubresourceInfo("token", "TokenRequest", ("create",), group="authentication.k8s.io",
                                               version="v1", definition="io.k8s.api.authentication.v1.TokenRequest"),)),
    ServiceAccountStrategy(),
    printer=SERVICE_ACCOUNT_PRINTER,
)
