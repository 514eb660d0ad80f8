"""The fields of a Node that field selectors match (upstream's NodeToSelectableFields)."""

from __future__ import annotations

from fakeapi.machinery.fieldselectors import FieldLabels, exposed_labels
from fakeapi.machinery.types import JSON

_NONE: JSON = {}


def node_fields(node: JSON) -> dict[str, str]:
    return {
        "metadata.name": (node.get("metadata") or _NONE).get("name") or "",
        "spec.unschedulable": "true" if (node.get("spec") or _NONE).get("unschedulable") else "false",
    }


NODE_FIELD_LABELS = FieldLabels(node_fields, exposed_labels(node_fields))
