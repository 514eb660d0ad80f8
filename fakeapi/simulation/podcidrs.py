"""The node IPAM controller (kube-controller-manager's range allocator): every node without a pod CIDR
gets the next free /24 of the cluster CIDR 10.244.0.0/16 onwards, PATCHed into `spec.podCIDR(s)`.
The simulated kubelets give their pods addresses from it."""

from __future__ import annotations

import ipaddress

from fakeapi.simulation.client import Client
from fakeapi.simulation.view import NodeInfo
from fakeapi.simulation.work import Work

CLUSTER_CIDR = ipaddress.ip_network("10.244.0.0/16")
NODE_MASK = 24


class PodCIDRAllocator:
    def __init__(self, client: Client, work: Work) -> None:
        self.client = client
        self.work = work
        self._taken: dict[str, int] = {}  # node -> index of its /24
        self._next = 0

    def clear(self) -> None:
        self._taken.clear()
        self._next = 0

    def node_changed(self, old: NodeInfo | None, new: NodeInfo | None) -> None:
        if new is None:
            if old is not None:
                self._taken.pop(old.name, None)
            return
        if new.pod_cidr:
            index = _index(new.pod_cidr)
            if index is not None:
                self._taken[new.name] = index
            return
        if new.name not in self._taken:
            self.work.soon(("pod-cidr", new.name), lambda: self._allocate(new.name))

    def _allocate(self, name: str) -> None:
        node = self.client.api.registry("nodes").find("", name)
        if node is None or (node.get("spec") or {}).get("podCIDR"):
            return
        used = set(self._taken.values())
        while self._next in used:
            self._next += 1
        index, self._next = self._next, self._next + 1
        cidr = str(ipaddress.ip_network((int(CLUSTER_CIDR.network_address) + (index << (32 - NODE_MASK)), NODE_MASK)))
        self._taken[name] = index
        self.client.patch("nodes", "", name, {"spec": {"podCIDR": cidr, "podCIDRs": [cidr]}})


def _index(cidr: str) -> int | None:
    """Which /24 from the cluster CIDR's start a node's pod CIDR is, if it is one of those."""
    try:
        network = ipaddress.ip_network(cidr, strict=False)
    except ValueError:
        return None
    offset = int(network.network_address) - int(CLUSTER_CIDR.network_address)
    if network.version != 4 or network.prefixlen != NODE_MASK or offset < 0:
        return None
    return offset >> (32 - NODE_MASK)
