"""A StatefulSet's PersistentVolumeClaims (upstream's stateful_set_utils.go): one per volumeClaimTemplate and
pod, `<template>-<set>-<ordinal>`, labelled with the set's matchLabels, and their owner references as the
set's `persistentVolumeClaimRetentionPolicy` asks (StatefulSetAutoDeletePVC): whenDeleted Delete makes the
set their controller (the garbage collector deletes them with it); whenScaled Delete makes the pod of a
condemned ordinal their controller (they go with that pod); Retain leaves them without either."""

from __future__ import annotations

import copy

from fakeapi.machinery.types import JSON
from fakeapi.simulation.controllers.podcontrol import controller_ref

DELETE = "Delete"


def claim_templates(sts: JSON) -> list[JSON]:
    templates: list[JSON] = (sts.get("spec") or {}).get("volumeClaimTemplates") or []
    return templates


def template_name(template: JSON) -> str:
    return str((template.get("metadata") or {}).get("name", ""))


def claim_name(template: JSON, pod_name: str) -> str:
    return f"{template_name(template)}-{pod_name}"


def claims_for(sts: JSON, pod_name: str) -> list[JSON]:
    """getPersistentVolumeClaims: the claims of one pod, made from the templates."""
    match_labels: JSON = ((sts.get("spec") or {}).get("selector") or {}).get("matchLabels") or {}
    claims = []
    for template in claim_templates(sts):
        claim = copy.deepcopy(template)
        meta: JSON = claim.setdefault("metadata", {})
        meta["name"] = claim_name(template, pod_name)
        meta["labels"] = {**(meta.get("labels") or {}), **match_labels}
        claim.pop("status", None)
        claims.append({"apiVersion": "v1", "kind": "PersistentVolumeClaim", **claim})
    return claims


def _matches(ref: JSON, kind: str, group: str, name: str) -> bool:
    """matchesRef: a reference to an object of that kind, group and name (whatever its uid)."""
    ref_group = str(ref.get("apiVersion", "")).rpartition("/")[0]
    return ref.get("kind") == kind and ref_group == group and ref.get("name") == name


def owners_for(claim: JSON, sts: JSON, pod: JSON, scaled_down: bool) -> list[JSON] | None:
    """updateClaimOwnerRefForSetAndPod: the claim's owner references under the retention policy, or None when
    the claim is to be left alone (a reference to an earlier set or pod of the same name, as upstream's
    isClaimOwnerUpToDate)."""
    refs: list[JSON] = (claim.get("metadata") or {}).get("ownerReferences") or []
    set_meta, pod_meta = sts["metadata"], pod["metadata"]
    mine = []
    for ref in refs:
        for kind, group, meta in (("StatefulSet", "apps", set_meta), ("Pod", "", pod_meta)):
            if _matches(ref, kind, group, meta["name"]):
                if ref.get("uid") != meta.get("uid"):
                    return None
                mine.append(ref)
    kept = [ref for ref in refs if not any(ref is own for own in mine)]
    if any(ref.get("controller") for ref in kept):
        return kept  # another controller owns it: only our references go
    policy: JSON = (sts.get("spec") or {}).get("persistentVolumeClaimRetentionPolicy") or {}
    when_deleted, when_scaled = policy.get("whenDeleted", "Retain"), policy.get("whenScaled", "Retain")
    if when_scaled == DELETE and scaled_down:
        kept.append(controller_ref({"apiVersion": "v1", "kind": "Pod", "metadata": pod_meta}))
    elif when_deleted == DELETE:
        kept.append(controller_ref({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": set_meta}))
    return kept
