"""apps/v1 StatefulSet: defaults, strategies (statefulset, status), validation, /scale and Table columns."""

from __future__ import annotations

from fakeapi.kinds.kind import SCALE_SUBRESOURCE, STATUS_VERBS, Kind, ResourceInfo, Scale, SubresourceInfo
from fakeapi.kinds.statefulset.strategy import DEFINITION, StatefulSetStatusStrategy, StatefulSetStrategy
from fakeapi.kinds.statefulset.table import STATEFUL_SET_PRINTER

STATEFUL_SET = Kind(
    ResourceInfo(
        "statefulsets", "StatefulSet", namespaced=True, singular="statefulset", group="apps", short_names=("sts",),
        categories=("all",), returns_deleted_object=False,
        subresources=(SCALE_SUBRESOURCE, SubresourceInfo("status", "StatefulSet", STATUS_VERBS)),
        definition=DEFINITION,
    ),
    StatefulSetStrategy(),
    {"status": StatefulSetStatusStrategy()},
    STATEFUL_SET_PRINTER,
    scale=Scale(label_selector_path=".spec.selector"),
)
