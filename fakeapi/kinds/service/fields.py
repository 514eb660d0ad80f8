"""The fields of a Service that field selectors match (upstream's SelectableFields: spec.clusterIP and
spec.type besides metadata)."""

from __future__ import annotations

from fakeapi.machinery.fieldselectors import FieldLabels, exposed_labels, metadata_fields
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation.values import as_dict, as_str


def service_fields(service: JSON) -> dict[str, str]:
    spec = as_dict(service.get("spec"))
    return {**metadata_fields(service), "spec.clusterIP": as_str(spec.get("clusterIP")),
            "spec.type": as_str(spec.get("type"))}


SERVICE_FIELD_LABELS = FieldLabels(service_fields, exposed_labels(service_fields))
