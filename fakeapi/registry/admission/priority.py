"""Priority (upstream plugin/pkg/admission/priority): a pod's spec.priority and spec.preemptionPolicy come
from its priorityClassName on create, and stay as they were on update.

fakeapi serves no PriorityClass objects: the two classes every cluster creates at start are built in, and
with no globalDefault class a pod without a class gets priority 0.
"""

from __future__ import annotations

from fakeapi.machinery.errors import Forbidden
from fakeapi.machinery.types import JSON
from fakeapi.registry.admission import CREATE, UPDATE, Attributes, ObjectReader

NAME = "Priority"
PREEMPT_LOWER_PRIORITY = "PreemptLowerPriority"
# upstream's SystemPriorityClasses: created by the apiserver at start in every cluster
SYSTEM_PRIORITY_CLASSES = {"system-node-critical": 2000001000, "system-cluster-critical": 2000000000}
NO_DEFAULT_CLASS_PRIORITY = 0


class Priority:
    def __init__(self, objects: ObjectReader) -> None:
        pass

    def admit(self, attributes: Attributes) -> None:
        if not attributes.is_pod() or attributes.obj is None:
            return
        spec = attributes.obj.get("spec")
        if not isinstance(spec, dict):
            return
        if attributes.operation == UPDATE and attributes.old is not None:
            old_spec: JSON = attributes.old.get("spec") or {}
            for field in ("priority", "preemptionPolicy"):
                if spec.get(field) is None and old_spec.get(field) is not None:
                    spec[field] = old_spec[field]
            return
        if attributes.operation == CREATE:
            self._resolve(attributes, spec)

    def _resolve(self, attributes: Attributes, spec: JSON) -> None:
        class_name = spec.get("priorityClassName") or ""
        if class_name:
            priority = SYSTEM_PRIORITY_CLASSES.get(class_name) if isinstance(class_name, str) else None
            if priority is None:
                raise Forbidden.for_object("pods", attributes.name,
                                           f"no PriorityClass with name {class_name} was found")
        else:
            priority = NO_DEFAULT_CLASS_PRIORITY
        sent = spec.get("priority")
        if sent is not None and sent != priority:
            raise Forbidden.for_object(
                "pods", attributes.name,
                f"the integer value of priority ({sent}) must not be provided in pod spec; priority admission "
                f"controller computed {priority} from the given PriorityClass name")
        spec["priority"] = priority
        # the built-in classes and the no-class default all preempt lower priorities
        sent_policy = spec.get("preemptionPolicy")
        if sent_policy is not None and sent_policy != PREEMPT_LOWER_PRIORITY:
            raise Forbidden.for_object(
                "pods", attributes.name,
                f"the string value of PreemptionPolicy ({sent_policy}) must not be provided in pod spec; priority "
                f"admission controller computed {PREEMPT_LOWER_PRIORITY} from the given PriorityClass name")
        spec["preemptionPolicy"] = PREEMPT_LOWER_PRIORITY
