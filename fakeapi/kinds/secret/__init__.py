"""core/v1 Secret: defaults (type, stringData merged into data), strategy, validation per type,
field selectors and Table columns."""

from __future__ import annotations

from fakeapi.kinds.kind import Kind, ResourceInfo
from fakeapi.kinds.secret.fields import SECRET_FIELD_LABELS
from fakeapi.kinds.secret.strategy import SecretStrategy
from fakeapi.kinds.secret.table import SECRET_PRINTER

SECRET = Kind(
    ResourceInfo("secrets", "Secret", namespaced=True, singular="secret", returns_deleted_object=False,
                 definition="io.k8s.api.core.v1.Secret"),
    SecretStrategy(),
    printer=SECRET_PRINTER,
    field_labels=SECRET_FIELD_LABELS,
)
