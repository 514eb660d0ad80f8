"""The fields of a Namespace that field selectors match (upstream's NamespaceToSelectableFields)."""

from __future__ import annotations

from fakeapi.machinery.fieldselectors import FieldLabels, exposed_labels
from fakeapi.machinery.types import JSON

_NONE: JSON = {}


def namespace_fields(namespace: JSON) -> dict[str, str]:
    return {
        "metadata.name": (namespace.get("metadata") or _NONE).get("name") or "",
        "status.phase": (namespace.get("status") or _NONE).get("phase") or "",
    }


NAMESPACE_FIELD_LABELS = FieldLabels(namespace_fields, exposed_labels(namespace_fields))
