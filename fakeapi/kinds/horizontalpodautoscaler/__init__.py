"""autoscaling/v2 HorizontalPodAutoscaler (stored), and autoscaling/v1 over the same objects (what `kubectl
autoscale` writes): defaults, strategies (autoscaler, status), validation and Table columns. No controller
scales anything."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fakeapi.kinds.horizontalpodautoscaler.conversion import V2, AutoscalerV1Conversion
from fakeapi.kinds.horizontalpodautoscaler.defaults import default_autoscaler
from fakeapi.kinds.horizontalpodautoscaler.validation import (
    validate_autoscaler,
    validate_autoscaler_status_update,
    validate_autoscaler_update,
)
from fakeapi.kinds.kind import STATUS_VERBS, Kind, ResourceInfo, SubresourceInfo
from fakeapi.kinds.strategy import Strategy
from fakeapi.kinds.workload.strategy import keep
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.tables.columns import AGE_COLUMN, NAME_COLUMN, Column, Printer
from fakeapi.machinery.tables.timefmt import age
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation.values import as_dict, as_int, as_list, as_str, quantity_text

MAX_SHOWN = 2


class AutoscalerStrategy(Strategy):
    """Status cleared on create and kept on update (no generation: upstream's strategy keeps none)."""

    validation_covers_object_meta = True

    def default(self, obj: JSON) -> None:
        default_autoscaler(obj)

    def prepare_for_create(self, obj: JSON) -> None:
        obj["status"] = {"desiredReplicas": 0, "currentMetrics": None}

    def validate(self, obj: JSON) -> list[FieldError]:
        return validate_autoscaler(obj)

    def prepare_for_update(self, new: JSON, old: JSON) -> None:
        keep(new, old, "status")

    def validate_update(self, new: JSON, old: JSON) -> list[FieldError]:
        return validate_autoscaler_update(new, old)


class AutoscalerStatusStrategy(AutoscalerStrategy):
    def reset_fields(self) -> tuple[str, ...]:
        return ("spec",)

    def prepare_for_update(self, new: JSON, old: JSON) -> None:
        keep(new, old, "spec")

    def validate_update(self, new: JSON, old: JSON) -> list[FieldError]:
        return validate_autoscaler_status_update(new, old)


def _metric_text(spec: JSON, status: JSON | None) -> str:
    """One metric of formatHPAMetrics: `cpu: 40%/80%`, `<unknown>` where nothing was measured."""
    kind = spec.get("type")
    source_key = {"Resource": "resource", "ContainerResource": "containerResource", "Pods": "pods",
                  "Object": "object", "External": "external"}.get(as_str(kind), "")
    source, current_source = as_dict(spec.get(source_key)), as_dict(as_dict(status).get(source_key))
    target, current = as_dict(source.get("target")), as_dict(current_source.get("current"))
    if kind in ("Resource", "ContainerResource"):
        name = as_str(source.get("name"))
        if target.get("averageValue") is not None:
            now = quantity_text(current["averageValue"]) if current.get("averageValue") is not None else "<unknown>"
            return f"{name}: {now}/{quantity_text(target['averageValue'])}"
        now = f"{as_int(current['averageUtilization'])}%" if current.get("averageUtilization") is not None \
            else "<unknown>"
        wanted = f"{as_int(target['averageUtilization'])}%" if target.get("averageUtilization") is not None \
            else "<auto>"
        return f"{name}: {now}/{wanted}"
    if kind == "Pods":
        now = quantity_text(current["averageValue"]) if current_source else "<unknown>"
        return f"{now}/{quantity_text(target.get('averageValue'))}"
    if kind in ("Object", "External"):
        if target.get("averageValue") is not None:
            now = quantity_text(current["averageValue"]) if current.get("averageValue") is not None else "<unknown>"
            return f"{now}/{quantity_text(target['averageValue'])} (avg)"
        now = quantity_text(current.get("value")) if current_source else "<unknown>"
        return f"{now}/{quantity_text(target.get('value'))}"
    return "<unknown type>"


def format_metrics(specs: Any, statuses: Any) -> str:
    specs, statuses = as_list(specs), as_list(statuses)
    if not specs:
        return "<none>"
    shown = [_metric_text(as_dict(spec), as_dict(statuses[index]) if index < len(statuses) else None)
             for index, spec in enumerate(specs)]
    if len(shown) > MAX_SHOWN:
        return ", ".join(shown[:MAX_SHOWN]) + f" + {len(shown) - MAX_SHOWN} more..."
    return ", ".join(shown)


def autoscaler_cells(autoscaler: JSON, now: datetime) -> list[Any]:
    """printHorizontalPodAutoscaler, on the stored (v2) form whichever version is asked for."""
    meta, spec, status = (as_dict(autoscaler.get(part)) for part in ("metadata", "spec", "status"))
    reference = as_dict(spec.get("scaleTargetRef"))
    minimum = spec.get("minReplicas")
    return [meta.get("name", ""), f"{as_str(reference.get('kind'))}/{as_str(reference.get('name'))}",
            format_metrics(spec.get("metrics"), status.get("currentMetrics")),
            "<unset>" if minimum is None else str(as_int(minimum)), as_int(spec.get("maxReplicas")),
            as_int(status.get("currentReplicas")), age(meta.get("creationTimestamp"), now)]


# descriptions: the v1.32 swagger docs of autoscaling/v2beta1 that upstream's printer reads
_COLUMNS = (
    NAME_COLUMN,
    Column("Reference", "string", "", 0,
           "scaleTargetRef points to the target resource to scale, and is used to the pods for which metrics should "
           "be collected, as well as to actually change the replica count."),
    Column("Targets", "string", "", 0,
           "metrics contains the specifications for which to use to calculate the desired replica count (the "
           "maximum replica count across all metrics will be used).  The desired replica count is calculated "
           "multiplying the ratio between the target value and the current value by the current number of pods.  "
           "Ergo, metrics used must decrease as the pod count is increased, and vice-versa.  See the individual "
           "metric source types for more information about how each type of metric must respond."),
    Column("MinPods", "string", "", 0,
           "minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.  It "
           "defaults to 1 pod.  minReplicas is allowed to be 0 if the alpha feature gate HPAScaleToZero is enabled "
           "and at least one Object or External metric is configured.  Scaling is active as long as at least one "
           "metric value is available."),
    Column("MaxPods", "string", "", 0,
           "maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up. It "
           "cannot be less that minReplicas."),
    Column("Replicas", "string", "", 0,
           "currentReplicas is current number of replicas of pods managed by this autoscaler, as last seen by the "
           "autoscaler."),
    AGE_COLUMN,
)

AUTOSCALER_PRINTER = Printer(_COLUMNS, autoscaler_cells)
_STRATEGY, _STATUS = AutoscalerStrategy(), AutoscalerStatusStrategy()
_V1_CONVERSION = AutoscalerV1Conversion()

HORIZONTAL_POD_AUTOSCALER = Kind(
    ResourceInfo("horizontalpodautoscalers", "HorizontalPodAutoscaler", namespaced=True,
                 singular="horizontalpodautoscaler", group="autoscaling", version="v2", short_names=("hpa",),
                 categories=("all",), returns_deleted_object=False,
                 subresources=(SubresourceInfo("status", "HorizontalPodAutoscaler", STATUS_VERBS),), definition=V2),
    _STRATEGY,
    {"status": _STATUS},
    AUTOSCALER_PRINTER,
)
HORIZONTAL_POD_AUTOSCALER_V1 = Kind(
    ResourceInfo("horizontalpodautoscalers", "HorizontalPodAutoscaler", namespaced=True,
                 singular="horizontalpodautoscaler", group="autoscaling", version="v1", short_names=("hpa",),
                 categories=("all",), returns_deleted_object=False,
                 subresources=(SubresourceInfo("status", "HorizontalPodAutoscaler", STATUS_VERBS),),
                 definition="io.k8s.api.autoscaling.v1.HorizontalPodAutoscaler"),
    _STRATEGY,
    {"status": _STATUS},
    Printer(_COLUMNS, lambda autoscaler, now: autoscaler_cells(_V1_CONVERSION.to_stored(autoscaler), now)),
    stored_as=HORIZONTAL_POD_AUTOSCALER.storage_resource,
    conversion=_V1_CONVERSION,
)
