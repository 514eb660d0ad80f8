"""Pod addresses from each node's pod CIDR, as the node's network plugin hands them out: the lowest free
address from .2 on (.1 is the bridge), free again once the pod's sandbox is gone."""

from __future__ import annotations

import ipaddress

from fakeapi.simulation.view import ClusterView

FIRST_POD_HOST = 2


class PodAddresses:
    def __init__(self, view: ClusterView) -> None:
        self.view = view
        self._used: dict[str, set[int]] = {}  # node -> address slots in use
        self._next: dict[str, int] = {}  # node -> the lowest slot that may be free

    def clear(self) -> None:
        self._used.clear()
        self._next.clear()

    def allocate(self, node: str) -> str:
        network = self._network(node)
        if network is None:
            return ""
        used = self._used.setdefault(node, set())
        slot = self._next.get(node, FIRST_POD_HOST)
        while slot in used:
            slot += 1
        if slot >= network.num_addresses - 1:
            return ""
        used.add(slot)
        self._next[node] = slot + 1
        return str(network.network_address + slot)

    def reserve(self, node: str, address: str) -> None:
        """Count an address a pod has (a kubelet carrying on after a restore)."""
        slot = self._slot(node, address)
        if slot is not None:
            self._used.setdefault(node, set()).add(slot)

    def release(self, node: str, address: str) -> None:
        slot = self._slot(node, address)
        used = self._used.get(node)
        if slot is not None and used is not None:
            used.discard(slot)
            self._next[node] = min(self._next.get(node, FIRST_POD_HOST), slot)

    def _network(self, node: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network | None:
        info = self.view.nodes.get(node)
        if info is None or not info.pod_cidr:
            return None
        try:
            return ipaddress.ip_network(info.pod_cidr, strict=False)
        except ValueError:
            return None

    def _slot(self, node: str, address: str) -> int | None:
        network = self._network(node)
        if network is None or not address:
            return None
        try:
            slot = int(ipaddress.ip_address(address)) - int(network.network_address)
        except ValueError:
            return None
        return slot if 0 <= slot < network.num_addresses else None
