"""The address and port ranges Services are given from (kube-apiserver's --service-cluster-ip-range and
--service-node-port-range), and how upstream's allocators spread what they hand out over them."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

DEFAULT_CLUSTER_IP_RANGE = "10.96.0.0/12"
DEFAULT_NODE_PORT_RANGE = "30000-32767"
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def parse_cluster_ip_range(text: str) -> Network:
    """One CIDR (a single-stack cluster); ValueError with the reason otherwise."""
    try:
        network = ipaddress.ip_network(text.strip(), strict=True)
    except ValueError as error:
        raise ValueError(f"{text!r} is not a CIDR: {error}") from None
    if network.num_addresses < 8:
        raise ValueError(f"{text!r} is too small: give a range of at least 8 addresses")
    return network


def parse_node_port_range(text: str) -> tuple[int, int]:
    """`low-high` (or a single port), both in 1..65535."""
    low_text, _, high_text = text.strip().partition("-")
    try:
        low, high = int(low_text), int(high_text or low_text)
    except ValueError:
        raise ValueError(f"{text!r} is not a port range: give LOW-HIGH, e.g. {DEFAULT_NODE_PORT_RANGE}") from None
    if not 0 < low <= high <= 65535:
        raise ValueError(f"{text!r} is not a port range: give LOW-HIGH within 1-65535, LOW not above HIGH")
    return low, high


@dataclass(frozen=True)
class ServiceRanges:
    cluster_ips: Network
    node_ports: tuple[int, int]

    @classmethod
    def parse(cls, cluster_ip_range: str = DEFAULT_CLUSTER_IP_RANGE,
              node_port_range: str = DEFAULT_NODE_PORT_RANGE) -> ServiceRanges:
        return cls(parse_cluster_ip_range(cluster_ip_range), parse_node_port_range(node_port_range))

    @property
    def family(self) -> str:
        return "IPv6" if self.cluster_ips.version == 6 else "IPv4"

    @property
    def first_ip(self) -> Address:
        """The address of the `kubernetes` Service: the range's first after the network address."""
        return self.cluster_ips.network_address + 1

    def ip_count(self) -> int:
        """Addresses a Service may get: all but the network and (IPv4) broadcast addresses."""
        return self.cluster_ips.num_addresses - (2 if self.cluster_ips.version == 4 else 1)

    def ip_at(self, index: int) -> Address:
        return self.cluster_ips.network_address + 1 + index

    def contains_ip(self, ip: Address) -> bool:
        if ip not in self.cluster_ips or ip == self.cluster_ips.network_address:
            return False
        return self.cluster_ips.version == 6 or ip != self.cluster_ips.broadcast_address

    def port_count(self) -> int:
        return self.node_ports[1] - self.node_ports[0] + 1

    def ports_text(self) -> str:
        low, high = self.node_ports
        return f"{low}-{high}"


def dynamic_offset(size: int, low: int, high: int, divisor: int) -> int:
    """Where upstream's allocators start handing out values: the band below is kept for values clients ask
    for (ipallocator: min(max(16, size/16), 256); portallocator: min(max(16, size/32), 128))."""
    return min(max(low, size // divisor), high)
