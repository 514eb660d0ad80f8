"""DaemonSet strategies (upstream pkg/registry/apps/daemonset/strategy.go).

The internal spec.templateGeneration, which apps/v1 writes as the `deprecated.daemonset.template.generation`
annotation, is the server's: 1 on create, one more whenever the template changes.
"""

from __future__ import annotations

from fakeapi.kinds.daemonset.defaults import default_daemon_set
from fakeapi.kinds.daemonset.validation import (
    validate_daemon_set,
    validate_daemon_set_status_update,
    validate_daemon_set_update,
)
from fakeapi.kinds.workload.strategy import WorkloadStatusStrategy, WorkloadStrategy, bump_generation, keep
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation.values import as_dict, semantic_equal

DEFINITION = "io.k8s.api.apps.v1.DaemonSet"
TEMPLATE_GENERATION = "deprecated.daemonset.template.generation"


def template_generation(obj: JSON) -> int:
    try:
        return int(as_dict(as_dict(obj.get("metadata")).get("annotations")).get(TEMPLATE_GENERATION) or 0)
    except (TypeError, ValueError):
        return 0


def set_template_generation(obj: JSON, generation: int) -> None:
    meta: JSON = obj["metadata"]
    meta["annotations"] = {**as_dict(meta.get("annotations")), TEMPLATE_GENERATION: str(generation)}


class DaemonSetStrategy(WorkloadStrategy):
    warns_about_name = False  # upstream warns about the names of the kinds whose pods take their name

    def __init__(self) -> None:
        super().__init__(DEFINITION)

    def default(self, obj: JSON) -> None:
        default_daemon_set(obj)

    def prepare_for_create(self, obj: JSON) -> None:
        super().prepare_for_create(obj)
        set_template_generation(obj, max(template_generation(obj), 1))

    def prepare_for_update(self, new: JSON, old: JSON) -> None:
        keep(new, old, "status")
        generation = template_generation(old)
        spec, old_spec = as_dict(new.get("spec")), as_dict(old.get("spec"))
        if not semantic_equal(spec.get("template"), old_spec.get("template")):
            generation += 1
            bump_generation(new, old)
        elif new.get("spec") != old.get("spec"):
            bump_generation(new, old)
        set_template_generation(new, generation)

    def validate(self, obj: JSON) -> list[FieldError]:
        return validate_daemon_set(obj)

    def validate_update(self, new: JSON, old: JSON) -> list[FieldError]:
        return validate_daemon_set_update(new, old)


class DaemonSetStatusStrategy(WorkloadStatusStrategy):
    def __init__(self) -> None:
        super().__init__(DEFINITION)

    def prepare_for_update(self, new: JSON, old: JSON) -> None:
        keep(new, old, "spec")
        set_template_generation(new, template_generation(old))

    def validate_update(self, new: JSON, old: JSON) -> list[FieldError]:
        return validate_daemon_set_status_update(new, old)
