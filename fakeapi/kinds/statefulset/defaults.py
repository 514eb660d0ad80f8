"""Decode-time defaulting of StatefulSets (upstream apps/v1 SetDefaults_StatefulSet, the pod template's, and
the PersistentVolumeClaim defaults of the volume claim templates)."""

from __future__ import annotations

from fakeapi.kinds.persistentvolumeclaim.defaults import default_claim
from fakeapi.kinds.podtemplate.defaults import default_pod_template
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation.values import as_list


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
            default_claim(claim)
