"""The three PATCH content types of the Kubernetes API as pure functions: (object, patch) -> new object;
and the strategic merge patch between two versions of an object, as clients compute it."""

from __future__ import annotations

from fakeapi.machinery.jsonvalues import copy_json
from fakeapi.machinery.patch.json_patch import MAX_COPY_BYTES, MAX_OPERATIONS, UnprocessablePatch, apply_json_patch
from fakeapi.machinery.patch.merge import UndecodablePatchResult, apply_merge_patch
from fakeapi.machinery.patch.strategic import PatchTree, StrategicPatchError, apply_strategic_merge_patch
from fakeapi.machinery.patch.twoway import create_two_way_merge_patch

# the Content-Type of each kind of patch
JSON_PATCH = "application/json-patch+json"
MERGE_PATCH = "application/merge-patch+json"
STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json"
APPLY_PATCH = "application/apply-patch+yaml"
PATCH_TYPES = (JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH, APPLY_PATCH)
# a custom resource has no Go struct, so no strategic merge keys: upstream refuses that patch type for it
CUSTOM_RESOURCE_PATCH_TYPES = (JSON_PATCH, MERGE_PATCH, APPLY_PATCH)

__all__ = [
    "APPLY_PATCH",
    "CUSTOM_RESOURCE_PATCH_TYPES",
    "JSON_PATCH",
    "MERGE_PATCH",
    "PATCH_TYPES",
    "STRATEGIC_MERGE_PATCH",
    "MAX_COPY_BYTES",
    "MAX_OPERATIONS",
    "PatchTree",
    "StrategicPatchError",
    "UndecodablePatchResult",
    "UnprocessablePatch",
    "apply_json_patch",
    "apply_merge_patch",
    "apply_strategic_merge_patch",
    "copy_json",
    "create_two_way_merge_patch",
]
