"""EndpointSlice validation (upstream discovery ValidateEndpointSlice, ValidateEndpointSliceUpdate)."""

from __future__ import annotations

import re
from typing import Any

from fakeapi.kinds.endpoints.validation import validate_endpoint_ip
from fakeapi.kinds.service.validation import PROTOCOLS
from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation import names
from fakeapi.machinery.validation.objectmeta import (
    FIELD_IMMUTABLE,
    validate_label_name,
    validate_labels,
    validate_object_meta,
)
from fakeapi.machinery.validation.values import as_dict, as_list, as_str

ADDRESS_TYPES = ["FQDN", "IPv4", "IPv6"]
MAX_TOPOLOGY_LABELS = 16
MAX_ADDRESSES = 100
MAX_PORTS = 20000
MAX_ENDPOINTS = 1000
MAX_ZONE_HINTS = 8
_IPV4 = re.compile(r"[0-9]{1,3}(\.[0-9]{1,3}){3}")


def validate_endpoint_slice(slice_: JSON) -> list[FieldError]:
    errs = validate_object_meta(as_dict(slice_.get("metadata")), True, "metadata", names.name_is_dns_subdomain)
    address_type = as_str(slice_.get("addressType"))
    if not address_type:
        errs.append(fe.required("addressType"))
    elif address_type not in ADDRESS_TYPES:
        errs.append(fe.not_supported("addressType", address_type, ADDRESS_TYPES))
    errs += _validate_endpoints(as_list(slice_.get("endpoints")), address_type)
    return errs + _validate_ports(as_list(slice_.get("ports")))


def validate_endpoint_slice_update(new: JSON, old: JSON) -> list[FieldError]:
    errs = validate_endpoint_slice(new)
    if new.get("addressType") != old.get("addressType"):
        errs.append(fe.invalid("addressType", as_str(new.get("addressType")), FIELD_IMMUTABLE))
    return errs


def _validate_address(address: str, address_type: str, path: str) -> list[FieldError]:
    if address_type == "IPv4":
        ip = names.parse_ip_sloppy(address)
        if ip is None or ip.version != 4 or not _IPV4.fullmatch(address):
            return [fe.invalid(path, address, "must be a valid IPv4 address")]
        return validate_endpoint_ip(address, path)
    if address_type == "IPv6":
        ip = names.parse_ip_sloppy(address)
        if ip is None or ip.version != 6:
            return [fe.invalid(path, address, "must be a valid IPv6 address")]
        return validate_endpoint_ip(address, path)
    if address_type == "FQDN":
        return _validate_fqdn(address, path)
    return []


def _validate_fqdn(name: str, path: str) -> list[FieldError]:
    """IsFullyQualifiedDomainName: a DNS subdomain of at least two labels."""
    trimmed = name.removesuffix(".")
    if not trimmed:
        return [fe.required(path)]
    errs = [fe.invalid(path, trimmed, message) for message in names.is_dns1123_subdomain(trimmed)]
    if not errs and len(trimmed.split(".")) < 2:
        errs.append(fe.invalid(path, trimmed, "should be a domain with at least two segments separated by dots"))
    return errs


def _validate_endpoints(endpoints: list[Any], address_type: str) -> list[FieldError]:
    if len(endpoints) > MAX_ENDPOINTS:
        return [fe.too_many("endpoints", len(endpoints), MAX_ENDPOINTS)]
    errs: list[FieldError] = []
    for index, raw in enumerate(endpoints):
        endpoint, at = as_dict(raw), f"endpoints[{index}]"
        addresses = as_list(endpoint.get("addresses"))
        if not addresses:
            errs.append(fe.required(f"{at}.addresses", "must contain at least 1 address"))
        elif len(addresses) > MAX_ADDRESSES:
            errs.append(fe.too_many(f"{at}.addresses", len(addresses), MAX_ADDRESSES))
        for position, address in enumerate(addresses):
            errs += _validate_address(as_str(address), address_type, f"{at}.addresses[{position}]")
        if endpoint.get("nodeName") is not None:
            node = as_str(endpoint.get("nodeName"))
            errs += [fe.invalid(f"{at}.nodeName", node, m) for m in names.name_is_dns_subdomain(node, False)]
        topology = as_dict(endpoint.get("deprecatedTopology"))
        if len(topology) > MAX_TOPOLOGY_LABELS:
            errs.append(fe.too_many(f"{at}.deprecatedTopology", len(topology), MAX_TOPOLOGY_LABELS))
        errs += validate_labels(topology, f"{at}.deprecatedTopology")
        if endpoint.get("zone") is not None:
            errs += validate_label_name(as_str(endpoint.get("zone")), f"{at}.zone")
        if endpoint.get("hostname") is not None:
            hostname = as_str(endpoint.get("hostname"))
            errs += [fe.invalid(f"{at}.hostname", hostname, m) for m in names.is_dns1123_label(hostname)]
        zones = as_list(as_dict(endpoint.get("hints")).get("forZones"))
        if len(zones) > MAX_ZONE_HINTS:
            errs.append(fe.too_many(f"{at}.hints.forZones", len(zones), MAX_ZONE_HINTS))
        seen: set[str] = set()
        for position, zone in enumerate(zones):
            zone_name = as_str(as_dict(zone).get("name"))
            zone_at = f"{at}.hints.forZones[{position}].name"
            if zone_name in seen:
                errs.append(fe.duplicate(zone_at, zone_name))
            else:
                seen.add(zone_name)
                errs += validate_label_name(zone_name, zone_at)
    return errs


def _validate_ports(ports: list[Any]) -> list[FieldError]:
    if len(ports) > MAX_PORTS:
        return [fe.too_many("ports", len(ports), MAX_PORTS)]
    errs: list[FieldError] = []
    seen: set[str] = set()
    for index, raw in enumerate(ports):
        port, at = as_dict(raw), f"ports[{index}]"
        name = as_str(port.get("name"))
        if name:
            errs += [fe.invalid(f"{at}.name", name, message) for message in names.is_dns1123_label(name)]
        if name in seen:
            errs.append(fe.duplicate(f"{at}.name", name))
        seen.add(name)
        protocol = port.get("protocol")
        if protocol is None:
            errs.append(fe.required(f"{at}.protocol"))
        elif protocol not in PROTOCOLS:
            errs.append(fe.not_supported(f"{at}.protocol", as_str(protocol), PROTOCOLS))
        if port.get("appProtocol") is not None:
            text = as_str(port.get("appProtocol"))
            errs += [fe.invalid(f"{at}.appProtocol", text, message) for message in names.is_qualified_name(text)]
    return errs
