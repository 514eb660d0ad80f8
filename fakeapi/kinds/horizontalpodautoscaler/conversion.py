"""autoscaling/v1 HorizontalPodAutoscaler <-> the stored autoscaling/v2 form (upstream's storage version):
v1 knows one target, the CPU utilization; the v2 conditions show in v1 as the annotation upstream writes."""

from __future__ import annotations

from typing import Any

import orjson

from fakeapi.kinds.horizontalpodautoscaler.defaults import cpu_metric
from fakeapi.machinery.schema.definitions import KUBERNETES_1_32
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation.values import as_dict, as_list

V1 = "io.k8s.api.autoscaling.v1.HorizontalPodAutoscaler"
V2 = "io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler"
# autoscaling/v1's HorizontalPodAutoscalerCondition, as json.Marshal writes it into the annotation
CONDITION_FIELDS = ("type", "status", "lastTransitionTime", "reason", "message")
CONDITIONS_ANNOTATION = "autoscaling.alpha.kubernetes.io/conditions"


def _cpu_utilization(metrics: Any, key: str, value_key: str) -> Any:
    for metric in map(as_dict, as_list(metrics)):
        resource = as_dict(metric.get("resource"))
        if metric.get("type") == "Resource" and resource.get("name") == "cpu":
            return as_dict(resource.get(key)).get(value_key)
    return None


class AutoscalerV1Conversion:
    def to_stored(self, obj: JSON) -> JSON:
        spec, status = as_dict(obj.get("spec")), as_dict(obj.get("status"))
        meta = dict(as_dict(obj.get("metadata")))
        annotations = {k: v for k, v in as_dict(meta.get("annotations")).items() if k != CONDITIONS_ANNOTATION}
        if annotations:
            meta["annotations"] = annotations
        else:
            meta.pop("annotations", None)
        stored_spec: JSON = {key: spec[key] for key in ("scaleTargetRef", "minReplicas", "maxReplicas") if key in spec}
        if spec.get("targetCPUUtilizationPercentage") is not None:
            stored_spec["metrics"] = [cpu_metric(spec["targetCPUUtilizationPercentage"])]
        stored_status: JSON = {key: status[key] for key in ("observedGeneration", "lastScaleTime", "currentReplicas",
                                                            "desiredReplicas") if key in status}
        if status.get("currentCPUUtilizationPercentage") is not None:
            stored_status["currentMetrics"] = [{"type": "Resource", "resource": {
                "name": "cpu", "current": {"averageUtilization": status["currentCPUUtilizationPercentage"]}}}]
        stored = {**obj, "apiVersion": "autoscaling/v2", "metadata": meta, "spec": stored_spec,
                  "status": stored_status}
        return _as_go_writes_it(V2, stored)

    def from_stored(self, obj: JSON) -> JSON:
        spec, status = as_dict(obj.get("spec")), as_dict(obj.get("status"))
        v1_spec: JSON = {key: spec[key] for key in ("scaleTargetRef", "minReplicas", "maxReplicas") if key in spec}
        target = _cpu_utilization(spec.get("metrics"), "target", "averageUtilization")
        if target is not None:
            v1_spec["targetCPUUtilizationPercentage"] = target
        v1_status: JSON = {key: status[key] for key in ("observedGeneration", "lastScaleTime", "currentReplicas",
                                                        "desiredReplicas") if key in status}
        current = _cpu_utilization(status.get("currentMetrics"), "current", "averageUtilization")
        if current is not None:
            v1_status["currentCPUUtilizationPercentage"] = current
        meta = dict(as_dict(obj.get("metadata")))
        if as_list(status.get("conditions")):
            conditions = [{key: as_dict(c)[key] for key in CONDITION_FIELDS if as_dict(c).get(key)}
                          for c in as_list(status["conditions"])]
            meta["annotations"] = {**as_dict(meta.get("annotations")),
                                   CONDITIONS_ANNOTATION: orjson.dumps(conditions).decode()}
        v1 = {**obj, "apiVersion": "autoscaling/v1", "metadata": meta, "spec": v1_spec, "status": v1_status}
        return _as_go_writes_it(V1, v1)


def _as_go_writes_it(definition: str, obj: JSON) -> JSON:
    return KUBERNETES_1_32.compiled(definition).decoder().decode(obj, "HorizontalPodAutoscaler").obj
