"""Pod strategies (upstream pkg/registry/core/pod/strategy.go): the main resource, status and resize."""

from __future__ import annotations

from fakeapi.kinds.pod.defaults import default_pod
from fakeapi.kinds.pod.memo import PodMemo
from fakeapi.kinds.pod.qos import get_pod_qos, qos_class
from fakeapi.kinds.pod.validation.pod import (
    validate_pod_create,
    validate_pod_resize,
    validate_pod_status_update,
    validate_pod_update,
    warnings_on_create,
)
from fakeapi.kinds.strategy import Strategy
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON

DEFAULT_GRACE_PERIOD = 30
SCHEDULING_GATED_REASON = "SchedulingGated"
SCHEDULING_GATED_MESSAGE = "Scheduling is blocked due to non-empty scheduling gates"


class PodStrategy(Strategy):
    validation_covers_object_meta = True  # validate_pod_create checks ObjectMeta with DNS names

    def __init__(self, memo: PodMemo | None = None) -> None:
        self.memo = memo  # what pods from one template share, worked out once per server

    def for_server(self) -> PodStrategy:
        return type(self)(PodMemo())

    def default(self, obj: JSON) -> None:
        default_pod(obj, memo=self.memo)

    def prepare_for_create(self, obj: JSON) -> None:
        obj["metadata"]["generation"] = 1
        # evaluated before status is replaced: a client-sent qosClass survives, as upstream
        status: JSON = {"phase": "Pending", "qosClass": get_pod_qos(obj, self.memo)}
        if obj.get("spec", {}).get("schedulingGates"):
            # upstream's UpdatePodCondition stamps the transition now: the create's creationTimestamp
            status["conditions"] = [{"type": "PodScheduled", "status": "False", "lastProbeTime": None,
                                     "lastTransitionTime": obj["metadata"].get("creationTimestamp"),
                                     "reason": SCHEDULING_GATED_REASON, "message": SCHEDULING_GATED_MESSAGE}]
        obj["status"] = status

    def validate(self, obj: JSON) -> list[FieldError]:
        return validate_pod_create(obj, self.memo)

    def warnings_on_create(self, obj: JSON) -> list[str]:
        return warnings_on_create(obj, self.memo)

    def prepare_for_update(self, new: JSON, old: JSON) -> None:
        if "status" in old:
            new["status"] = old["status"]
        else:
            new.pop("status", None)
        if new.get("spec") != old.get("spec"):
            _bump_generation(new)

    def validate_update(self, new: JSON, old: JSON) -> list[FieldError]:
        return validate_pod_update(new, old, self.memo)

    def grace_period(self, obj: JSON, requested: int | None) -> int | None:
        """Upstream CheckGracefulDelete: unscheduled and finished pods go at once."""
        spec: JSON = obj.get("spec") or {}
        grace = requested
        if grace is None:
            configured = spec.get("terminationGracePeriodSeconds")
            grace = configured if isinstance(configured, int) else DEFAULT_GRACE_PERIOD
        if not spec.get("nodeName"):
            grace = 0
        if (obj.get("status") or {}).get("phase") in ("Failed", "Succeeded"):
            grace = 0
        return 1 if grace < 0 else grace


class PodStatusStrategy(PodStrategy):
    """pods/status: only status (plus labels and annotations) may change; qosClass never."""

    def reset_fields(self) -> tuple[str, ...]:
        return ("spec",)

    def default(self, obj: JSON) -> None:
        default_pod(obj, spec_too=False)  # prepare_for_update puts back the stored (defaulted) spec

    def prepare_for_update(self, new: JSON, old: JSON) -> None:
        new["spec"] = old.get("spec")
        meta: JSON = new["metadata"]
        meta.pop("deletionTimestamp", None)
        old_meta: JSON = old["metadata"]
        if "ownerReferences" in old_meta:
            meta["ownerReferences"] = old_meta["ownerReferences"]
        else:
            meta.pop("ownerReferences", None)
        status: JSON = new.setdefault("status", {})
        old_status: JSON = old.get("status") or {}
        if not status.get("qosClass") and old_status.get("qosClass"):
            # old kubelets dropped qosClass when rejecting a pod: an empty one keeps the stored class
            status["qosClass"] = old_status["qosClass"]
        _keep_observed_generation(status, old_status)

    def validate_update(self, new: JSON, old: JSON) -> list[FieldError]:
        return validate_pod_status_update(new, old)


class PodResizeStrategy(PodStrategy):
    """pods/resize: only container resources and resizePolicy change, and never the QoS class."""

    def reset_fields(self) -> tuple[str, ...]:
        return ()

    def prepare_for_update(self, new: JSON, old: JSON) -> None:
        spec = _copy_spec(old.get("spec") or {})
        for field in ("containers", "initContainers"):
            wanted = {c.get("name"): c for c in (new.get("spec") or {}).get(field) or [] if isinstance(c, dict)}
            for container in spec.get(field) or []:
                update = wanted.get(container.get("name"))
                if update is None:
                    continue
                for attribute in ("resources", "resizePolicy"):
                    if attribute in update:
                        container[attribute] = update[attribute]
                    else:
                        container.pop(attribute, None)
        new["spec"] = spec
        new["metadata"] = {**old["metadata"], "resourceVersion": new["metadata"].get("resourceVersion")}
        if "status" in old:
            new["status"] = old["status"]
        if spec != old.get("spec"):
            _bump_generation(new)

    def validate_update(self, new: JSON, old: JSON) -> list[FieldError]:
        return validate_pod_resize(new, old, qos_class(new), (old.get("status") or {}).get("qosClass")
                                   or qos_class(old))


def _bump_generation(obj: JSON) -> None:
    meta: JSON = obj["metadata"]
    meta["generation"] = int(meta.get("generation") or 0) + 1


def _copy_spec(spec: JSON) -> JSON:
    copied = dict(spec)
    for field in ("containers", "initContainers"):
        if isinstance(copied.get(field), list):
            copied[field] = [dict(c) if isinstance(c, dict) else c for c in copied[field]]
    return copied


def _keep_observed_generation(status: JSON, old_status: JSON) -> None:
    """A zero observedGeneration (pod or condition) keeps the stored one, as upstream does."""
    if not status.get("observedGeneration") and old_status.get("observedGeneration"):
        status["observedGeneration"] = old_status["observedGeneration"]
    if status.get("conditions") is old_status.get("conditions"):
        return  # resent unchanged (the registry then shares the stored list): nothing was dropped
    old_conditions = [c for c in old_status.get("conditions") or [] if isinstance(c, dict)]
    if not any(c.get("observedGeneration") for c in old_conditions):
        return  # the common case: nothing to carry forward
    by_type: dict[str, list[JSON]] = {}
    for condition in old_conditions:
        by_type.setdefault(str(condition.get("type")), []).append(condition)
    used: dict[str, int] = {}
    for condition in status.get("conditions") or []:
        if not isinstance(condition, dict):
            continue
        kind = str(condition.get("type"))
        index = used.get(kind, 0)
        used[kind] = index + 1
        candidates = by_type.get(kind, [])
        if not condition.get("observedGeneration") and index < len(candidates):
            previous = candidates[index].get("observedGeneration")
            if previous:
                condition["observedGeneration"] = previous
