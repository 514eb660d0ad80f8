"""core/v1 Node: defaults, strategies (node, status), validation, field labels and Table columns."""

from __future__ import annotations

from fakeapi.kinds.kind import STATUS_VERBS, Kind, ResourceInfo, SubresourceInfo
from fakeapi.kinds.node.fields import NODE_FIELD_LABELS
from fakeapi.kinds.node.strategy import NodeStatusStrategy, NodeStrategy
from fakeapi.kinds.node.table import NODE_PRINTER

NODE = Kind(
    ResourceInfo(
        "nodes", "Node", namespaced=False, singular="node", short_names=("no",),
        subresources=(SubresourceInfo("status", "Node", STATUS_VERBS),),
        returns_deleted_object=False,
        definition="io.k8s.api.core.v1.Node",
    ),
    NodeStrategy(),
    {"status": NodeStatusStrategy()},
    NODE_PRINTER,
    NODE_FIELD_LABELS,
)
