"""The strategy shape the workload kinds share (upstream's deployment, replicaset, statefulset, daemonset,
replicationcontroller, job and cronjob strategy.go files): status cleared on create and kept on update,
generation 1 on create and bumped by spec changes, the status subresource keeping the spec, and the
warnings about the name and the pod template."""

from __future__ import annotations

from typing import Any

from fakeapi.kinds.pod.validation.warnings import pod_template_warnings
from fakeapi.kinds.strategy import Strategy
from fakeapi.machinery.jsonvalues import copy_json
from fakeapi.machinery.schema.definitions import KUBERNETES_1_32
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation import names
from fakeapi.machinery.validation.values import as_dict, as_str

NAME_WARNING = ("metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; "
                "a DNS label is recommended: ")


def name_warnings(obj: JSON) -> list[str]:
    """The warning of a workload whose name is no DNS label (its pods' names and hostnames come from it)."""
    problems = names.is_dns1123_label(as_str(as_dict(obj.get("metadata")).get("name")))
    return [NAME_WARNING + "[" + " ".join(problems) + "]"] if problems else []


def bump_generation(obj: JSON, old: JSON) -> None:
    meta: JSON = obj["metadata"]
    meta["generation"] = int(as_dict(old.get("metadata")).get("generation") or 0) + 1


def keep(new: JSON, old: JSON, part: str) -> None:
    """`new[part]` becomes the stored one (or goes, when the stored object has none)."""
    if part in old:
        new[part] = old[part]
    else:
        new.pop(part, None)


class WorkloadStrategy(Strategy):
    """The main resource of a workload kind. Subclasses give the defaults and validation."""

    validation_covers_object_meta = True  # every workload validates its ObjectMeta with DNS names
    template_path: tuple[str, ...] = ("spec", "template")  # where its pod template is
    generation_follows_annotations = False  # Deployments: annotations are copied to their ReplicaSets
    warns_about_name = True  # the kinds whose names become pod names and hostnames

    def __init__(self, definition: str) -> None:
        self.definition = definition

    def empty_status(self) -> JSON:
        """The kind's status struct at its zero value, as Go writes it (`replicas: 0` where it is required)."""
        status: JSON = copy_json(KUBERNETES_1_32.compiled(self.definition).zero.get("status") or {})
        return status

    def template(self, obj: JSON) -> Any:
        node: Any = obj
        for key in self.template_path:
            node = as_dict(node).get(key)
        return node

    def prepare_for_create(self, obj: JSON) -> None:
        obj["status"] = self.empty_status()
        obj["metadata"]["generation"] = 1

    def prepare_for_update(self, new: JSON, old: JSON) -> None:
        keep(new, old, "status")
        changed = new.get("spec") != old.get("spec")
        if self.generation_follows_annotations:
            changed = changed or as_dict(new["metadata"].get("annotations")) != as_dict(
                as_dict(old.get("metadata")).get("annotations"))
        if changed:
            bump_generation(new, old)

    def warnings_on_create(self, obj: JSON) -> list[str]:
        return (name_warnings(obj) if self.warns_about_name else []) + self.template_warnings(obj)

    def warnings_on_update(self, new: JSON, old: JSON) -> list[str]:
        if new["metadata"].get("generation") == as_dict(old.get("metadata")).get("generation"):
            return []
        return self.template_warnings(new)

    def template_warnings(self, obj: JSON) -> list[str]:
        return pod_template_warnings(as_dict(self.template(obj)), ".".join(self.template_path))


class WorkloadStatusStrategy(WorkloadStrategy):
    """<workload>/status: the status changes, the spec is the stored one; no warnings."""

    def reset_fields(self) -> tuple[str, ...]:
        return ("spec",)

    def prepare_for_update(self, new: JSON, old: JSON) -> None:
        keep(new, old, "spec")

    def warnings_on_update(self, new: JSON, old: JSON) -> list[str]:
        return []
