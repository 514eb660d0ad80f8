"""ControllerRevision validation (upstream apps ValidateControllerRevision, ValidateControllerRevisionUpdate)."""

from __future__ import annotations

from typing import Any

import orjson

from fakeapi.kinds.workload.validation import nonnegative
from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation import names
from fakeapi.machinery.validation.objectmeta import (
    FIELD_IMMUTABLE,
    validate_object_meta,
    validate_object_meta_update,
)
from fakeapi.machinery.validation.values import GoText, as_dict, semantic_equal


def validate_controller_revision(revision: JSON) -> list[FieldError]:
    errs = validate_object_meta(as_dict(revision.get("metadata")), True, "metadata", names.name_is_dns_subdomain)
    if not revision.get("data"):  # absent data decodes as Go's empty RawExtension
        errs.append(fe.required("data", "data is mandatory"))
    return errs + nonnegative(revision.get("revision"), "revision")


def validate_controller_revision_update(new: JSON, old: JSON) -> list[FieldError]:
    errs = validate_object_meta_update(as_dict(new.get("metadata")), as_dict(old.get("metadata")))
    errs += validate_controller_revision(new)
    if not semantic_equal(new.get("data"), old.get("data")):
        errs.append(fe.invalid("data", _go_raw_extension(new.get("data")), FIELD_IMMUTABLE))
    return errs


def _go_raw_extension(data: Any) -> GoText:
    """runtime.RawExtension as `%#v` prints it: the JSON bytes, one hex byte each."""
    if data is None:
        return GoText("runtime.RawExtension{Raw:[]uint8(nil), Object:runtime.Object(nil)}")
    raw = ", ".join(f"0x{byte:x}" for byte in orjson.dumps(data))
    return GoText(f"runtime.RawExtension{{Raw:[]uint8{{{raw}}}, Object:runtime.Object(nil)}}")
