"""Decode-time defaulting of PersistentVolumeClaims, and of a StatefulSet's claim templates (upstream core/v1
SetDefaults_PersistentVolumeClaim and SetDefaults_PersistentVolumeClaimSpec)."""

from __future__ import annotations

from fakeapi.machinery.quantity import round_resource_list
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation.values import as_dict


def default_claim(claim: JSON) -> None:
    """Volume mode Filesystem, quantities rounded to milli units, phase Pending."""
    spec = claim.get("spec")
    if isinstance(spec, dict):
        if spec.get("volumeMode") is None:
            spec["volumeMode"] = "Filesystem"
        resources = as_dict(spec.get("resources"))
        round_resource_list(resources.get("requests"))
        round_resource_list(resources.get("limits"))
    status = claim.get("status")
    if status is None:
        status = claim["status"] = {}
    if isinstance(status, dict) and not status.get("phase"):
        status["phase"] = "Pending"
