"""apps/v1 ReplicaSet: defaults, strategies (replicaset, status), validation, /scale, the status.replicas field
selector and Table columns."""

from __future__ import annotations

from fakeapi.kinds.kind import SCALE_SUBRESOURCE, STATUS_VERBS, Kind, ResourceInfo, Scale, SubresourceInfo
from fakeapi.kinds.replicaset.fields import REPLICAS_FIELD_LABELS
from fakeapi.kinds.replicaset.strategy import DEFINITION, ReplicaSetStatusStrategy, ReplicaSetStrategy
from fakeapi.kinds.replicaset.table import REPLICA_SET_PRINTER

REPLICA_SET = Kind(
    ResourceInfo(
        "replicasets", "ReplicaSet", namespaced=True, singular="replicaset", group="apps", short_names=("rs",),
        categories=("all",), returns_deleted_object=False,
        subresources=(SCALE_SUBRESOURCE, SubresourceInfo("status", "ReplicaSet", STATUS_VERBS)),
        definition=DEFINITION,
    ),
    ReplicaSetStrategy(),
    {"status": ReplicaSetStatusStrategy()},
    REPLICA_SET_PRINTER,
    REPLICAS_FIELD_LABELS,
    scale=Scale(label_selector_path=".spec.selector"),
)
