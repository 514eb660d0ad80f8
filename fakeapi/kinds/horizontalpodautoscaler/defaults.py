"""Decode-time defaulting of HorizontalPodAutoscalers (upstream autoscaling/v2 SetDefaults_HorizontalPodAutoscaler
and its behaviour rules), applied to the stored (v2) form whichever version was written."""

from __future__ import annotations

from typing import Any

from fakeapi.machinery.types import JSON

DEFAULT_CPU_UTILIZATION = 80
SCALE_UP: JSON = {"stabilizationWindowSeconds": 0, "selectPolicy": "Max",
                  "policies": [{"type": "Pods", "value": 4, "periodSeconds": 15},
                               {"type": "Percent", "value": 100, "periodSeconds": 15}]}
SCALE_DOWN: JSON = {"stabilizationWindowSeconds": 300, "selectPolicy": "Max",
                    "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}]}


def cpu_metric(utilization: int) -> JSON:
    return {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization",
                                                                      "averageUtilization": utilization}}}


def default_autoscaler(autoscaler: JSON) -> None:
    spec = autoscaler.get("spec")
    if not isinstance(spec, dict):
        return
    if spec.get("minReplicas") is None:
        spec["minReplicas"] = 1
    if not spec.get("metrics"):
        spec["metrics"] = [cpu_metric(DEFAULT_CPU_UTILIZATION)]
    behavior = spec.get("behavior")
    if isinstance(behavior, dict):
        behavior["scaleUp"] = _rules(behavior.get("scaleUp"), SCALE_UP)
        behavior["scaleDown"] = _rules(behavior.get("scaleDown"), SCALE_DOWN)


def _rules(rules: Any, defaults: JSON) -> Any:
    """GenerateHPAScale*Rules: the defaults when unset, else each unset field from them."""
    if rules is None:
        return {key: (list(value) if isinstance(value, list) else value) for key, value in defaults.items()}
    if isinstance(rules, dict):
        for key, value in defaults.items():
            if rules.get(key) is None:
                rules[key] = list(value) if isinstance(value, list) else value
    return rules
