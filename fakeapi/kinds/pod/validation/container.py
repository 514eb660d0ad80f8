"""Container validation: regular, init and ephemeral containers, and everything inside one."""

from __future__ import annotations

from typing import Any

from fakeapi.kinds.pod.validation.env import validate_env, validate_env_from
from fakeapi.kinds.pod.validation.probes import validate_lifecycle, validate_probe
from fakeapi.kinds.pod.validation.resources import validate_container_requirements
from fakeapi.kinds.pod.validation.security import validate_container_security_context, validate_local_descending_path
from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation import names
from fakeapi.machinery.validation.values import GoText, as_dict, as_int, as_list, as_str, go_struct

Volumes = dict[str, JSON]
"""Valid pod volumes by name (their source dicts)."""

_PULL_POLICIES = ["Always", "IfNotPresent", "Never"]
_PROTOCOLS = ["SCTP", "TCP", "UDP"]
_NOT_INIT = "may not be set for init containers without restartPolicy=Always"
_EPHEMERAL_FORBIDDEN = (
    "ports",
    "resources",
    "resizePolicy",
    "restartPolicy",
    "livenessProbe",
    "readinessProbe",
    "startupProbe",
    "lifecycle",
)  # fmt: skip  (struct order of the fields not on upstream's allow-list)


def validate_pull_policy(policy: Any, path: str) -> list[FieldError]:
    if policy in _PULL_POLICIES:
        return []
    if not policy:
        return [fe.required(path)]
    return [fe.not_supported(path, policy, _PULL_POLICIES)]


def _validate_ports(ports: list[Any], path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    seen: set[str] = set()
    for index, raw in enumerate(ports):
        port, at = as_dict(raw), f"{path}[{index}]"
        name = as_str(port.get("name"))
        if name:
            messages = names.is_valid_port_name(name)
            if messages:
                errs += [fe.invalid(f"{at}.name", name, msg) for msg in messages]
            elif name in seen:
                errs.append(fe.duplicate(f"{at}.name", name))
            else:
                seen.add(name)
        container_port = as_int(port.get("containerPort"))
        if container_port == 0:
            errs.append(fe.required(f"{at}.containerPort"))
        else:
            errs += [
                fe.invalid(f"{at}.containerPort", container_port, m)
                for m in names.is_valid_port_num(container_port)
            ]
        host_port = as_int(port.get("hostPort"))
        if host_port:
            errs += [fe.invalid(f"{at}.hostPort", host_port, m) for m in names.is_valid_port_num(host_port)]
        protocol = as_str(port.get("protocol"))
        if not protocol:
            errs.append(fe.required(f"{at}.protocol"))
        elif protocol not in _PROTOCOLS:
            errs.append(fe.not_supported(f"{at}.protocol", protocol, _PROTOCOLS))
    return errs


def _validate_volume_mounts(container: JSON, volumes: Volumes, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    devices = {
        as_str(as_dict(d).get("name")): as_str(as_dict(d).get("devicePath"))
        for d in as_list(container.get("volumeDevices"))
    }
    device_paths = set(devices.values())
    privileged = as_dict(container.get("securityContext")).get("privileged") is True
    mount_points: set[str] = set()
    for index, raw in enumerate(as_list(container.get("volumeMounts"))):
        mount, at = as_dict(raw), f"{path}[{index}]"
        name, mount_path = as_str(mount.get("name")), as_str(mount.get("mountPath"))
        if not name:
            errs.append(fe.required(f"{at}.name"))
        if name not in volumes:
            errs.append(fe.not_found(f"{at}.name", name))
        if not mount_path:
            errs.append(fe.required(f"{at}.mountPath"))
        if mount_path in mount_points:
            errs.append(fe.invalid(f"{at}.mountPath", mount_path, "must be unique"))
        mount_points.add(mount_path)
        if name in devices:
            errs.append(fe.invalid(f"{at}.name", name, "must not already exist in volumeDevices"))
        if mount_path in device_paths:
            errs.append(
                fe.invalid(f"{at}.mountPath", mount_path, "must not already exist as a path in volumeDevices")
            )
        sub_path, sub_path_expr = as_str(mount.get("subPath")), as_str(mount.get("subPathExpr"))
        if "image" in volumes.get(name, {}):
            if sub_path:
                errs.append(fe.invalid(f"{at}.subPath", sub_path, "not allowed in image volume sources"))
            if sub_path_expr:
                errs.append(
                    fe.invalid(f"{at}.subPathExpr", sub_path_expr, "not allowed in image volume sources")
                )
        # upstream reports these two at the unindexed list path
        if sub_path:
            errs += validate_local_descending_path(sub_path, f"{path}.subPath")
        if sub_path_expr:
            if sub_path:
                detail = "subPathExpr and subPath are mutually exclusive"
                errs.append(fe.invalid(f"{at}.subPathExpr", sub_path_expr, detail))
            errs += validate_local_descending_path(sub_path_expr, f"{path}.subPathExpr")
        errs += _validate_mount_propagation(mount, privileged, f"{path}.mountPropagation")
        errs += _validate_recursive_read_only(mount, f"{path}.recursiveReadOnly")
    return errs


def _validate_mount_propagation(mount: JSON, privileged: bool, path: str) -> list[FieldError]:
    propagation = mount.get("mountPropagation")
    if propagation is None:
        return []
    errs: list[FieldError] = []
    supported = ["Bidirectional", "HostToContainer", "None"]
    if propagation not in supported:
        errs.append(fe.not_supported(path, propagation, supported))
    if propagation == "Bidirectional" and not privileged:
        errs.append(
            fe.forbidden(path, "Bidirectional mount propagation is available only to privileged containers")
        )
    return errs


def _validate_recursive_read_only(mount: JSON, path: str) -> list[FieldError]:
    mode = mount.get("recursiveReadOnly")
    if mode is None or mode == "Disabled":
        return []
    if mode not in ("Enabled", "IfPossible"):
        return [fe.not_supported(path, mode, ["Disabled", "Enabled", "IfPossible"])]
    errs: list[FieldError] = []
    if mount.get("readOnly") is not True:
        errs.append(fe.forbidden(path, "may only be specified when readOnly is true"))
    if mount.get("mountPropagation") not in (None, "None"):
        errs.append(
            fe.forbidden(path, "may only be specified when mountPropagation is None or not specified")
        )
    return errs


def _validate_volume_devices(container: JSON, volumes: Volumes, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    mounts = {
        as_str(as_dict(m).get("name")): as_str(as_dict(m).get("mountPath"))
        for m in as_list(container.get("volumeMounts"))
    }
    mount_paths = set(mounts.values())
    device_paths: set[str] = set()
    device_names: set[str] = set()
    for index, raw in enumerate(as_list(container.get("volumeDevices"))):
        device, at = as_dict(raw), f"{path}[{index}]"
        name, device_path = as_str(device.get("name")), as_str(device.get("devicePath"))
        source = volumes.get(name)
        if not name:
            errs.append(fe.required(f"{at}.name"))
        if name in device_names:
            errs.append(fe.invalid(f"{at}.name", name, "must be unique"))
        if source is not None and "persistentVolumeClaim" not in source and "ephemeral" not in source:
            detail = "can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode"
            errs.append(fe.invalid(f"{at}.name", name, detail))
        if source is None:
            errs.append(fe.not_found(f"{at}.name", name))
        if not device_path:
            errs.append(fe.required(f"{at}.devicePath"))
        if device_path in device_paths:
            errs.append(fe.invalid(f"{at}.devicePath", device_path, "must be unique"))
        if device_path and ".." in device_path.replace("\\", "/").split("/"):
            errs.append(fe.invalid(f"{at}.devicePath", device_path, "can not contain backsteps ('..')"))
        else:
            device_paths.add(device_path)
        if name in mounts:
            errs.append(fe.invalid(f"{at}.name", name, "must not already exist in volumeMounts"))
        if device_path in mount_paths:
            errs.append(
                fe.invalid(
                    f"{at}.devicePath", device_path, "must not already exist as a path in volumeMounts"
                )
            )
        if name:
            device_names.add(name)
    return errs


def _validate_resize_policy(policies: list[Any], path: str, pod_restart_policy: str) -> list[FieldError]:
    errs: list[FieldError] = []
    seen: set[str] = set()
    for index, raw in enumerate(policies):
        policy = as_dict(raw)
        resource, restart = as_str(policy.get("resourceName")), as_str(policy.get("restartPolicy"))
        if resource in seen:
            errs.append(fe.duplicate(f"{path}[{index}]", resource))
        seen.add(resource)
        if not resource:
            errs.append(fe.required(path))
        elif resource not in ("cpu", "memory"):
            errs.append(fe.not_supported(path, resource, ["cpu", "memory"]))
        if not restart:
            errs.append(fe.required(path))
        elif restart not in ("NotRequired", "RestartContainer"):
            errs.append(fe.not_supported(path, restart, ["NotRequired", "RestartContainer"]))
        if pod_restart_policy == "Never" and restart != "NotRequired":
            errs.append(fe.invalid(path, restart, "must be 'NotRequired' when `restartPolicy` is 'Never'"))
    return errs


def _validate_common(
    container: JSON, volumes: Volumes, claims: set[str], path: str, spec: JSON
) -> list[FieldError]:
    """validateContainerCommon: what every container kind shares."""
    errs: list[FieldError] = []
    name = as_str(container.get("name"))
    if not name:
        errs.append(fe.required(f"{path}.name"))
    else:
        errs += [fe.invalid(f"{path}.name", name, msg) for msg in names.is_dns1123_label(name)]
    if not as_str(container.get("image")):
        errs.append(fe.required(f"{path}.image"))
    policy = as_str(container.get("terminationMessagePolicy"))
    if not policy:
        errs.append(fe.required(f"{path}.terminationMessagePolicy"))
    elif policy not in ("File", "FallbackToLogsOnError"):
        errs.append(
            fe.not_supported(f"{path}.terminationMessagePolicy", policy, ["File", "FallbackToLogsOnError"])
        )
    errs += _validate_ports(as_list(container.get("ports")), f"{path}.ports")
    errs += validate_env(as_list(container.get("env")), f"{path}.env")
    errs += validate_env_from(as_list(container.get("envFrom")), f"{path}.envFrom")
    errs += _validate_volume_mounts(container, volumes, f"{path}.volumeMounts")
    errs += _validate_volume_devices(container, volumes, f"{path}.volumeDevices")
    errs += validate_pull_policy(container.get("imagePullPolicy"), f"{path}.imagePullPolicy")
    errs += validate_container_requirements(container.get("resources"), f"{path}.resources", claims)
    restart_policy = as_str(spec.get("restartPolicy"))
    errs += _validate_resize_policy(
        as_list(container.get("resizePolicy")), f"{path}.resizePolicy", restart_policy
    )
    host_users = spec.get("hostUsers") is not False
    errs += validate_container_security_context(
        container.get("securityContext"), f"{path}.securityContext", host_users
    )
    return errs


def _host_port_conflicts(containers: list[Any], path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    seen: set[str] = set()
    for index, raw in enumerate(containers):
        for port_index, port_raw in enumerate(as_list(as_dict(raw).get("ports"))):
            port = as_dict(port_raw)
            host_port = as_int(port.get("hostPort"))
            if not host_port:
                continue
            key = f"{as_str(port.get('protocol'))}/{as_str(port.get('hostIP'))}/{host_port}"
            if key in seen:
                errs.append(fe.duplicate(f"{path}[{index}].ports[{port_index}].hostPort", key))
            seen.add(key)
    return errs


def _grace(spec: JSON) -> int | None:
    value = spec.get("terminationGracePeriodSeconds")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _validate_probes_and_lifecycle(container: JSON, path: str, grace: int | None) -> list[FieldError]:
    errs: list[FieldError] = []
    if container.get("lifecycle") is not None:
        errs += validate_lifecycle(as_dict(container.get("lifecycle")), grace, f"{path}.lifecycle")
    for kind in ("livenessProbe", "readinessProbe", "startupProbe"):
        if container.get(kind) is not None:
            errs += validate_probe(kind, as_dict(container.get(kind)), grace, f"{path}.{kind}")
    return errs


def validate_containers(spec: JSON, volumes: Volumes, claims: set[str], path: str) -> list[FieldError]:
    containers = as_list(spec.get("containers"))
    if not containers:
        return [fe.required(path)]
    errs: list[FieldError] = []
    seen: set[str] = set()
    grace = _grace(spec)
    for index, raw in enumerate(containers):
        container, at = as_dict(raw), f"{path}[{index}]"
        errs += _validate_common(container, volumes, claims, at, spec)
        name = as_str(container.get("name"))
        if name in seen:
            errs.append(fe.duplicate(f"{at}.name", name))
        seen.add(name)
        errs += _validate_probes_and_lifecycle(container, at, grace)
        if container.get("restartPolicy") is not None:
            errs.append(fe.forbidden(f"{at}.restartPolicy", "may not be set for non-init containers"))
    return errs + _host_port_conflicts(containers, path)


def validate_init_containers(spec: JSON, volumes: Volumes, claims: set[str], path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    seen = {as_str(as_dict(c).get("name")) for c in as_list(spec.get("containers"))}
    grace = _grace(spec)
    for index, raw in enumerate(as_list(spec.get("initContainers"))):
        container, at = as_dict(raw), f"{path}[{index}]"
        errs += _validate_common(container, volumes, claims, at, spec)
        restart = container.get("restartPolicy")
        if restart is not None and restart != "Always":
            errs.append(fe.not_supported(f"{at}.restartPolicy", restart, ["Always"]))
        name = as_str(container.get("name"))
        if name in seen:
            errs.append(fe.duplicate(f"{at}.name", name))
        elif name:
            seen.add(name)
        errs += _host_port_conflicts([container], path)
        if restart == "Always":
            errs += _validate_probes_and_lifecycle(container, at, grace)
        else:
            for key in ("lifecycle", "livenessProbe", "readinessProbe", "startupProbe"):
                if container.get(key) is not None:
                    errs.append(fe.forbidden(f"{at}.{key}", _NOT_INIT))
        resize = as_list(container.get("resizePolicy"))
        if resize:
            literal = GoText(
                "[]core.ContainerResizePolicy{"
                + ", ".join(
                    str(go_struct("core.ContainerResizePolicy", [
                        ("ResourceName", as_str(as_dict(p).get("resourceName"))),
                        ("RestartPolicy", as_str(as_dict(p).get("restartPolicy"))),
                    ]))
                    for p in resize
                )
                + "}"
            )  # fmt: skip
            errs.append(fe.invalid(f"{at}.resizePolicy", literal, "must not be set for init containers"))
    return errs


def validate_ephemeral_containers(
    spec: JSON, volumes: Volumes, claims: set[str], path: str
) -> list[FieldError]:
    ephemeral = as_list(spec.get("ephemeralContainers"))
    if not ephemeral:
        return []
    errs: list[FieldError] = []
    others = {
        as_str(as_dict(c).get("name"))
        for key in ("containers", "initContainers")
        for c in as_list(spec.get(key))
    }
    seen = set(others)
    for index, raw in enumerate(ephemeral):
        container, at = as_dict(raw), f"{path}[{index}]"
        errs += _validate_common(container, volumes, claims, at, spec)
        errs += validate_image_whitespace(container, at)
        name = as_str(container.get("name"))
        if name in seen:
            errs.append(fe.duplicate(f"{at}.name", name))
        else:
            seen.add(name)
        target = as_str(container.get("targetContainerName"))
        if target and target not in others:
            errs.append(fe.not_found(f"{at}.targetContainerName", target))
        for key in _EPHEMERAL_FORBIDDEN:
            value = container.get(key)
            if (
                value is not None
                and value != []
                and value != {}
                and not (key == "resources" and not any(as_dict(value).values()))
            ):
                errs.append(fe.forbidden(f"{at}.{key}", "cannot be set for an Ephemeral Container"))
        for mount_index, mount in enumerate(as_list(container.get("volumeMounts"))):
            for key in ("subPath", "subPathExpr"):
                if as_str(as_dict(mount).get(key)):
                    mount_at = f"{at}.volumeMounts[{mount_index}].{key}"
                    errs.append(fe.forbidden(mount_at, "cannot be set for an Ephemeral Container"))
    return errs


def validate_image_whitespace(container: JSON, path: str) -> list[FieldError]:
    """validateContainerOnlyForPod: pods (not templates) may not pad the image with whitespace."""
    image = as_str(container.get("image"))
    if image != image.strip():
        return [fe.invalid(f"{path}.image", image, "must not have leading or trailing whitespace")]
    return []
