"""policy/v1 PodDisruptionBudget: strategies (the budget, its status), validation and Table columns. Its status
is the disruption controller's; `pods/eviction` reads it (fakeapi.registry.eviction)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fakeapi.kinds.kind import STATUS_VERBS, Kind, ResourceInfo, SubresourceInfo
from fakeapi.kinds.poddisruptionbudget.validation import (
    validate_pod_disruption_budget,
    validate_pod_disruption_budget_status_update,
    validate_pod_disruption_budget_update,
)
from fakeapi.kinds.workload.strategy import WorkloadStatusStrategy, WorkloadStrategy
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.tables.columns import AGE_COLUMN, NAME_COLUMN, Column, Printer
from fakeapi.machinery.tables.timefmt import age
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation.values import as_dict, as_int

DEFINITION = "io.k8s.api.policy.v1.PodDisruptionBudget"


class PodDisruptionBudgetStrategy(WorkloadStrategy):
    """Status cleared on create, kept on update; a spec change is a new generation. The ObjectMeta checks are
    the registry's generic ones."""

    validation_covers_object_meta = False
    warns_about_name = False

    def __init__(self) -> None:
        super().__init__(DEFINITION)

    def warnings_on_create(self, obj: JSON) -> list[str]:
        return []

    def warnings_on_update(self, new: JSON, old: JSON) -> list[str]:
        return []

    def validate(self, obj: JSON) -> list[FieldError]:
        return validate_pod_disruption_budget(obj)

    def validate_update(self, new: JSON, old: JSON) -> list[FieldError]:
        return validate_pod_disruption_budget_update(new, old)


class PodDisruptionBudgetStatusStrategy(WorkloadStatusStrategy):
    def __init__(self) -> None:
        super().__init__(DEFINITION)

    def validate_update(self, new: JSON, old: JSON) -> list[FieldError]:
        return validate_pod_disruption_budget_status_update(new, old)


def _int_or_string(value: Any) -> str:
    return "N/A" if value is None else str(value)


def pod_disruption_budget_cells(budget: JSON, now: datetime) -> list[Any]:
    meta, spec, status = (as_dict(budget.get(part)) for part in ("metadata", "spec", "status"))
    return [meta.get("name", ""), _int_or_string(spec.get("minAvailable")), _int_or_string(spec.get("maxUnavailable")),
            as_int(status.get("disruptionsAllowed")), age(meta.get("creationTimestamp"), now)]


POD_DISRUPTION_BUDGET_PRINTER = Printer(
    (NAME_COLUMN,
     Column("Min Available", "string", "", 0, "The minimum number of pods that must be available."),
     Column("Max Unavailable", "string", "", 0, "The maximum number of pods that may be unavailable."),
     Column("Allowed Disruptions", "integer", "", 0, "Calculated number of pods that may be disrupted at this time."),
     AGE_COLUMN),
    pod_disruption_budget_cells,
)

POD_DISRUPTION_BUDGET = Kind(
    ResourceInfo("poddisruptionbudgets", "PodDisruptionBudget", namespaced=True, singular="poddisruptionbudget",
                 group="policy", short_names=("pdb",), returns_deleted_object=False,
                 subresources=(SubresourceInfo("status", "PodDisruptionBudget", STATUS_VERBS),),
                 definition=DEFINITION),
    PodDisruptionBudgetStrategy(),
    {"status": PodDisruptionBudgetStatusStrategy()},
    POD_DISRUPTION_BUDGET_PRINTER,
)
