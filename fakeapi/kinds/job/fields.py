"""The fields of a Job that field selectors match (upstream's JobToSelectableFields: status.successful)."""

from __future__ import annotations

from fakeapi.machinery.fieldselectors import FieldLabels, exposed_labels, metadata_fields
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation.values import as_dict, as_int


def job_fields(job: JSON) -> dict[str, str]:
    return {**metadata_fields(job), "status.successful": str(as_int(as_dict(job.get("status")).get("succeeded")))}


JOB_FIELD_LABELS = FieldLabels(job_fields, exposed_labels(job_fields))
