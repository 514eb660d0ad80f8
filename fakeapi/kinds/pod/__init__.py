"""core/v1 Pod: defaults, QoS class, strategies (pod, status, resize), validation and Table columns."""

from __future__ import annotations

from fakeapi.kinds.kind import CONNECT_VERBS, STATUS_VERBS, Kind, ResourceInfo, SubresourceInfo
from fakeapi.kinds.pod.fields import POD_FIELD_LABELS
from fakeapi.kinds.pod.strategy import PodResizeStrategy, PodStatusStrategy, PodStrategy
from fakeapi.kinds.pod.table import POD_PRINTER

POD = Kind(
    ResourceInfo(
        "pods", "Pod", namespaced=True, singular="pod", short_names=("po",), categories=("all",),
        subresources=(
            SubresourceInfo("binding", "Binding", ("create",), definition="io.k8s.api.core.v1.Binding"),
            SubresourceInfo("eviction", "Eviction", ("create",), group="policy", version="v1",
                            definition="io.k8s.api.policy.v1.Eviction"),
            SubresourceInfo("attach", "PodAttachOptions", CONNECT_VERBS),
            SubresourceInfo("exec", "PodExecOptions", CONNECT_VERBS),
            SubresourceInfo("log", "Pod", ("get",)),
            SubresourceInfo("portforward", "PodPortForwardOptions", CONNECT_VERBS),
            SubresourceInfo("resize", "Pod", STATUS_VERBS),
            SubresourceInfo("status", "Pod", STATUS_VERBS),
        ),
        definition="io.k8s.api.core.v1.Pod",
    ),
    PodStrategy(),
    {"status": PodStatusStrategy(), "resize": PodResizeStrategy()},
    POD_PRINTER,
    POD_FIELD_LABELS,
)
