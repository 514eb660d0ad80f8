"""Decode-time defaulting of DaemonSets (upstream apps/v1 SetDefaults_DaemonSet, and the pod template's)."""

from __future__ import annotations

from fakeapi.kinds.podtemplate.defaults import default_pod_template
from fakeapi.machinery.types import JSON


def default_daemon_set(daemon_set: JSON) -> None:
    spec = daemon_set.get("spec")
    if not isinstance(spec, dict):
        return
    strategy = spec.get("updateStrategy")
    if isinstance(strategy, dict):
        if not strategy.get("type"):
            strategy["type"] = "RollingUpdate"
        if strategy["type"] == "RollingUpdate":
            rolling = strategy.get("rollingUpdate")
            if rolling is None:
                rolling = strategy["rollingUpdate"] = {}
            if isinstance(rolling, dict):
                if rolling.get("maxUnavailable") is None:
                    rolling["maxUnavailable"] = 1
                if rolling.get("maxSurge") is None:
                    rolling["maxSurge"] = 0
    if spec.get("revisionHistoryLimit") is None:
        spec["revisionHistoryLimit"] = 10
    default_pod_template(spec.get("template"))
