"""Decode-time defaulting of Nodes (upstream SetDefaults_NodeStatus, SetDefaults_ResourceList) and the
v1 <-> internal conversion of the pod CIDRs, which the wire shows."""

from __future__ import annotations

from fakeapi.machinery.quantity import round_resource_list
from fakeapi.machinery.types import JSON


def default_node(node: JSON) -> None:
    spec = node.get("spec")
    if isinstance(spec, dict):
        convert_pod_cidrs(spec)
    status = node.get("status")
    if isinstance(status, dict):
        capacity = status.get("capacity")
        if "allocatable" not in status and isinstance(capacity, dict):
            status["allocatable"] = dict(capacity)  # what the node can give pods defaults to what it has
        round_resource_list(capacity)
        round_resource_list(status.get("allocatable"))


def convert_pod_cidrs(spec: JSON) -> None:
    """The internal NodeSpec keeps only podCIDRs: a lone podCIDR becomes `[podCIDR]`, and podCIDR is
    written back as podCIDRs[0] (so a podCIDR that disagrees with podCIDRs is replaced)."""
    cidrs = spec.get("podCIDRs")
    if not cidrs:
        spec.pop("podCIDRs", None)
        if spec.get("podCIDR"):
            spec["podCIDRs"] = [spec["podCIDR"]]
    elif isinstance(cidrs, list) and cidrs[0]:
        spec["podCIDR"] = cidrs[0]
    else:
        spec.pop("podCIDR", None)  # an empty first CIDR: an empty podCIDR, which is omitted
