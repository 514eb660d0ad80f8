"""Deployment strategies (upstream pkg/registry/apps/deployment/strategy.go): the main resource and
deployments/status."""

from __future__ import annotations

from fakeapi.kinds.deployment.defaults import default_deployment
from fakeapi.kinds.deployment.validation import (
    validate_deployment,
    validate_deployment_status_update,
    validate_deployment_update,
)
from fakeapi.kinds.workload.strategy import WorkloadStatusStrategy, WorkloadStrategy, keep
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON

DEFINITION = "io.k8s.api.apps.v1.Deployment"


class DeploymentStrategy(WorkloadStrategy):
    # annotations are copied from a Deployment to its ReplicaSets: changing them is a new generation too
    generation_follows_annotations = True

    def __init__(self) -> None:
        super().__init__(DEFINITION)

    def default(self, obj: JSON) -> None:
        default_deployment(obj)

    def validate(self, obj: JSON) -> list[FieldError]:
        return validate_deployment(obj)

    def validate_update(self, new: JSON, old: JSON) -> list[FieldError]:
        return validate_deployment_update(new, old)


class DeploymentStatusStrategy(WorkloadStatusStrategy):
    """deployments/status: the spec and the labels are the stored ones."""

    def __init__(self) -> None:
        super().__init__(DEFINITION)

    def reset_fields(self) -> tuple[str, ...]:
        return ("spec", "metadata.labels")

    def prepare_for_update(self, new: JSON, old: JSON) -> None:
        keep(new, old, "spec")
        keep(new["metadata"], old["metadata"], "labels")

    def validate_update(self, new: JSON, old: JSON) -> list[FieldError]:
        return validate_deployment_status_update(new, old)
