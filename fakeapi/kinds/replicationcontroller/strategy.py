"""ReplicationController strategies (upstream pkg/registry/core/replicationcontroller/strategy.go)."""

from __future__ import annotations

from fakeapi.kinds.podtemplate.defaults import default_pod_template
from fakeapi.kinds.replicationcontroller.validation import (
    validate_replication_controller,
    validate_replication_controller_status_update,
    validate_replication_controller_update,
)
from fakeapi.kinds.strategy import ORPHAN_DEPENDENTS
from fakeapi.kinds.workload.strategy import WorkloadStatusStrategy, WorkloadStrategy
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation.values import as_dict

DEFINITION = "io.k8s.api.core.v1.ReplicationController"


def default_replication_controller(controller: JSON) -> None:
    """core/v1 SetDefaults_ReplicationController: the selector and the labels default to the template's labels;
    one replica."""
    spec = controller.get("spec")
    if not isinstance(spec, dict):
        return
    template = spec.get("template")
    labels = as_dict(template).get("metadata", {}).get("labels") if isinstance(template, dict) else None
    if isinstance(labels, dict) and labels:
        if not spec.get("selector"):
            spec["selector"] = dict(labels)
        meta = controller.setdefault("metadata", {})
        if not meta.get("labels"):
            meta["labels"] = dict(labels)
    if spec.get("replicas") is None:
        spec["replicas"] = 1
    default_pod_template(template)


class ReplicationControllerStrategy(WorkloadStrategy):
    # v1's default: a delete that names no propagation policy orphans the pods (upstream's back-compatibility)
    garbage_collection_policy = ORPHAN_DEPENDENTS

    def __init__(self) -> None:
        super().__init__(DEFINITION)

    def default(self, obj: JSON) -> None:
        default_replication_controller(obj)

    def validate(self, obj: JSON) -> list[FieldError]:
        return validate_replication_controller(obj)

    def validate_update(self, new: JSON, old: JSON) -> list[FieldError]:
        return validate_replication_controller_update(new, old)


class ReplicationControllerStatusStrategy(WorkloadStatusStrategy):
    def __init__(self) -> None:
        super().__init__(DEFINITION)

    def default(self, obj: JSON) -> None:
        default_replication_controller(obj)  # upstream defaults every write: empty labels take the template's

    def validate_update(self, new: JSON, old: JSON) -> list[FieldError]:
        return validate_replication_controller_status_update(new, old)
