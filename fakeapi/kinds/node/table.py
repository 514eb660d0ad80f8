"""Node Table cells: upstream v1.32 `printNode` (wide form, as the server always prints)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fakeapi.machinery.tables.columns import AGE_COLUMN, NAME_COLUMN, Column, Printer
from fakeapi.machinery.tables.timefmt import age
from fakeapi.machinery.types import JSON

ROLE_LABEL_PREFIX = "node-role.kubernetes.io/"
ROLE_LABEL = "kubernetes.io/role"
NONE = "<none>"
UNKNOWN = "<unknown>"
_NO: JSON = {}


def node_cells(node: JSON, now: datetime) -> list[Any]:
    meta: JSON = node.get("metadata") or _NO
    status: JSON = node.get("status") or _NO
    info: JSON = status.get("nodeInfo") or _NO
    return [
        meta.get("name", ""),
        node_status(node),
        ",".join(node_roles(meta.get("labels") or _NO)) or NONE,
        age(meta.get("creationTimestamp"), now),
        info.get("kubeletVersion") or "",
        _first_address(status, "InternalIP"),
        _first_address(status, "ExternalIP"),
        info.get("osImage") or UNKNOWN,
        info.get("kernelVersion") or UNKNOWN,
        info.get("containerRuntimeVersion") or UNKNOWN,
    ]


def node_status(node: JSON) -> str:
    """Ready / NotReady from the Ready condition (the last one of that type wins), Unknown without one;
    `,SchedulingDisabled` when the node is cordoned."""
    ready: JSON | None = None
    for condition in (node.get("status") or _NO).get("conditions") or []:
        if isinstance(condition, dict) and condition.get("type") == "Ready":
            ready = condition
    parts = ["Unknown" if ready is None else "Ready" if ready.get("status") == "True" else "NotReady"]
    if (node.get("spec") or _NO).get("unschedulable"):
        parts.append("SchedulingDisabled")
    return ",".join(parts)


def node_roles(labels: JSON) -> list[str]:
    """The roles named by `node-role.kubernetes.io/<role>` label keys and the `kubernetes.io/role` label's
    value, sorted and without repeats."""
    roles = set()
    for key, value in labels.items():
        if key.startswith(ROLE_LABEL_PREFIX):
            role = key[len(ROLE_LABEL_PREFIX):]
            if role:
                roles.add(role)
        elif key == ROLE_LABEL and value:
            roles.add(value)
    return sorted(roles)


def _first_address(status: JSON, kind: str) -> str:
    for address in status.get("addresses") or []:
        if isinstance(address, dict) and address.get("type") == kind:
            return str(address.get("address") or "")
    return NONE


# Descriptions are the v1.32 swagger docs upstream's printers read via `SwaggerDoc()`.
_ADDRESSES = (
    "List of addresses reachable to the node. Queried from cloud provider, if available. More info: "
    "https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This field is declared as "
    "mergeable, but the merge key is not sufficiently unique, which can cause data corruption when it is "
    "merged. Callers should instead use a full-replacement patch. See https://pr.k8s.io/79391 for an example. "
    "Consumers should assume that addresses can change during the lifetime of a Node. However, there are "
    "some exceptions where this may not be possible, such as Pods that inherit a Node's address in its own "
    "status or consumers of the downward API (status.hostIP)."
)

_COLUMNS = (
    NAME_COLUMN,
    Column("Status", "string", "", 0, "The status of the node"),
    Column("Roles", "string", "", 0, "The roles of the node"),
    AGE_COLUMN,
    Column("Version", "string", "", 0, "Kubelet Version reported by the node."),
    Column("Internal-IP", "string", "", 1, _ADDRESSES),
    Column("External-IP", "string", "", 1, _ADDRESSES),
    Column("OS-Image", "string", "", 1,
           "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy))."),
    Column("Kernel-Version", "string", "", 1,
           "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64)."),
    Column("Container-Runtime", "string", "", 1,
           "ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2)."),
)

NODE_PRINTER = Printer(_COLUMNS, node_cells)
