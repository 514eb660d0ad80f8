"""Which patch function a PATCH Content-Type means, with the resource's merge keys (its PatchTree)."""

from __future__ import annotations

from functools import partial

from fakeapi.machinery.patch import (
    JSON_PATCH,
    MERGE_PATCH,
    STRATEGIC_MERGE_PATCH,
    apply_json_patch,
    apply_merge_patch,
    apply_strategic_merge_patch,
)
from fakeapi.machinery.types import JSON
from fakeapi.registry.generic import Patcher


def patcher_for(content_type: str, tree: JSON, field_validation: str) -> Patcher:
    # upstream words its patch decoding errors differently when fieldValidation=Ignore
    strict = field_validation != "Ignore"
    if content_type == JSON_PATCH:
        return partial(apply_json_patch, strict=strict)
    if content_type == MERGE_PATCH:
        return partial(apply_merge_patch, strict=strict)
    if content_type == STRATEGIC_MERGE_PATCH:
        return partial(apply_strategic_merge_patch, tree=tree)
    raise ValueError(content_type)
