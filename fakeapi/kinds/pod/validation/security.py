"""Security contexts: container and pod level, seccomp, AppArmor, Windows options, sysctls."""

from __future__ import annotations

import re
from typing import Any

from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation import names
from fakeapi.machinery.validation.values import GoText, as_dict, as_int, as_list, as_str

_SECCOMP_TYPES = ["Localhost", "RuntimeDefault", "Unconfined"]
_APPARMOR_TYPES = ["Localhost", "RuntimeDefault", "Unconfined"]
_SYSCTL_SEGMENT = "[a-z0-9]([-_a-z0-9]*[a-z0-9])?"
_SYSCTL_RE_TEXT = "^(" + _SYSCTL_SEGMENT + "[\\./])*" + _SYSCTL_SEGMENT + "$"
_SYSCTL_RE = re.compile(_SYSCTL_RE_TEXT)
_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f]")
_NETBIOS_RE = re.compile(r'[^\\/:*?"<>|.][^\\/:*?"<>|]{0,14}')
_DNS_LABEL = "[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?"
_WINDOWS_DOMAIN_RE = re.compile(f"{_DNS_LABEL}(?:\\.{_DNS_LABEL})*")
_BAD_USER_CHARS_RE = re.compile(r'["/\\:;|=,+*?<>@\[\]]')
_DOTS_SPACES_RE = re.compile(r"[. ]+")
_IPC_SYSCTL_PREFIXES = ("kernel.shm", "kernel.msg", "fs.mqueue.")


def validate_local_descending_path(target: str, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    if target.startswith("/"):
        errs.append(fe.invalid(path, target, "must be a relative path"))
    return errs + validate_no_backsteps(target, path)


def validate_no_backsteps(target: str, path: str) -> list[FieldError]:
    if ".." in target.replace("\\", "/").split("/"):
        return [fe.invalid(path, target, "must not contain '..'")]
    return []


def validate_seccomp_profile(profile: Any, path: str) -> list[FieldError]:
    if not isinstance(profile, dict):
        return []
    errs: list[FieldError] = []
    kind = as_str(profile.get("type"))
    if not kind:
        errs.append(fe.required(f"{path}.type", "type is required when seccompProfile is set"))
    elif kind not in _SECCOMP_TYPES:
        errs.append(fe.not_supported(f"{path}.type", kind, _SECCOMP_TYPES))
    localhost = profile.get("localhostProfile")
    if kind == "Localhost":
        if localhost is None:
            errs.append(fe.required(f"{path}.localhostProfile", "must be set when seccomp type is Localhost"))
        else:
            errs += validate_local_descending_path(as_str(localhost), f"{path}.localhostProfile")
    elif localhost is not None:
        shown = GoText(f'&core.SeccompProfile{{Type:"{kind}", LocalhostProfile:(*string)(nil)}}')
        errs.append(
            fe.invalid(f"{path}.localhostProfile", shown, "can only be set when seccomp type is Localhost")
        )
    return errs


def validate_apparmor_profile(profile: Any, path: str) -> list[FieldError]:
    if not isinstance(profile, dict):
        return []
    kind, localhost = as_str(profile.get("type")), profile.get("localhostProfile")
    if kind == "Localhost":
        if localhost is None:
            return [fe.required(f"{path}.localhostProfile", "must be set when AppArmor type is Localhost")]
        text, errs = as_str(localhost), []
        if text.strip() != text:
            errs.append(fe.invalid(f"{path}.localhostProfile", text, "must not be padded with whitespace"))
        elif not text:
            errs.append(
                fe.required(f"{path}.localhostProfile", "must be set when AppArmor type is Localhost")
            )
        if len(text) > 4095:
            errs.append(fe.too_long(f"{path}.localhostProfile", 4095))
        return errs
    if kind in ("RuntimeDefault", "Unconfined"):
        if localhost is not None:
            detail = "can only be set when AppArmor type is Localhost"
            return [fe.invalid(f"{path}.localhostProfile", as_str(localhost), detail)]
        return []
    if not kind:
        return [fe.required(f"{path}.type", "type is required when appArmorProfile is set")]
    return [fe.not_supported(f"{path}.type", kind, _APPARMOR_TYPES)]


def validate_windows_options(options: Any, path: str) -> list[FieldError]:
    if not isinstance(options, dict):
        return []
    errs: list[FieldError] = []
    spec_name = options.get("gmsaCredentialSpecName")
    if spec_name is not None:
        at = f"{path}.gmsaCredentialSpecName"
        errs += [fe.invalid(at, as_str(spec_name), m) for m in names.is_dns1123_subdomain(as_str(spec_name))]
    spec = options.get("gmsaCredentialSpec")
    if spec is not None:
        at = f"{path}.gmsaCredentialSpec"
        if not as_str(spec):
            errs.append(fe.invalid(at, as_str(spec), "gmsaCredentialSpec cannot be an empty string"))
        elif len(as_str(spec)) > 64 * 1024:
            errs.append(fe.invalid(at, as_str(spec), "gmsaCredentialSpec size must be under 64 KiB"))
    user = options.get("runAsUserName")
    if user is not None:
        errs += _validate_run_as_user_name(as_str(user), f"{path}.runAsUserName")
    return errs


def _validate_run_as_user_name(value: str, at: str) -> list[FieldError]:
    if not value:
        return [fe.invalid(at, value, "runAsUserName cannot be an empty string")]
    if _CONTROL_RE.search(value):
        return [fe.invalid(at, value, "runAsUserName cannot contain control characters")]
    parts = value.split("\\")
    if len(parts) > 2:
        return [fe.invalid(at, value, "runAsUserName cannot contain more than one backslash")]
    domain, user = (parts[0], parts[1]) if len(parts) == 2 else ("", parts[0])
    errs: list[FieldError] = []
    if len(domain) >= 256:
        errs.append(fe.invalid(at, value, "runAsUserName's Domain length must be under 256 characters"))
    if len(parts) == 2 and not (_NETBIOS_RE.fullmatch(domain) or _WINDOWS_DOMAIN_RE.fullmatch(domain)):
        errs.append(
            fe.invalid(at, value, "runAsUserName's Domain doesn't match the NetBios nor the DNS format")
        )
    if not user:
        errs.append(fe.invalid(at, value, "runAsUserName's User cannot be empty"))
    elif len(user) > 104:
        errs.append(
            fe.invalid(at, value, "runAsUserName's User length must not be longer than 104 characters")
        )
    if _DOTS_SPACES_RE.fullmatch(user):
        errs.append(fe.invalid(at, value, "runAsUserName's User cannot contain only periods or spaces"))
    if _BAD_USER_CHARS_RE.search(user):
        detail = "runAsUserName's User cannot contain the following characters: \"/\\:;|=,+*?<>@[]"
        errs.append(fe.invalid(at, value, detail))
    return errs


def validate_container_security_context(context: Any, path: str, host_users: bool) -> list[FieldError]:
    if not isinstance(context, dict):
        return []
    errs: list[FieldError] = []
    for key, check in (("runAsUser", names.is_valid_user_id), ("runAsGroup", names.is_valid_group_id)):
        value = context.get(key)
        if isinstance(value, int):
            errs += [fe.invalid(f"{path}.{key}", value, msg) for msg in check(value)]
    proc_mount = context.get("procMount")
    if proc_mount is not None:
        if proc_mount not in ("Default", "Unmasked"):
            errs.append(fe.not_supported(f"{path}.procMount", proc_mount, ["Default", "Unmasked"]))
        if host_users and proc_mount == "Unmasked":
            errs.append(
                fe.invalid(f"{path}.procMount", proc_mount, "`hostUsers` must be false to use `Unmasked`")
            )
    errs += validate_seccomp_profile(context.get("seccompProfile"), f"{path}.seccompProfile")
    if context.get("allowPrivilegeEscalation") is False:
        shown = GoText("&core.SecurityContext{...}")
        if context.get("privileged") is True:
            detail = "cannot set `allowPrivilegeEscalation` to false and `privileged` to true"
            errs.append(fe.invalid(path, shown, detail))
        for capability in as_list(as_dict(context.get("capabilities")).get("add")):
            if capability == "CAP_SYS_ADMIN":
                detail = "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN"
                errs.append(fe.invalid(path, shown, detail))
    errs += validate_windows_options(context.get("windowsOptions"), f"{path}.windowsOptions")
    errs += validate_apparmor_profile(context.get("appArmorProfile"), f"{path}.appArmorProfile")
    return errs


def _sysctl_namespace(name: str) -> str:
    normalized = name.replace("/", ".")
    if normalized.startswith("net."):
        return "net"
    if normalized == "kernel.sem" or normalized.startswith(_IPC_SYSCTL_PREFIXES):
        return "ipc"
    return ""


def _validate_sysctls(sysctls: list[Any], spec: JSON, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    seen: set[str] = set()
    for index, raw in enumerate(sysctls):
        name, at = as_str(as_dict(raw).get("name")), f"{path}[{index}].name"
        if not name:
            errs.append(fe.required(at))
        elif len(name) > 253 or not _SYSCTL_RE.fullmatch(name):
            errs.append(
                fe.invalid(at, name, f"must have at most 253 characters and match regex {_SYSCTL_RE_TEXT}")
            )
        elif name in seen:
            errs.append(fe.duplicate(at, name))
        namespace = _sysctl_namespace(name)
        if spec.get("hostNetwork") is True and namespace == "net":
            errs.append(fe.invalid(at, name, "may not be specified when 'hostNetwork' is true"))
        elif spec.get("hostIPC") is True and namespace == "ipc":
            errs.append(fe.invalid(at, name, "may not be specified when 'hostIPC' is true"))
        seen.add(name)
    return errs


def validate_pod_security_context(spec: JSON, path: str) -> list[FieldError]:
    """validatePodSpecSecurityContext. `path` is `spec.securityContext`; hostPID and
    shareProcessNamespace live on the spec on the wire but are checked here, as upstream does."""
    context = spec.get("securityContext")
    if not isinstance(context, dict):
        return []
    errs: list[FieldError] = []
    checks = (("fsGroup", names.is_valid_group_id), ("runAsUser", names.is_valid_user_id))
    for key, check in (*checks, ("runAsGroup", names.is_valid_group_id)):
        value = context.get(key)
        if isinstance(value, int):
            errs += [fe.invalid(f"{path}.{key}", value, msg) for msg in check(value)]
    for index, gid in enumerate(as_list(context.get("supplementalGroups"))):
        at = f"{path}.supplementalGroups[{index}]"
        errs += [fe.invalid(at, gid, msg) for msg in names.is_valid_group_id(as_int(gid))]
    if spec.get("shareProcessNamespace") is True and spec.get("hostPID") is True:
        detail = "ShareProcessNamespace and HostPID cannot both be enabled"
        errs.append(fe.invalid(f"{path}.shareProcessNamespace", True, detail))
    sysctls = as_list(context.get("sysctls"))
    if sysctls:
        errs += _validate_sysctls(sysctls, spec, f"{path}.sysctls")
    policy = context.get("fsGroupChangePolicy")
    if policy is not None and policy not in ("Always", "OnRootMismatch"):
        errs.append(fe.not_supported(f"{path}.fsGroupChangePolicy", policy, ["Always", "OnRootMismatch"]))
    errs += validate_seccomp_profile(context.get("seccompProfile"), f"{path}.seccompProfile")
    errs += validate_windows_options(context.get("windowsOptions"), f"{path}.windowsOptions")
    errs += validate_apparmor_profile(context.get("appArmorProfile"), f"{path}.appArmorProfile")
    groups_policy = context.get("supplementalGroupsPolicy")
    if groups_policy is not None and groups_policy not in ("Merge", "Strict"):
        errs.append(fe.not_supported(f"{path}.supplementalGroupsPolicy", groups_policy, ["Merge", "Strict"]))
    selinux_policy = context.get("seLinuxChangePolicy")
    if selinux_policy is not None and selinux_policy != "Recursive":
        # with the SELinuxMount gate off (v1.32 default) only Recursive is accepted
        errs.append(fe.not_supported(f"{path}.seLinuxChangePolicy", selinux_policy, ["Recursive"]))
    return errs
