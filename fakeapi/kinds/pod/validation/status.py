"""pods/status updates (ValidatePodStatusUpdate): conditions, qosClass, state transitions, IPs."""

from __future__ import annotations

from typing import Any

from fakeapi.kinds.pod.validation.annotations import validate_pod_specific_annotation_updates
from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation import names
from fakeapi.machinery.validation.objectmeta import FIELD_IMMUTABLE, same_metadata, validate_object_meta_update
from fakeapi.machinery.validation.values import GoText, as_dict, as_int, as_list, as_str, go_quote

_SYSTEM_CONDITIONS = frozenset({"PodScheduled", "Ready", "Initialized"})
_HEALTH = ["Healthy", "Unhealthy", "Unknown"]


def _conditions(conditions: list[Any], path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    for index, raw in enumerate(conditions):
        kind = as_str(as_dict(raw).get("type"))
        if kind in _SYSTEM_CONDITIONS:
            continue
        # upstream builds this path from "metadata" and the Go field name "Type"
        errs += [fe.invalid(f"{path}[{index}].Type", kind, msg) for msg in names.is_qualified_name(kind)]
    return errs


def _terminated(status: Any) -> JSON | None:
    terminated = as_dict(as_dict(status).get("state")).get("terminated")
    return terminated if isinstance(terminated, dict) else None


def _state_transitions(
    new: list[Any], old: list[Any], path: str, restart_policy: str, restartable: frozenset[str] = frozenset()
) -> list[FieldError]:
    """Terminated containers stay terminated unless the restart policy (or being a sidecar) allows it."""
    if restart_policy == "Always":
        return []
    errs: list[FieldError] = []
    for index, old_status in enumerate(old):
        terminated = _terminated(old_status)
        if terminated is None:
            continue
        if as_int(terminated.get("exitCode")) != 0 and restart_policy == "OnFailure":
            continue
        name = as_str(as_dict(old_status).get("name"))
        if name in restartable:
            continue
        for new_status in new:
            if as_str(as_dict(new_status).get("name")) == name and _terminated(new_status) is None:
                errs.append(
                    fe.forbidden(f"{path}[{index}].state", "may not be transitioned to non-terminated state")
                )
    return errs


def _resource_claim_statuses(statuses: list[Any], spec: JSON, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    claims = {as_str(as_dict(c).get("name")) for c in as_list(spec.get("resourceClaims"))}
    seen: set[str] = set()
    for index, raw in enumerate(statuses):
        status, at = as_dict(raw), f"{path}[{index}].name"
        name = as_str(status.get("name"))
        if name not in claims:
            errs.append(fe.invalid(at, name, "must match the name of an entry in `spec.resourceClaims`"))
        if name in seen:
            errs.append(fe.duplicate(at, name))
        seen.add(name)
        claim_name = status.get("resourceClaimName")
        if claim_name is not None:
            text = as_str(claim_name)
            errs += [fe.invalid(at, text, msg) for msg in names.is_dns1123_subdomain(text)]
    return errs


def _ip_literal(type_name: str, ip: str) -> GoText:
    return GoText(f"core.{type_name}{{IP:{go_quote(ip)}}}")


def _dual_stack(ips: list[str], path: str, shown: GoText) -> list[FieldError]:
    errs: list[FieldError] = []
    parsed = [names.parse_ip_sloppy(ip) for ip in ips]
    if any(ip is None for ip in parsed):
        detail = "failed to check for dual stack with error:ip <nil> is invalid"
        errs.append(fe.FieldError(fe.INTERNAL, path, fe.OMIT, detail))
        dual = False
    else:
        families = {names.is_ipv6(ip) for ip in parsed if ip is not None}
        dual = len(families) == 2
    if not dual or len(ips) > 2:
        errs.append(fe.invalid(path, shown, "may specify no more than one IP for each IP family"))
    return errs


def _pod_ips(status: JSON) -> list[FieldError]:
    path = "status.podIPs"
    ips = [as_str(as_dict(p).get("ip")) for p in as_list(status.get("podIPs"))]
    errs: list[FieldError] = []
    for index, ip in enumerate(ips):
        errs += [fe.invalid(f"{path}[{index}]", ip, msg) for msg in names.is_valid_ip(ip)]
    if len(ips) > 1:
        shown = GoText("[]core.PodIP{" + ", ".join(str(_ip_literal("PodIP", ip)) for ip in ips) + "}")
        errs += _dual_stack(ips, path, shown)
        seen: set[str] = set()
        for index, ip in enumerate(ips):
            if ip in seen:
                errs.append(fe.duplicate(f"{path}[{index}]", _ip_literal("PodIP", ip)))
            seen.add(ip)
    return errs


def _host_ips(status: JSON) -> list[FieldError]:
    path = "status.hostIPs"
    ips = [as_str(as_dict(p).get("ip")) for p in as_list(status.get("hostIPs"))]
    if not ips:
        return []
    errs: list[FieldError] = []
    if as_str(status.get("hostIP")) != ips[0]:
        errs.append(fe.invalid(f"{path}[0].ip", ips[0], "must be equal to `hostIP`"))
    for index, ip in enumerate(ips):
        errs += [fe.invalid(f"{path}[{index}]", ip, msg) for msg in names.is_valid_ip(ip)]
    if len(ips) > 1:
        seen: set[str] = set()
        for index, ip in enumerate(ips):
            if ip in seen:
                errs.append(fe.duplicate(f"{path}[{index}]", _ip_literal("HostIP", ip)))
            seen.add(ip)
        shown = GoText("[]core.HostIP{" + ", ".join(str(_ip_literal("HostIP", ip)) for ip in ips) + "}")
        errs += _dual_stack(ips, path, shown)
    return errs


def _status_users(statuses: list[Any], path: str, os_name: str) -> list[FieldError]:
    errs: list[FieldError] = []
    for index, raw in enumerate(statuses):
        user = as_dict(raw).get("user")
        if not isinstance(user, dict):
            continue
        linux, at = user.get("linux"), f"{path}[{index}].linux"
        if os_name == "windows":
            if linux is not None:
                errs.append(fe.forbidden(at, "cannot be set for a windows pod"))
            continue
        if os_name != "linux" or not isinstance(linux, dict):
            continue
        uid, gid = as_int(linux.get("uid")), as_int(linux.get("gid"))
        errs += [fe.invalid(f"{at}.uid", uid, msg) for msg in names.is_valid_user_id(uid)]
        errs += [fe.invalid(f"{at}.gid", gid, msg) for msg in names.is_valid_group_id(gid)]
        for group_index, group in enumerate(as_list(linux.get("supplementalGroups"))):
            value = as_int(group)
            errs += [
                fe.invalid(f"{at}.supplementalGroups[{group_index}]", value, m)
                for m in names.is_valid_group_id(value)
            ]
    return errs


def _claim_key(claim: JSON) -> str:
    request = as_str(claim.get("request"))
    return "claim:" + as_str(claim.get("name")) + (f"/{request}" if request else "")


def _allocated_status(statuses: list[Any], path: str, containers: list[Any]) -> list[FieldError]:
    errs: list[FieldError] = []
    by_name = {as_str(as_dict(c).get("name")): as_dict(c) for c in reversed(containers)}
    for index, raw in enumerate(statuses):
        status = as_dict(raw)
        allocated = status.get("allocatedResourcesStatus")
        if allocated is None:
            continue
        container = by_name.get(as_str(status.get("name")))
        for entry_index, entry_raw in enumerate(as_list(allocated)):
            entry, at = as_dict(entry_raw), f"{path}[{index}].allocatedResourcesStatus[{entry_index}]"
            name = as_str(entry.get("name"))
            if container is not None:
                resources = as_dict(container.get("resources"))
                if name.startswith("claim:"):
                    detail = (
                        "must match one of the container's resource claims in a format "
                        "'claim:<claimName>/<request>' or 'claim:<claimName>' if request is empty"
                    )
                    known = {
                        _claim_key(as_dict(c)) for c in as_list(resources.get("claims"))
                    }  # fmt: skip
                else:
                    detail, known = (
                        "must match one of the container's resource requests",
                        set(as_dict(resources.get("requests"))),
                    )
                if name not in known:
                    errs.append(fe.invalid(f"{at}.name", name, detail))
            ids: set[str] = set()
            for resource_index, resource_raw in enumerate(as_list(entry.get("resources"))):
                resource, resource_at = as_dict(resource_raw), f"{at}.resources[{resource_index}]"
                health = as_str(resource.get("health"))
                if health not in _HEALTH:
                    errs.append(fe.not_supported(f"{resource_at}.health", health, _HEALTH))
                resource_id = as_str(resource.get("resourceID"))
                if resource_id in ids:
                    errs.append(fe.duplicate(f"{resource_at}.resourceID", resource_id))
                ids.add(resource_id)
    return errs


def _sidecars(spec: JSON) -> frozenset[str]:
    """The init containers that restart like regular ones (restartPolicy Always)."""
    return frozenset(as_str(as_dict(c).get("name")) for c in as_list(spec.get("initContainers"))
                     if as_dict(c).get("restartPolicy") == "Always")


_CONTAINER_STATUS_LISTS = ("containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses")
# the other status fields with checks of their own (conditions, nominatedNodeName and qosClass come first)
_CHECKED_WHEN_CHANGED = frozenset(("resourceClaimStatuses", "podIPs", "podIP", "hostIPs", "hostIP"))


def validate_pod_status_update(new: JSON, old: JSON) -> list[FieldError]:
    """ValidatePodStatusUpdate, in upstream's order. (rest.BeforeUpdate's generic ObjectMeta checks
    are `meta.validate_common_update`, which the registry runs first.)

    The spec is the stored one (the status strategy put it back), and every stored status passed
    these checks when it was written: parts of the status that did not change are not re-checked.
    """
    new_meta, old_meta = as_dict(new.get("metadata")), as_dict(old.get("metadata"))
    new_spec, old_spec = as_dict(new.get("spec")), as_dict(old.get("spec"))
    new_status, old_status = as_dict(new.get("status")), as_dict(old.get("status"))

    changed = {key for key, value in new_status.items() if value is not old_status.get(key)
               and value != old_status.get(key)}
    if not old_status.keys() <= new_status.keys():
        changed.update(old_status.keys() - new_status.keys())
    errs: list[FieldError] = []
    if not same_metadata(new_meta, old_meta):
        errs += validate_object_meta_update(new_meta, old_meta)
        errs += validate_pod_specific_annotation_updates(new, old, "metadata.annotations")
    if "conditions" in changed:
        errs += _conditions(as_list(new_status.get("conditions")), "metadata.conditions")
    if new_spec is not old_spec and as_str(new_spec.get("nodeName")) != as_str(old_spec.get("nodeName")):
        errs.append(fe.forbidden("status.nodeName", "may not be changed directly"))
    if "nominatedNodeName" in changed:
        nominated = as_str(new_status.get("nominatedNodeName"))
        if nominated and nominated != as_str(old_status.get("nominatedNodeName")):
            errs += [
                fe.invalid("status.nominatedNodeName", nominated, msg)
                for msg in names.is_dns1123_subdomain(nominated)
            ]
    if "qosClass" in changed:
        new_qos, old_qos = as_str(new_status.get("qosClass")), as_str(old_status.get("qosClass"))
        if new_qos != old_qos:
            errs.append(fe.invalid("status.qosClass", new_qos, FIELD_IMMUTABLE))
    if changed.isdisjoint(_CONTAINER_STATUS_LISTS) and changed.isdisjoint(_CHECKED_WHEN_CHANGED):
        return errs  # the common status write: conditions, phase, message and the like
    restart_policy = as_str(old_spec.get("restartPolicy"))
    for key, policy in (
        ("containerStatuses", restart_policy),
        ("initContainerStatuses", restart_policy),
        ("ephemeralContainerStatuses", "Never"),
    ):
        if key in changed:
            restartable = _sidecars(old_spec) if key == "initContainerStatuses" else frozenset()
            errs += _state_transitions(
                as_list(new_status.get(key)), as_list(old_status.get(key)), f"status.{key}", policy, restartable
            )
    if "resourceClaimStatuses" in changed:
        errs += _resource_claim_statuses(
            as_list(new_status.get("resourceClaimStatuses")), new_spec, "status.resourceClaimStatuses"
        )
    if "podIPs" in changed or "podIP" in changed:
        errs += _pod_ips(new_status)
    if "hostIPs" in changed or "hostIP" in changed:
        errs += _host_ips(new_status)
    os_name = as_str(as_dict(new_spec.get("os")).get("name")) or "linux"
    for key in _CONTAINER_STATUS_LISTS:
        if key in changed:
            errs += _status_users(as_list(new_status.get(key)), f"status.{key}", os_name)
    if "containerStatuses" in changed:
        errs += _allocated_status(
            as_list(new_status.get("containerStatuses")),
            "status.containerStatuses",
            as_list(new_spec.get("containers")),
        )
    if "initContainerStatuses" in changed:
        errs += _allocated_status(
            as_list(new_status.get("initContainerStatuses")),
            "status.initContainerStatuses",
            as_list(new_spec.get("initContainers")),
        )
    if "ephemeralContainerStatuses" in changed:
        for index, raw in enumerate(as_list(new_status.get("ephemeralContainerStatuses"))):
            if as_list(as_dict(raw).get("allocatedResourcesStatus")):
                at = f"status.ephemeralContainerStatuses[{index}].allocatedResourcesStatus"
                errs.append(fe.forbidden(at, "must not be specified in container status"))
    return errs
