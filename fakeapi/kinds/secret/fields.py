"""The fields of a Secret that field selectors match (upstream's secret SelectableFields)."""

from __future__ import annotations

from fakeapi.machinery.fieldselectors import FieldLabels, exposed_labels
from fakeapi.machinery.types import JSON

_NONE: JSON = {}


def secret_fields(secret: JSON) -> dict[str, str]:
    meta = secret.get("metadata") or _NONE
    return {
        "metadata.name": meta.get("name") or "",
        "metadata.namespace": meta.get("namespace") or "",
        "type": secret.get("type") or "",
    }


SECRET_FIELD_LABELS = FieldLabels(secret_fields, exposed_labels(secret_fields))
