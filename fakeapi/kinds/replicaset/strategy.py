"""ReplicaSet strategies (upstream pkg/registry/apps/replicaset/strategy.go): the main resource and
replicasets/status."""

from __future__ import annotations

from fakeapi.kinds.podtemplate.defaults import default_pod_template
from fakeapi.kinds.replicaset.validation import (
    validate_replica_set,
    validate_replica_set_status_update,
    validate_replica_set_update,
)
from fakeapi.kinds.workload.strategy import WorkloadStatusStrategy, WorkloadStrategy
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON

DEFINITION = "io.k8s.api.apps.v1.ReplicaSet"


def default_replica_set(replica_set: JSON) -> None:
    """apps/v1 SetDefaults_ReplicaSet: one replica."""
    spec = replica_set.get("spec")
    if isinstance(spec, dict):
        if spec.get("replicas") is None:
            spec["replicas"] = 1
        default_pod_template(spec.get("template"))


class ReplicaSetStrategy(WorkloadStrategy):
    def __init__(self) -> None:
        super().__init__(DEFINITION)

    def default(self, obj: JSON) -> None:
        default_replica_set(obj)

    def validate(self, obj: JSON) -> list[FieldError]:
        return validate_replica_set(obj)

    def validate_update(self, new: JSON, old: JSON) -> list[FieldError]:
        return validate_replica_set_update(new, old)


class ReplicaSetStatusStrategy(WorkloadStatusStrategy):
    def __init__(self) -> None:
        super().__init__(DEFINITION)

    def validate_update(self, new: JSON, old: JSON) -> list[FieldError]:
        return validate_replica_set_status_update(new, old)
