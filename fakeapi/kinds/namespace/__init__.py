"""core/v1 Namespace: defaults, strategy, validation and Table columns."""

from __future__ import annotations

from fakeapi.kinds.kind import STATUS_VERBS, Kind, ResourceInfo, SubresourceInfo
from fakeapi.kinds.namespace.fields import NAMESPACE_FIELD_LABELS
from fakeapi.kinds.namespace.strategy import NamespaceFinalizeStrategy, NamespaceStatusStrategy, NamespaceStrategy
from fakeapi.kinds.namespace.table import NAMESPACE_PRINTER

NAMESPACE = Kind(
    ResourceInfo(
        "namespaces", "Namespace", namespaced=False, singular="namespace", short_names=("ns",),
        verbs=("create", "delete", "get", "list", "patch", "update", "watch"),
        subresources=(SubresourceInfo("finalize", "Namespace", ("update",)),
                      SubresourceInfo("status", "Namespace", STATUS_VERBS)),
        definition="io.k8s.api.core.v1.Namespace",
    ),
    NamespaceStrategy(),
    {"status": NamespaceStatusStrategy(), "finalize": NamespaceFinalizeStrategy()},
    NAMESPACE_PRINTER,
    NAMESPACE_FIELD_LABELS,
)
