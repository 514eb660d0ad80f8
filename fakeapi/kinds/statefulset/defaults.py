"""Decode-time defaulting of StatefulSets (upstream apps/v1 SetDefaults_StatefulSet, the pod template's, and
the PersistentVolumeClaim defaults of the volume claim templates)."""

from __future__ import annotations

from fakeapi.kinds.podtemplate.defaults import default_pod_template
from fakeapi.machinery.quantity import round_resource_list
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation.values import as_dict, as_list


def default_stateful_set(stateful_set: JSON) -> None:
    spec = stateful_set.get("spec")
    if not isinstance(spec, dict):
        return
    if not spec.get("podManagementPolicy"):
        spec["podManagementPolicy"] = "OrderedReady"
    strategy = spec.get("updateStrategy")
    if isinstance(strategy, dict):
        if not strategy.get("type"):
            strategy["type"] = "RollingUpdate"
            if strategy.get("rollingUpdate") is None:
                strategy["rollingUpdate"] = {}
        rolling = strategy.get("rollingUpdate")
        if strategy["type"] == "RollingUpdate" and isinstance(rolling, dict) and rolling.get("partition") is None:
            rolling["partition"] = 0
    policy = spec.get("persistentVolumeClaimRetentionPolicy")  # StatefulSetAutoDeletePVC, on since v1.27
    if policy is None:
        policy = spec["persistentVolumeClaimRetentionPolicy"] = {}
    if isinstance(policy, dict):
        for key in ("whenDeleted", "whenScaled"):
            if not policy.get(key):
                policy[key] = "Retain"
    if spec.get("replicas") is None:
        spec["replicas"] = 1
    if spec.get("revisionHistoryLimit") is None:
        spec["revisionHistoryLimit"] = 10
    default_pod_template(spec.get("template"))
    for claim in as_list(spec.get("volumeClaimTemplates")):
        if isinstance(claim, dict):
            _default_claim(claim)


def _default_claim(claim: JSON) -> None:
    """SetDefaults_PersistentVolumeClaim and its spec's: phase Pending, volume mode Filesystem."""
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
