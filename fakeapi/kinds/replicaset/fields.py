"""The fields of a ReplicaSet (and a ReplicationController) that field selectors match (upstream's
ReplicaSetToSelectableFields: status.replicas besides metadata)."""

from __future__ import annotations

from fakeapi.machinery.fieldselectors import FieldLabels, exposed_labels, metadata_fields
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation.values import as_dict, as_int


def replicas_fields(obj: JSON) -> dict[str, str]:
    return {**metadata_fields(obj), "status.replicas": str(as_int(as_dict(obj.get("status")).get("replicas")))}


REPLICAS_FIELD_LABELS = FieldLabels(replicas_fields, exposed_labels(replicas_fields))
