"""Node validation on create and update (upstream ValidateNode / ValidateNodeUpdate), with its messages,
field paths and quirks: taints are reported under `metadata.taints` (upstream's path), capacity keys are
path children (`status.capacity.cpu`), and the node strategy's update runs both functions, so taint and
quantity errors appear twice in `details.causes` (the message shows them once)."""

from __future__ import annotations

from typing import Any

from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation import names
from fakeapi.machinery.validation.objectmeta import (
    validate_label_name,
    validate_object_meta,
    validate_object_meta_update,
)
from fakeapi.machinery.validation.resources import validate_quantity_value
from fakeapi.machinery.validation.values import (
    GoText,
    as_dict,
    as_list,
    as_str,
    go_quote,
    go_string_slice,
    go_struct,
)

TAINT_EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"]
TAINTS_PATH = "metadata.taints"  # sic: upstream builds the taints' path from the metadata path
PODS_CIDRS_PATH = "spec.podCIDRs"
_CIDR_CHANGED = 'node updates may not change podCIDR except from "" to valid'
_PROVIDER_CHANGED = 'node updates may not change providerID except from "" to valid'


def validate_node(node: JSON) -> list[FieldError]:
    """ValidateNode: metadata (the name a DNS subdomain), taints, status quantities, pod CIDRs."""
    spec = as_dict(node.get("spec"))
    errs = validate_object_meta(as_dict(node.get("metadata")), False, "metadata", names.name_is_dns_subdomain)
    errs += validate_taints(spec.get("taints"))
    errs += _validate_resources(as_dict(node.get("status")))
    return errs + _validate_pod_cidrs([as_str(cidr) for cidr in as_list(spec.get("podCIDRs"))])


def validate_node_update(new: JSON, old: JSON) -> list[FieldError]:
    """ValidateNodeUpdate: metadata rules, status quantities, distinct addresses; pod CIDRs and the provider
    ID may only be set once, externalID never changes. Everything else (labels, taints, unschedulable,
    status) may change."""
    spec, old_spec = as_dict(new.get("spec")), as_dict(old.get("spec"))
    status = as_dict(new.get("status"))
    errs = validate_object_meta_update(as_dict(new.get("metadata")), as_dict(old.get("metadata")))
    errs += _validate_resources(status)
    errs += _validate_distinct_addresses(status.get("addresses"))
    cidrs, old_cidrs = as_list(spec.get("podCIDRs")), as_list(old_spec.get("podCIDRs"))
    if old_cidrs:
        changed = fe.forbidden(PODS_CIDRS_PATH, _CIDR_CHANGED)
        if len(cidrs) != len(old_cidrs):
            errs.append(changed)
        else:
            errs += [changed for before, after in zip(old_cidrs, cidrs, strict=True) if before != after]
    old_provider = as_str(old_spec.get("providerID"))
    if old_provider and old_provider != as_str(spec.get("providerID")):
        errs.append(fe.forbidden("spec.providerID", _PROVIDER_CHANGED))
    errs += validate_taints(spec.get("taints"))
    if as_str(spec.get("externalID")) != as_str(old_spec.get("externalID")):
        errs.append(fe.forbidden("spec.externalID", "may not be updated"))
    return errs


def validate_taints(taints: Any) -> list[FieldError]:
    """validateNodeTaints: a label-name key, a label-value value, a known effect, unique (key, effect)."""
    errs: list[FieldError] = []
    seen: set[tuple[str, str]] = set()
    for index, raw in enumerate(as_list(taints)):
        taint, at = as_dict(raw), f"{TAINTS_PATH}[{index}]"
        key, value, effect = as_str(taint.get("key")), as_str(taint.get("value")), as_str(taint.get("effect"))
        errs += validate_label_name(key, f"{at}.key")
        messages = names.is_valid_label_value(value)
        if messages:
            errs.append(fe.invalid(f"{at}.value", value, ";".join(messages)))
        if not effect:
            errs.append(fe.required(f"{at}.effect"))
        elif effect not in TAINT_EFFECTS:
            errs.append(fe.not_supported(f"{at}.effect", effect, TAINT_EFFECTS))
        if (key, effect) in seen:
            shown = _taint_literal(key, value, effect, taint.get("timeAdded"))
            errs.append(fe.FieldError(fe.DUPLICATE, at, shown, "taints must be unique by key and effect pair"))
            continue
        seen.add((key, effect))
    return errs


def _taint_literal(key: str, value: str, effect: str, time_added: Any) -> GoText:
    """The taint as Go's %#v prints it; a set timeAdded is a pointer, whose address no client can know."""
    added = GoText("(*v1.Time)(0xc000000000)" if time_added else "(*v1.Time)(nil)")
    return go_struct("core.Taint", [("Key", key), ("Value", value), ("Effect", effect), ("TimeAdded", added)])


def _validate_resources(status: JSON) -> list[FieldError]:
    """ValidateNodeResources: capacity and allocatable quantities are non-negative (whole for integer
    resources such as pods)."""
    errs: list[FieldError] = []
    for field in ("capacity", "allocatable"):
        for name, amount in as_dict(status.get(field)).items():
            errs += validate_quantity_value(name, amount, f"status.{field}.{name}")
    return errs


def _validate_distinct_addresses(addresses: Any) -> list[FieldError]:
    errs: list[FieldError] = []
    seen: set[tuple[str, str]] = set()
    for index, raw in enumerate(as_list(addresses)):
        address = as_dict(raw)
        pair = as_str(address.get("type")), as_str(address.get("address"))
        if pair in seen:
            shown = go_struct("core.NodeAddress", [("Type", pair[0]), ("Address", pair[1])])
            errs.append(fe.duplicate(f"status.addresses[{index}]", shown))
        seen.add(pair)
    return errs


def _validate_pod_cidrs(cidrs: list[str]) -> list[FieldError]:
    """Each a CIDR; several only as one IPv4 and one IPv6 range, none repeated."""
    errs = [fe.invalid(f"{PODS_CIDRS_PATH}[{index}]", cidr, message)
            for index, cidr in enumerate(cidrs) for message in names.is_valid_cidr(cidr)]
    if len(cidrs) < 2:
        return errs
    networks = [names.parse_cidr_sloppy(cidr) for cidr in cidrs]
    unparsed = next((cidr for cidr, network in zip(cidrs, networks, strict=True) if network is None), None)
    dual_stack = False
    if unparsed is not None:
        errs.append(fe.internal(PODS_CIDRS_PATH, "invalid PodCIDRs. failed to check with dual stack with error:"
                                f"failed to parse cidr value:{go_quote(unparsed)} with error:"
                                f"invalid CIDR address: {unparsed}"))
    else:
        families = {names.is_ipv6(network.network_address) for network in networks if network is not None}
        dual_stack = families == {True, False}
    if not dual_stack or len(cidrs) > 2:
        errs.append(fe.invalid(PODS_CIDRS_PATH, go_string_slice(cidrs),
                               "may specify no more than one CIDR for each IP family"))
    seen: set[str] = set()
    for index, cidr in enumerate(cidrs):
        if cidr in seen:
            errs.append(fe.duplicate(f"{PODS_CIDRS_PATH}[{index}]", cidr))
        seen.add(cidr)
    return errs
