"""core/v1 ReplicationController: defaults, strategies (replicationcontroller, status), validation, /scale, the
status.replicas field selector and Table columns."""

from __future__ import annotations

from fakeapi.kinds.kind import SCALE_SUBRESOURCE, STATUS_VERBS, Kind, ResourceInfo, Scale, SubresourceInfo
from fakeapi.kinds.replicaset.fields import REPLICAS_FIELD_LABELS
from fakeapi.kinds.replicationcontroller.strategy import (
    DEFINITION,
    ReplicationControllerStatusStrategy,
    ReplicationControllerStrategy,
)
from fakeapi.kinds.replicationcontroller.table import REPLICATION_CONTROLLER_PRINTER

REPLICATION_CONTROLLER = Kind(
    ResourceInfo(
        "replicationcontrollers", "ReplicationController", namespaced=True, singular="replicationcontroller",
        short_names=("rc",), categories=("all",), returns_deleted_object=False,
        subresources=(SCALE_SUBRESOURCE, SubresourceInfo("status", "ReplicationController", STATUS_VERBS)),
        definition=DEFINITION,
    ),
    ReplicationControllerStrategy(),
    {"status": ReplicationControllerStatusStrategy()},
    REPLICATION_CONTROLLER_PRINTER,
    REPLICAS_FIELD_LABELS,
    scale=Scale(label_selector_path=".spec.selector", label_selector_is_map=True),
)
