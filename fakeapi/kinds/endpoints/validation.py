"""Endpoints validation (upstream core ValidateEndpoints, ValidateEndpointsUpdate, ValidateEndpointIP)."""

from __future__ import annotations

from typing import Any

from fakeapi.kinds.service.validation import PROTOCOLS
from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation import names
from fakeapi.machinery.validation.objectmeta import validate_object_meta, validate_object_meta_update
from fakeapi.machinery.validation.values import as_dict, as_int, as_list, as_str


def validate_endpoint_ip(ip_text: str, path: str) -> list[FieldError]:
    """ValidateEndpointIP: no unspecified, loopback, link-local or link-local multicast address."""
    ip = names.parse_ip_sloppy(ip_text)
    if ip is None:
        return [fe.invalid(path, ip_text, "must be a valid IP address")]
    errs: list[FieldError] = []
    if ip.is_unspecified:
        errs.append(fe.invalid(path, ip_text, f"may not be unspecified ({ip_text})"))
    if ip.is_loopback:
        errs.append(fe.invalid(path, ip_text, "may not be in the loopback range (127.0.0.0/8, ::1/128)"))
    if ip.is_link_local and not ip.is_multicast:
        errs.append(fe.invalid(path, ip_text, "may not be in the link-local range (169.254.0.0/16, fe80::/10)"))
    packed = ip.packed
    if (ip.version == 4 and packed[:3] == b"\xe0\x00\x00") or (ip.version == 6 and packed[0] == 0xFF
                                                              and packed[1] & 0x0F == 0x02):
        errs.append(fe.invalid(path, ip_text,
                               "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"))
    return errs


def validate_endpoints(endpoints: JSON) -> list[FieldError]:
    errs = validate_object_meta(as_dict(endpoints.get("metadata")), True, "metadata", names.name_is_dns_subdomain)
    return errs + _validate_subsets(endpoints.get("subsets"))


def validate_endpoints_update(new: JSON, old: JSON) -> list[FieldError]:
    errs = validate_object_meta_update(as_dict(new.get("metadata")), as_dict(old.get("metadata")))
    return errs + _validate_subsets(new.get("subsets"))


def _validate_subsets(subsets: Any) -> list[FieldError]:
    errs: list[FieldError] = []
    for index, raw in enumerate(as_list(subsets)):
        subset, at = as_dict(raw), f"subsets[{index}]"
        addresses, not_ready = as_list(subset.get("addresses")), as_list(subset.get("notReadyAddresses"))
        if not addresses and not not_ready:
            errs.append(fe.required(at, "must specify `addresses` or `notReadyAddresses`"))
        for key, listed in (("addresses", addresses), ("notReadyAddresses", not_ready)):
            for position, address in enumerate(listed):
                errs += _validate_address(as_dict(address), f"{at}.{key}[{position}]")
        ports = as_list(subset.get("ports"))
        for position, port in enumerate(ports):
            errs += _validate_port(as_dict(port), len(ports) > 1, f"{at}.ports[{position}]")
    return errs


def _validate_address(address: JSON, path: str) -> list[FieldError]:
    ip = as_str(address.get("ip"))
    errs = [fe.invalid(f"{path}.ip", ip, message) for message in names.is_valid_ip(ip)]
    hostname = as_str(address.get("hostname"))
    if hostname:
        errs += [fe.invalid(f"{path}.hostname", hostname, message) for message in names.is_dns1123_label(hostname)]
    if address.get("nodeName") is not None:
        node = as_str(address.get("nodeName"))
        errs += [fe.invalid(f"{path}.nodeName", node, message) for message in names.name_is_dns_subdomain(node, False)]
    return errs + validate_endpoint_ip(ip, f"{path}.ip")


def _validate_port(port: JSON, require_name: bool, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    name = as_str(port.get("name"))
    if require_name and not name:
        errs.append(fe.required(f"{path}.name"))
    elif name:
        errs += [fe.invalid(f"{path}.name", name, message) for message in names.is_dns1123_label(name)]
    number = as_int(port.get("port"))
    errs += [fe.invalid(f"{path}.port", number, message) for message in names.is_valid_port_num(number)]
    protocol = as_str(port.get("protocol"))
    if not protocol:
        errs.append(fe.required(f"{path}.protocol"))
    elif protocol not in PROTOCOLS:
        errs.append(fe.not_supported(f"{path}.protocol", protocol, PROTOCOLS))
    if port.get("appProtocol") is not None:
        text = as_str(port.get("appProtocol"))
        errs += [fe.invalid(f"{path}.appProtocol", text, message) for message in names.is_qualified_name(text)]
    return errs
