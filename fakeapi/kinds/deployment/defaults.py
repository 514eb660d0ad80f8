"""Decode-time defaulting of Deployments (upstream apps/v1 SetDefaults_Deployment, and the pod template's)."""

from __future__ import annotations

from fakeapi.kinds.podtemplate.defaults import default_pod_template
from fakeapi.machinery.types import JSON


def default_deployment(deployment: JSON) -> None:
    spec = deployment.get("spec")
    if not isinstance(spec, dict):
        return
    if spec.get("replicas") is None:
        spec["replicas"] = 1
    strategy = spec.get("strategy")
    if isinstance(strategy, dict):
        if not strategy.get("type"):
            strategy["type"] = "RollingUpdate"
        if strategy["type"] == "RollingUpdate":
            rolling = strategy.get("rollingUpdate")
            if rolling is None:
                rolling = strategy["rollingUpdate"] = {}
            if isinstance(rolling, dict):
                rolling.setdefault("maxUnavailable", "25%")
                rolling.setdefault("maxSurge", "25%")
                for key in ("maxUnavailable", "maxSurge"):
                    if rolling[key] is None:
                        rolling[key] = "25%"
    if spec.get("revisionHistoryLimit") is None:
        spec["revisionHistoryLimit"] = 10
    if spec.get("progressDeadlineSeconds") is None:
        spec["progressDeadlineSeconds"] = 600
    default_pod_template(spec.get("template"))
