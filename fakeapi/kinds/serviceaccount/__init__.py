"""core/v1 ServiceAccount: strategy, validation and Table columns."""

from __future__ import annotations

from fakeapi.kinds.kind import Kind, ResourceInfo
from fakeapi.kinds.serviceaccount.strategy import ServiceAccountStrategy
from fakeapi.kinds.serviceaccount.table import SERVICE_ACCOUNT_PRINTER

# the token subresource (TokenRequest) is not served, so discovery does not list it
SERVICE_ACCOUNT = Kind(
    ResourceInfo("serviceaccounts", "ServiceAccount", namespaced=True, singular="serviceaccount",
                 short_names=("sa",), definition="io.k8s.api.core.v1.ServiceAccount"),
    ServiceAccountStrategy(),
    printer=SERVICE_ACCOUNT_PRINTER,
)
