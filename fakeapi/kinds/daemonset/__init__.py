"""apps/v1 DaemonSet: defaults, strategies (daemonset, status), validation and Table columns."""

from __future__ import annotations

from fakeapi.kinds.daemonset.strategy import DEFINITION, DaemonSetStatusStrategy, DaemonSetStrategy
from fakeapi.kinds.daemonset.table import DAEMON_SET_PRINTER
from fakeapi.kinds.kind import STATUS_VERBS, Kind, ResourceInfo, SubresourceInfo

DAEMON_SET = Kind(
    ResourceInfo(
        "daemonsets", "DaemonSet", namespaced=True, singular="daemonset", group="apps", short_names=("ds",),
        categories=("all",), returns_deleted_object=False,
        subresources=(SubresourceInfo("status", "DaemonSet", STATUS_VERBS),),
        definition=DEFINITION,
    ),
    DaemonSetStrategy(),
    {"status": DaemonSetStatusStrategy()},
    DAEMON_SET_PRINTER,
)
