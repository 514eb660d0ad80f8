"""PodSpec validation in upstream's order (ValidatePodSpec) and the pod metadata+spec pass."""

from __future__ import annotations

from typing import Any

import orjson

from fakeapi.kinds.pod.remembered import PodRemembered
from fakeapi.kinds.pod.validation.annotations import validate_pod_specific_annotations
from fakeapi.kinds.pod.validation.container import (
    validate_containers,
    validate_ephemeral_containers,
    validate_image_whitespace,
    validate_init_containers,
)
from fakeapi.kinds.pod.validation.resources import validate_overhead, validate_pod_resources
from fakeapi.kinds.pod.validation.scheduling import (
    validate_affinity,
    validate_scheduling_gates,
    validate_tolerations,
    validate_topology_spread,
)
from fakeapi.kinds.pod.validation.security import validate_pod_security_context
from fakeapi.kinds.pod.validation.volumenames import volumes_by_position
from fakeapi.kinds.pod.validation.volumes import validate_volumes
from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation import names
from fakeapi.machinery.validation.objectmeta import validate_labels, validate_object_meta
from fakeapi.machinery.validation.values import as_dict, as_list, as_str, go_string_slice, go_struct

_ALL_HOST_PROCESS = (
    "If pod contains any hostProcess containers then all containers must be HostProcess containers"
)
RESTART_POLICIES = ["Always", "OnFailure", "Never"]
DNS_POLICIES = ["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"]
_CTX = "securityContext"
_WINDOWS_FORBIDDEN_POD = (
    (_CTX, "appArmorProfile"), (_CTX, "seLinuxOptions"), (None, "hostUsers"), (None, "hostPID"),
    (None, "hostIPC"), (_CTX, "seccompProfile"), (_CTX, "fsGroup"), (_CTX, "fsGroupChangePolicy"),
    (_CTX, "sysctls"), (None, "shareProcessNamespace"), (_CTX, "runAsUser"), (_CTX, "runAsGroup"),
    (_CTX, "supplementalGroups"), (_CTX, "supplementalGroupsPolicy"), (_CTX, "seLinuxChangePolicy"),
)  # fmt: skip
_WINDOWS_FORBIDDEN_CONTAINER = (
    "appArmorProfile", "seLinuxOptions", "seccompProfile", "capabilities", "readOnlyRootFilesystem",
    "privileged", "allowPrivilegeEscalation", "procMount", "runAsUser", "runAsGroup",
)  # fmt: skip


def visit_containers(spec: JSON, path: str) -> list[tuple[JSON, str]]:
    """podshelper.VisitContainersWithPath: init, regular, then ephemeral containers."""
    return [
        (as_dict(container), f"{path}.{key}[{index}]")
        for key in ("initContainers", "containers", "ephemeralContainers")
        for index, container in enumerate(as_list(spec.get(key)))
    ]


def _resource_claims(claims: Any, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    seen: set[str] = set()
    for index, raw in enumerate(as_list(claims)):
        claim, at = as_dict(raw), f"{path}[{index}]"
        name = as_str(claim.get("name"))
        if not name:
            errs.append(fe.required(f"{at}.name"))
        elif name in seen:
            errs.append(fe.duplicate(f"{at}.name", name))
        else:
            errs += [fe.invalid(f"{at}.name", name, msg) for msg in names.is_dns1123_label(name)]
            seen.add(name)
        claim_name, template = claim.get("resourceClaimName"), claim.get("resourceClaimTemplateName")
        shown = go_struct("core.PodResourceClaim", [("Name", name)])
        if claim_name is not None and template is not None:
            errs.append(
                fe.invalid(
                    at,
                    shown,
                    "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified",
                )
            )
        if claim_name is None and template is None:
            errs.append(
                fe.invalid(at, shown, "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`")
            )
        for key, value in (("resourceClaimName", claim_name), ("resourceClaimTemplateName", template)):
            if value is not None:
                text = as_str(value)
                errs += [fe.invalid(f"{at}.{key}", text, msg) for msg in names.is_dns1123_subdomain(text)]
    return errs


def _host_network_ports(spec: JSON, path: str) -> list[FieldError]:
    if spec.get("hostNetwork") is not True:
        return []
    errs: list[FieldError] = []
    for index, container in enumerate(as_list(spec.get("containers"))):
        for port_index, raw in enumerate(as_list(as_dict(container).get("ports"))):
            port = as_dict(raw)
            host_port, container_port = port.get("hostPort", 0), port.get("containerPort", 0)
            if host_port != container_port:
                at = f"{path}.containers[{index}].ports[{port_index}].hostPort"
                errs.append(
                    fe.invalid(at, host_port, "must match `containerPort` when `hostNetwork` is true")
                )
    return errs


def _enum(value: Any, supported: list[str], path: str) -> list[FieldError]:
    if value in supported:
        return []
    if not value:
        return [fe.required(path)]
    return [fe.not_supported(path, value, supported)]


def _image_pull_secrets(secrets: Any, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    for index, raw in enumerate(as_list(secrets)):
        secret = as_dict(raw)
        if set(secret) - {"name"}:
            shown = go_struct("core.LocalObjectReference", [("Name", as_str(secret.get("name")))])
            errs.append(fe.invalid(f"{path}[{index}]", shown, "only name may be set"))
    return errs


def _dns_config(spec: JSON, path: str) -> list[FieldError]:
    config = spec.get("dnsConfig")
    if spec.get("dnsPolicy") == "None":
        if not isinstance(config, dict):
            return [fe.required(path, "must provide `dnsConfig` when `dnsPolicy` is None")]
        if not as_list(config.get("nameservers")):
            return [
                fe.required(
                    f"{path}.nameservers", "must provide at least one DNS nameserver when `dnsPolicy` is None"
                )
            ]
    if not isinstance(config, dict):
        return []
    errs: list[FieldError] = []
    nameservers = [as_str(n) for n in as_list(config.get("nameservers"))]
    if len(nameservers) > 3:
        errs.append(
            fe.invalid(
                f"{path}.nameservers", go_string_slice(nameservers), "must not have more than 3 nameservers"
            )
        )
    for index, server in enumerate(nameservers):
        errs += [fe.invalid(f"{path}.nameservers[{index}]", server, m) for m in names.is_valid_ip(server)]
    searches = [as_str(s) for s in as_list(config.get("searches"))]
    if len(searches) > 32:
        errs.append(
            fe.invalid(
                f"{path}.searches", go_string_slice(searches), "must not have more than 32 search paths"
            )
        )
    if len(" ".join(searches)) > 2048:
        detail = "must not have more than 2048 characters (including spaces) in the search list"
        errs.append(fe.invalid(f"{path}.searches", go_string_slice(searches), detail))
    for index, search in enumerate(searches):
        trimmed = search[:-1] if search.endswith(".") else search
        errs += [
            fe.invalid(f"{path}.searches[{index}]", trimmed, m) for m in names.is_dns1123_subdomain(trimmed)
        ]
    for index, option in enumerate(as_list(config.get("options"))):
        if not as_str(as_dict(option).get("name")):
            errs.append(fe.required(f"{path}.options[{index}]", "must not be empty"))
    return errs


def _windows_host_process(spec: JSON, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    pod_value = as_dict(as_dict(spec.get("securityContext")).get("windowsOptions")).get("hostProcess")
    count = host_process = 0
    for container, at in visit_containers(spec, path):
        count += 1
        value = as_dict(as_dict(container.get("securityContext")).get("windowsOptions")).get("hostProcess")
        if isinstance(pod_value, bool) and isinstance(value, bool) and pod_value != value:
            detail = (
                f"pod hostProcess value must be identical if both are specified, was {str(pod_value).lower()}"
            )
            errs.append(fe.invalid(f"{at}.securityContext.windowsOptions.hostProcess", value, detail))
        if value is True or (value is None and pod_value is True):
            host_process += 1
    if host_process:
        if host_process != count:
            errs.append(
                fe.invalid(
                    path,
                    "",
                    _ALL_HOST_PROCESS,
                )
            )
        if spec.get("hostNetwork") is not True:
            errs.append(
                fe.invalid(
                    f"{path}.hostNetwork",
                    False,
                    "hostNetwork must be true if pod contains any hostProcess containers",
                )
            )
    return errs


def _host_users(spec: JSON, path: str) -> list[FieldError]:
    if spec.get("hostUsers") is not False:
        return []
    when = "when `pod.Spec.HostUsers` is false"
    return [
        fe.forbidden(f"{path}.{child}", when)
        for key, child in (("hostNetwork", "hostNetwork"), ("hostPID", "HostPID"), ("hostIPC", "HostIPC"))
        if spec.get(key) is True
    ]


def _os(spec: JSON, path: str) -> list[FieldError]:
    os_spec = spec.get("os")
    if not isinstance(os_spec, dict):
        return []
    name = as_str(os_spec.get("name"))
    if not name:
        return [fe.required(f"{path}.os.name", "cannot be empty")]
    if name not in ("linux", "windows"):
        return [fe.not_supported(f"{path}.os", name, ["linux", "windows"])]
    errs: list[FieldError] = []
    context = as_dict(spec.get("securityContext"))
    if name == "linux":
        linux = "windows options cannot be set for a linux pod"
        if context.get("windowsOptions") is not None:
            errs.append(fe.forbidden(f"{path}.securityContext.windowsOptions", linux))
        for container, at in visit_containers(spec, path):
            if as_dict(container.get("securityContext")).get("windowsOptions") is not None:
                errs.append(fe.forbidden(f"{at}.securityContext.windowsOptions", linux))
        return errs
    windows = "cannot be set for a windows pod"
    for holder, key in _WINDOWS_FORBIDDEN_POD:
        value = context.get(key) if holder else spec.get(key)
        if key in ("hostPID", "hostIPC"):
            value = True if value is True else None  # plain bools: only `true` counts
        elif key == "sysctls":
            value = value or None
        if value is not None:
            errs.append(fe.forbidden(f"{path}.securityContext.{key}" if holder else f"{path}.{key}", windows))
    for container, at in visit_containers(spec, path):
        container_context = as_dict(container.get("securityContext"))
        for key in _WINDOWS_FORBIDDEN_CONTAINER:
            if container_context.get(key) is not None:
                errs.append(fe.forbidden(f"{at}.securityContext.{key}", windows))
    return errs


def _names(spec: JSON, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    for key in ("serviceAccountName", "nodeName"):
        value = as_str(spec.get(key))
        if value:
            errs += [fe.invalid(f"{path}.{key}", value, msg) for msg in names.is_dns1123_subdomain(value)]
    deadline = spec.get("activeDeadlineSeconds")
    if isinstance(deadline, int) and not 1 <= deadline <= names.MAX_INT32:
        errs.append(
            fe.invalid(
                f"{path}.activeDeadlineSeconds", deadline, names.inclusive_range_error(1, names.MAX_INT32)
            )
        )
    for key in ("hostname", "subdomain"):
        value = as_str(spec.get(key))
        if value:
            errs += [fe.invalid(f"{path}.{key}", value, msg) for msg in names.is_dns1123_label(value)]
    return errs


def validate_pod_spec(spec: JSON, pod_name: str, path: str = "spec") -> list[FieldError]:
    """ValidatePodSpec, in upstream's order (which sets the order of causes)."""
    errs: list[FieldError] = []
    if not isinstance(spec.get("terminationGracePeriodSeconds"), int):
        errs.append(fe.required(f"{path}.terminationGracePeriodSeconds"))
    volumes, volume_errs = validate_volumes(spec.get("volumes"), pod_name, f"{path}.volumes")
    errs += volume_errs
    claims = {as_str(as_dict(c).get("name")) for c in as_list(spec.get("resourceClaims"))} - {""}
    errs += _resource_claims(spec.get("resourceClaims"), f"{path}.resourceClaims")
    errs += validate_containers(spec, volumes, claims, f"{path}.containers")
    errs += validate_init_containers(spec, volumes, claims, f"{path}.initContainers")
    errs += validate_ephemeral_containers(spec, volumes, claims, f"{path}.ephemeralContainers")
    errs += validate_pod_resources(spec, claims, f"{path}.resources")
    errs += _host_network_ports(spec, path)
    errs += _enum(spec.get("restartPolicy"), RESTART_POLICIES, f"{path}.restartPolicy")
    errs += _enum(spec.get("dnsPolicy"), DNS_POLICIES, f"{path}.dnsPolicy")
    errs += validate_labels(spec.get("nodeSelector"), f"{path}.nodeSelector")
    errs += validate_pod_security_context(spec, f"{path}.securityContext")
    errs += _image_pull_secrets(spec.get("imagePullSecrets"), f"{path}.imagePullSecrets")
    errs += validate_affinity(spec.get("affinity"), f"{path}.affinity")
    errs += _dns_config(spec, f"{path}.dnsConfig")
    for index, gate in enumerate(as_list(spec.get("readinessGates"))):
        condition = as_str(as_dict(gate).get("conditionType"))
        at = f"{path}.readinessGates[{index}].conditionType"
        errs += [fe.invalid(at, condition, msg) for msg in names.is_qualified_name(condition)]
    errs += validate_scheduling_gates(spec.get("schedulingGates"), f"{path}.schedulingGates")
    errs += validate_topology_spread(
        spec.get("topologySpreadConstraints"), f"{path}.topologySpreadConstraints"
    )
    errs += _windows_host_process(spec, path)
    errs += _host_users(spec, path)
    errs += _names(spec, path)
    errs += validate_tolerations(spec.get("tolerations"), f"{path}.tolerations")
    for index, raw in enumerate(as_list(spec.get("hostAliases"))):
        alias, at = as_dict(raw), f"{path}.hostAliases[{index}]"
        ip = as_str(alias.get("ip"))
        errs += [fe.invalid(f"{at}.ip", ip, msg) for msg in names.is_valid_ip(ip)]
        for host_index, host in enumerate(as_list(alias.get("hostnames"))):
            text = as_str(host)
            errs += [
                fe.invalid(f"{at}.hostnames[{host_index}]", text, m) for m in names.is_dns1123_subdomain(text)
            ]
    priority_class = as_str(spec.get("priorityClassName"))
    if priority_class:
        errs += [
            fe.invalid(f"{path}.priorityClassName", priority_class, m)
            for m in names.is_dns1123_subdomain(priority_class)
        ]
    runtime_class = spec.get("runtimeClassName")
    if runtime_class is not None:
        text = as_str(runtime_class)
        errs += [fe.invalid(f"{path}.runtimeClassName", text, m) for m in names.is_dns1123_subdomain(text)]
    preemption = spec.get("preemptionPolicy")
    if preemption is not None:
        errs += _enum(preemption, ["PreemptLowerPriority", "Never"], f"{path}.preemptionPolicy")
    if spec.get("overhead") is not None:
        errs += validate_overhead(spec.get("overhead"), f"{path}.overhead")
    return errs + _os(spec, path)


def _pod_only_spec_checks(spec: JSON, pod_name: str) -> list[FieldError]:
    """ValidatePodSpec plus the checks validatePodMetadataAndSpec adds for pods (not templates)."""
    errs = validate_pod_spec(spec, pod_name)
    if not as_str(spec.get("serviceAccountName")):
        for index, volume in enumerate(as_list(spec.get("volumes"))):
            projected = as_dict(volume).get("projected")
            for source_index, source in enumerate(as_list(as_dict(projected).get("sources"))):
                if as_dict(source).get("serviceAccountToken") is not None:
                    at = f"spec.volumes[{index}].projected.sources[{source_index}].serviceAccountToken"
                    errs.append(fe.forbidden(at, "must not be specified when serviceAccountName is not set"))
    for key in ("containers", "initContainers"):
        for index, container in enumerate(as_list(spec.get(key))):
            errs += validate_image_whitespace(as_dict(container), f"spec.{key}[{index}]")
    return errs


def spec_passes(spec_json: bytes) -> bool:
    """Whether a spec's JSON (volume names by position, no ephemeral volume) passes the spec checks."""
    return not _pod_only_spec_checks(orjson.loads(spec_json), "")


def _spec_checks(spec: JSON, pod_name: str, memo: PodRemembered | None) -> list[FieldError]:
    """The spec checks, through the memo when there is one: pods from one template share a spec but for
    their volume names (`volumes_by_position`), and an update that touches only metadata re-validates an
    unchanged spec. Only a pass is taken from the memo: errors are found again, naming what was sent.
    The pod name matters only for generic ephemeral volumes (their PVC names are made from it)."""
    if memo is None:
        return _pod_only_spec_checks(spec, pod_name)
    key = volumes_by_position(spec)
    try:
        if key is not None and memo.spec_passes(orjson.dumps(key, option=orjson.OPT_SORT_KEYS)):
            return []
    except TypeError:  # not plain JSON (a YAML date, a non-string key): checked as it is
        pass
    return _pod_only_spec_checks(spec, pod_name)


def validate_pod_metadata_and_spec(pod: JSON, memo: PodRemembered | None = None) -> list[FieldError]:
    """validatePodMetadataAndSpec: ObjectMeta, pod annotations, the spec, then the pod-only checks.
    `memo` (a pod strategy's) remembers the checks of parts that pods from one template share."""
    meta, spec = as_dict(pod.get("metadata")), as_dict(pod.get("spec"))
    errs = validate_object_meta(meta, True, "metadata", names.name_is_dns_subdomain,
                                remembered=memo.shared_meta_checks if memo else None)
    errs += validate_pod_specific_annotations(as_dict(meta.get("annotations")), spec, "metadata.annotations")
    return errs + _spec_checks(spec, as_str(meta.get("name")), memo)
