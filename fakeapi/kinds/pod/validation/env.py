"""Environment variables, envFrom and downward-API field selectors (also used by volumes)."""

from __future__ import annotations

from typing import Any

from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation import names
from fakeapi.machinery.validation.values import as_dict, as_str, quantity_text

ENV_FIELD_PATHS = frozenset(
    {
        "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName",
        "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs",
    }
)  # fmt: skip
VOLUME_FIELD_PATHS = frozenset(
    {"metadata.name", "metadata.namespace", "metadata.labels", "metadata.annotations", "metadata.uid"}
)
RESOURCE_FIELD_PATHS = frozenset(
    {
        "limits.cpu", "limits.memory", "limits.ephemeral-storage",
        "requests.cpu", "requests.memory", "requests.ephemeral-storage",
    }
)  # fmt: skip
_HUGEPAGES_FIELD_PREFIXES = ("limits.hugepages-", "requests.hugepages-")
_CONVERTIBLE = frozenset(
    {
        "metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid",
        "spec.nodeName", "spec.restartPolicy", "spec.serviceAccountName", "spec.schedulerName",
        "status.phase", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs",
    }
)  # fmt: skip
_BYTES_DIVISORS = frozenset(
    {"1", "1k", "1M", "1G", "1T", "1P", "1E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei"}
)
_LOCAL_STORAGE = "local ephemeral storage"
_BYTES_DIVISOR_LIST = "1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei"


def _split_subscript(field_path: str) -> tuple[str, str] | None:
    """fieldpath.SplitMaybeSubscriptedPath: `metadata.labels['key']` -> (`metadata.labels`, `key`)."""
    if not field_path.endswith("']"):
        return None
    head, sep, key = field_path[:-2].partition("['")
    if not sep or not head:
        return None
    return head, key


def _convert_field_label(api_version: str, label: str) -> tuple[str | None, str]:
    """ConvertDownwardAPIFieldLabel: the internal field path, or None and the error text."""
    if api_version != "v1":
        return None, f"unsupported pod version: {api_version}"
    split = _split_subscript(label)
    if split is not None:
        if split[0] in ("metadata.annotations", "metadata.labels"):
            return label, ""
        return None, f"field label does not support subscript: {label}"
    if label in _CONVERTIBLE:
        return label, ""
    if label == "spec.host":
        return "spec.nodeName", ""
    return None, f"field label not supported: {label}"


def validate_object_field_selector(selector: JSON, allowed: frozenset[str], path: str) -> list[FieldError]:
    api_version, field_path = as_str(selector.get("apiVersion")), as_str(selector.get("fieldPath"))
    if not api_version:
        return [fe.required(f"{path}.apiVersion")]
    if not field_path:
        return [fe.required(f"{path}.fieldPath")]
    internal, problem = _convert_field_label(api_version, field_path)
    if internal is None:
        return [fe.invalid(f"{path}.fieldPath", field_path, f"error converting fieldPath: {problem}")]
    split = _split_subscript(internal)
    if split is not None:
        head, key = split
        if head == "metadata.annotations":
            return [fe.invalid(path, key.lower(), msg) for msg in names.is_qualified_name(key.lower())]
        if head == "metadata.labels":
            return [fe.invalid(path, key, msg) for msg in names.is_qualified_name(key)]
        return [fe.invalid(path, head, "does not support subscript")]
    if internal not in allowed:
        return [fe.not_supported(f"{path}.fieldPath", internal, sorted(allowed))]
    return []


def validate_resource_field_selector(selector: JSON, path: str, volume: bool) -> list[FieldError]:
    errs: list[FieldError] = []
    resource = as_str(selector.get("resource"))
    if volume and not as_str(selector.get("containerName")):
        errs.append(fe.required(f"{path}.containerName"))
    elif not resource:
        errs.append(fe.required(f"{path}.resource"))
    elif resource not in RESOURCE_FIELD_PATHS and not resource.startswith(_HUGEPAGES_FIELD_PREFIXES):
        errs.append(fe.not_supported(f"{path}.resource", resource, sorted(RESOURCE_FIELD_PATHS)))
    divisor = selector.get("divisor")
    if divisor is None or as_str(quantity_text(divisor)) == "0":
        return errs
    shown = quantity_text(divisor)
    at = f"{path}.divisor"
    if resource in ("limits.cpu", "requests.cpu") and shown not in ("1m", "1"):
        errs.append(
            fe.invalid(at, resource, "only divisor's values 1m and 1 are supported with the cpu resource")
        )
    elif resource in ("limits.memory", "requests.memory") and shown not in _BYTES_DIVISORS:
        detail = f"only divisor's values {_BYTES_DIVISOR_LIST} are supported with the memory resource"
        errs.append(fe.invalid(at, resource, detail))
    elif (
        resource in ("limits.ephemeral-storage", "requests.ephemeral-storage")
        and shown not in _BYTES_DIVISORS
    ):
        detail = (
            f"only divisor's values {_BYTES_DIVISOR_LIST} are supported with the {_LOCAL_STORAGE} resource"
        )
        errs.append(fe.invalid(at, resource, detail))
    if resource.startswith(_HUGEPAGES_FIELD_PREFIXES) and shown not in _BYTES_DIVISORS:
        detail = f"only divisor's values {_BYTES_DIVISOR_LIST} are supported with the hugepages resource"
        errs.append(fe.invalid(at, resource, detail))
    return errs


def _validate_key_selector(selector: JSON, path: str) -> list[FieldError]:
    name, key = as_str(selector.get("name")), as_str(selector.get("key"))
    errs = [fe.invalid(f"{path}.name", name, msg) for msg in names.name_is_dns_subdomain(name, False)]
    if not key:
        errs.append(fe.required(f"{path}.key"))
    else:
        errs += [fe.invalid(f"{path}.key", key, msg) for msg in names.is_config_map_key(key)]
    return errs


def _validate_value_from(env: JSON, path: str) -> list[FieldError]:
    source = env.get("valueFrom")
    if not isinstance(source, dict):
        return []
    errs: list[FieldError] = []
    count = 0
    if isinstance(source.get("fieldRef"), dict):
        count += 1
        errs += validate_object_field_selector(source["fieldRef"], ENV_FIELD_PATHS, f"{path}.fieldRef")
    if isinstance(source.get("resourceFieldRef"), dict):
        count += 1
        errs += validate_resource_field_selector(
            source["resourceFieldRef"], f"{path}.resourceFieldRef", False
        )
    if isinstance(source.get("configMapKeyRef"), dict):
        count += 1
        errs += _validate_key_selector(source["configMapKeyRef"], f"{path}.configMapKeyRef")
    if isinstance(source.get("secretKeyRef"), dict):
        count += 1
        errs += _validate_key_selector(source["secretKeyRef"], f"{path}.secretKeyRef")
    if count == 0:
        detail = "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`"
        errs.append(fe.invalid(path, "", detail))
    elif as_str(env.get("value")):
        errs.append(fe.invalid(path, "", "may not be specified when `value` is not empty"))
    elif count > 1:
        errs.append(fe.invalid(path, "", "may not have more than one field specified at a time"))
    return errs


def validate_env(env: list[Any], path: str) -> list[FieldError]:
    """Env names under RelaxedEnvironmentVariableValidation (on by default): printable ASCII but '='."""
    errs: list[FieldError] = []
    for index, raw in enumerate(env):
        var, at = as_dict(raw), f"{path}[{index}]"
        name = as_str(var.get("name"))
        if not name:
            errs.append(fe.required(f"{at}.name"))
        else:
            errs += [fe.invalid(f"{at}.name", name, msg) for msg in names.is_relaxed_env_var_name(name)]
        errs += _validate_value_from(var, f"{at}.valueFrom")
    return errs


def validate_env_from(sources: list[Any], path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    for index, raw in enumerate(sources):
        source, at = as_dict(raw), f"{path}[{index}]"
        prefix = as_str(source.get("prefix"))
        if prefix:
            errs += [fe.invalid(f"{at}.prefix", prefix, msg) for msg in names.is_relaxed_env_var_name(prefix)]
        count = 0
        for key in ("configMapRef", "secretRef"):
            ref = source.get(key)
            if isinstance(ref, dict):
                count += 1
                name = as_str(ref.get("name"))
                if not name:
                    errs.append(fe.required(f"{at}.{key}.name"))
                else:
                    errs += [
                        fe.invalid(f"{at}.{key}.name", name, m)
                        for m in names.name_is_dns_subdomain(name, True)
                    ]
        # upstream reports these at the unindexed list path
        if count == 0:
            errs.append(fe.invalid(path, "", "must specify one of: `configMapRef` or `secretRef`"))
        elif count > 1:
            errs.append(fe.invalid(path, "", "may not have more than one field specified at a time"))
    return errs
