"""StatefulSet strategies (upstream pkg/registry/apps/statefulset/strategy.go)."""

from __future__ import annotations

from fakeapi.kinds.statefulset.defaults import default_stateful_set
from fakeapi.kinds.statefulset.validation import (
    validate_stateful_set,
    validate_stateful_set_status_update,
    validate_stateful_set_update,
)
from fakeapi.kinds.workload.strategy import WorkloadStatusStrategy, WorkloadStrategy
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON

DEFINITION = "io.k8s.api.apps.v1.StatefulSet"


class StatefulSetStrategy(WorkloadStrategy):
    warns_about_name = False  # its names are DNS labels already

    def __init__(self) -> None:
        super().__init__(DEFINITION)

    def default(self, obj: JSON) -> None:
        default_stateful_set(obj)

    def validate(self, obj: JSON) -> list[FieldError]:
        return validate_stateful_set(obj)

    def validate_update(self, new: JSON, old: JSON) -> list[FieldError]:
        return validate_stateful_set_update(new, old)  # a changed selector is among the forbidden changes


class StatefulSetStatusStrategy(WorkloadStatusStrategy):
    def __init__(self) -> None:
        super().__init__(DEFINITION)

    def validate_update(self, new: JSON, old: JSON) -> list[FieldError]:
        return validate_stateful_set_status_update(new, old)
