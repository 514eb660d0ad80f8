"""What upstream's Service REST does before a Service write reaches its strategy (the store's BeginCreate and
BeginUpdate): keep clusterIP and clusterIPs in step, set the IP family fields, and give out cluster IPs and
node ports from the server's ranges, with the allocators' errors.

What is given out is read from the stored Services at each write (one synchronous pass over them, as the
store is single-threaded; a Service's bytes read before are not decoded again): nothing else to keep, so a
server restarted on its storage file or put back to a snapshot hands out nothing twice, and a deleted
Service's addresses and ports are free again at once. Dynamic values are drawn at random
above a low band kept for values clients ask for, as upstream's allocators do (from the server's seeded
random source, so a seeded server gives the same addresses each run).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import orjson

from fakeapi.kinds.service.ranges import ServiceRanges, dynamic_offset
from fakeapi.kinds.service.validation import cluster_ips, is_headless, needs_health_check, validate_cluster_ip_fields
from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.errors import InternalError, Invalid
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation import names
from fakeapi.machinery.validation.values import GoText, as_dict, as_int, as_list, as_str, go_string_slice
from fakeapi.registry.options import WriteOptions
from fakeapi.storage.store import Store

SERVICES = "services"
Random = Callable[[int], int]  # n -> a number in [0, n)


def needs_cluster_ip(spec: JSON) -> bool:
    return spec.get("type") != "ExternalName"


def needs_node_ports(spec: JSON) -> bool:
    return spec.get("type") == "NodePort" or (spec.get("type") == "LoadBalancer"
                                              and spec.get("allocateLoadBalancerNodePorts") is not False)


class Held(NamedTuple):
    """What one stored Service holds."""

    name: tuple[str, str]  # namespace, name
    ips: tuple[str, ...]
    ports: tuple[int, ...]


def _held_by(data: bytes) -> Held:
    service = orjson.loads(data)
    meta, spec = as_dict(service.get("metadata")), as_dict(service.get("spec"))
    ports = [as_int(as_dict(port).get("nodePort")) for port in as_list(spec.get("ports"))]
    return Held((as_str(meta.get("namespace")), as_str(meta.get("name"))),
                tuple(ip for ip in cluster_ips(spec) if ip != "None"),
                (*ports, as_int(spec.get("healthCheckNodePort"))))


class ServiceAllocation:
    def __init__(self, store: Store, ranges: ServiceRanges, random: Random) -> None:
        self.store = store
        self.ranges = ranges
        self.random = random
        self._held: dict[bytes, Held] = {}  # by a stored Service's bytes: what it held when last read

    # ---- what is taken

    def _taken(self, skip: tuple[str, str] | None) -> tuple[set[str], set[int]]:
        """The cluster IPs and node ports the stored Services hold (but the one being written)."""
        ips: set[str] = set()
        ports: set[int] = set()
        held_now: dict[bytes, Held] = {}
        for data in self.store.list_bytes(SERVICES):
            held = self._held.get(data) or _held_by(data)
            held_now[data] = held
            if skip != held.name:
                ips.update(held.ips)
                ports.update(held.ports)
        self._held = held_now  # what the next write can reuse: the Services that did not change meanwhile
        ports.discard(0)
        return ips, ports

    # ---- the hooks

    def begin_create(self, service: JSON, options: WriteOptions) -> None:
        spec = service.setdefault("spec", {})
        if not isinstance(spec, dict):
            return
        if spec.get("clusterIP") and not as_list(spec.get("clusterIPs")):
            spec["clusterIPs"] = [spec["clusterIP"]]  # an old client sets the singular field only
        taken_ips, taken_ports = self._taken(None)
        name = as_str(as_dict(service.get("metadata")).get("name"))
        if needs_cluster_ip(spec):
            self._init_families(spec, name)
            self._allocate_cluster_ip(spec, name, taken_ips)
        self._allocate_node_ports(spec, name, taken_ports)

    def begin_update(self, service: JSON, old: JSON, options: WriteOptions) -> None:
        spec, old_spec = service.get("spec"), as_dict(old.get("spec"))
        if not isinstance(spec, dict):
            return
        _patch_allocated_values(spec, old_spec)
        _normalize_cluster_ips(spec, old_spec)
        meta = as_dict(old.get("metadata"))
        taken_ips, taken_ports = self._taken((as_str(meta.get("namespace")), as_str(meta.get("name"))))
        name = as_str(meta.get("name"))
        if needs_cluster_ip(spec):
            if not needs_cluster_ip(old_spec):  # from ExternalName: addresses as for a new Service
                self._init_families(spec, name)
                self._allocate_cluster_ip(spec, name, taken_ips)
            else:
                self._init_families(spec, name)
        self._allocate_node_ports(spec, name, taken_ports)

    # ---- IP families and addresses

    def _init_families(self, spec: JSON, name: str) -> None:
        """initIPFamilyFields on a single-stack cluster: the cluster-IP fields valid, the policy SingleStack
        unless given, the family the cluster's; a dual-stack request fails."""
        errs = validate_cluster_ip_fields(spec)
        if errs:
            raise Invalid("Service", name, errs)
        family = self.ranges.family
        policy = spec.get("ipFamilyPolicy")
        if policy == "RequireDualStack":
            raise Invalid("Service", name, [fe.invalid("spec.ipFamilyPolicy", "RequireDualStack",
                                                       "this cluster is not configured for dual-stack services")])
        families = [as_str(f) for f in as_list(spec.get("ipFamilies"))]
        ips = [ip for ip in cluster_ips(spec) if ip != "None"]
        errors: list[FieldError] = []
        for index, ip in enumerate(ips):
            parsed = names.parse_ip_sloppy(ip)
            ip_family = "IPv6" if parsed is not None and names.is_ipv6(parsed) else "IPv4"
            if ip_family != family:
                errors.append(fe.invalid(f"spec.clusterIPs[{index}]", _go_ips(cluster_ips(spec)),
                                         f"IP family {ip_family} is not configured on this cluster"))
        for index, requested in enumerate(families):
            if requested != family:
                errors.append(fe.invalid(f"spec.ipFamilies[{index}]", requested, "not configured on this cluster"))
        if errors:
            raise Invalid("Service", name, errors)
        if policy is None:
            spec["ipFamilyPolicy"] = "SingleStack"
        if not families:
            spec["ipFamilies"] = [family]

    def _allocate_cluster_ip(self, spec: JSON, name: str, taken: set[str]) -> None:
        ips = cluster_ips(spec)
        if is_headless(spec):
            return
        if not ips:
            ip = self._next_ip(taken)
            spec["clusterIP"] = ip
            spec["clusterIPs"] = [ip]
            return
        requested = ips[0]
        parsed = names.parse_ip_sloppy(requested)
        if parsed is None or not self.ranges.contains_ip(parsed):
            reason = (f"the provided IP ({requested}) is not in the valid range. The range of valid IPs is "
                      f"{self.ranges.cluster_ips}")
        elif str(parsed) in taken:
            reason = "provided IP is already allocated"
        else:
            return
        raise Invalid("Service", name, [fe.invalid("spec.clusterIPs", _go_ips(ips),
                                                   f"failed to allocate IP {requested}: {reason}")])

    def _next_ip(self, taken: set[str]) -> str:
        size = self.ranges.ip_count()
        offset = dynamic_offset(size, 16, 256, 16) if size > 16 else 0
        for band_start, band_size in ((offset, size - offset), (0, offset)):
            found = self._pick(band_start, band_size, lambda index: str(self.ranges.ip_at(index)) not in taken)
            if found is not None:
                return str(self.ranges.ip_at(found))
        raise InternalError("Internal error occurred: failed to allocate a serviceIP: range is full")

    def _pick(self, start: int, size: int, free: Callable[[int], bool]) -> int | None:
        """A free index in [start, start+size): from a random point on, as upstream's random scan."""
        if size <= 0:
            return None
        first = self.random(size)
        for step in range(size):
            index = start + (first + step) % size
            if free(index):
                return index
        return None

    # ---- node ports

    def _allocate_node_ports(self, spec: JSON, name: str, taken: set[int]) -> None:
        """initNodePorts: ports a client asked for are checked (the other Services' only: `taken` leaves out
        the Service written), missing ones given (one per port number, shared by its protocols), and the health
        check port of a Local LoadBalancer."""
        if spec.get("type") not in ("NodePort", "LoadBalancer"):
            return
        allocate = needs_node_ports(spec)
        given: dict[int, int] = {}
        in_use = set(taken)
        ports = [port for port in as_list(spec.get("ports")) if isinstance(port, dict)]
        for index, port in enumerate(ports):
            number, node_port = as_int(port.get("port")), as_int(port.get("nodePort"))
            if not node_port and not allocate:
                continue
            already = given.get(number)
            if already is not None:
                if not node_port:
                    port["nodePort"] = already
                elif node_port != already:
                    self._claim(node_port, index, name, in_use)
                continue
            requested = node_port or next((as_int(p.get("nodePort")) for p in ports[index:]
                                           if as_int(p.get("port")) == number and as_int(p.get("nodePort"))), 0)
            if requested:
                self._claim(requested, index, name, in_use)
            else:
                requested = self._next_port(in_use)
            port["nodePort"] = requested
            given[number] = requested
            in_use.add(requested)
        if needs_health_check(spec):
            health = as_int(spec.get("healthCheckNodePort"))
            if not health:
                spec["healthCheckNodePort"] = self._next_port(in_use)
            else:
                self._claim(health, -1, name, in_use)

    def _claim(self, port: int, index: int, name: str, in_use: set[int]) -> None:
        low, high = self.ranges.node_ports
        reason = ""
        if not low <= port <= high:
            reason = f"provided port is not in the valid range. The range of valid ports is {self.ranges.ports_text()}"
        elif port in in_use:
            reason = "provided port is already allocated"
        if reason:
            path = f"spec.ports[{index}].nodePort" if index >= 0 else "spec.healthCheckNodePort"
            raise Invalid("Service", name, [fe.invalid(path, port, reason)])
        in_use.add(port)

    def _next_port(self, in_use: set[int]) -> int:
        low, _high = self.ranges.node_ports
        size = self.ranges.port_count()
        offset = dynamic_offset(size, 16, 128, 32) if size > 16 else 0
        for band_start, band_size in ((offset, size - offset), (0, offset)):
            found = self._pick(band_start, band_size, lambda index: low + index not in in_use)
            if found is not None:
                return low + found
        raise InternalError("Internal error occurred: failed to allocate a nodePort: range is full")


def _go_ips(ips: list[str]) -> GoText:
    return go_string_slice(ips) if ips else GoText("[]string(nil)")


def _patch_allocated_values(spec: JSON, old_spec: JSON) -> None:
    """patchAllocatedValues: a write that leaves out what the server gave (a re-applied manifest) keeps it."""
    if needs_cluster_ip(old_spec) and needs_cluster_ip(spec):
        if not spec.get("clusterIP") and old_spec.get("clusterIP"):
            spec["clusterIP"] = old_spec["clusterIP"]
        if not as_list(spec.get("clusterIPs")) and as_list(old_spec.get("clusterIPs")):
            spec["clusterIPs"] = list(old_spec["clusterIPs"])
    old_types = ("NodePort", "LoadBalancer")
    if old_spec.get("type") in old_types and spec.get("type") in old_types:
        ports = [p for p in as_list(spec.get("ports")) if isinstance(p, dict)]
        old_ports = [as_dict(p) for p in as_list(old_spec.get("ports"))]
        used = {as_int(p.get("nodePort")) for p in old_ports} & {as_int(p.get("nodePort")) for p in ports}
        by_name = {as_str(p.get("name")): as_int(p.get("nodePort")) for p in old_ports}
        for port in ports:
            if not as_int(port.get("nodePort")):
                previous = by_name.get(as_str(port.get("name")), 0)
                if previous and previous not in used:
                    port["nodePort"] = previous
    if needs_health_check(old_spec) and needs_health_check(spec) and not as_int(spec.get("healthCheckNodePort")):
        if old_spec.get("healthCheckNodePort"):
            spec["healthCheckNodePort"] = old_spec["healthCheckNodePort"]


def _normalize_cluster_ips(spec: JSON, old_spec: JSON) -> None:
    """NormalizeClusterIPs on update: the singular and plural fields, as old and new clients send them."""
    old_ips, ips = as_list(old_spec.get("clusterIPs")), as_list(spec.get("clusterIPs"))
    if old_ips and not ips and old_spec.get("clusterIP") == spec.get("clusterIP"):
        spec["clusterIPs"] = list(old_ips)
        ips = spec["clusterIPs"]
    old_ip, ip = as_str(old_spec.get("clusterIP")), as_str(spec.get("clusterIP"))
    if old_ip != ip:
        same = ips == old_ips
        if old_ip and not ip:
            if same:
                spec.pop("clusterIPs", None)
        elif same:
            spec["clusterIPs"] = [ip]

