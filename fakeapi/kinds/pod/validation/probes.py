"""Probes and lifecycle handlers (exec, httpGet, tcpSocket, grpc, sleep)."""

from __future__ import annotations

from typing import Any

from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation import names
from fakeapi.machinery.validation.values import as_dict, as_int, as_list, as_str

_IS_NEGATIVE = "must be greater than or equal to 0"
_PROBE_HANDLERS = ("exec", "httpGet", "tcpSocket", "grpc")
_LIFECYCLE_HANDLERS = ("exec", "httpGet", "tcpSocket", "sleep")


def validate_port_num_or_name(port: Any, path: str) -> list[FieldError]:
    """An IntOrString port: a name if it is a string, else a number (unset is the Go zero value, 0)."""
    if isinstance(port, str):
        return [fe.invalid(path, port, msg) for msg in names.is_valid_port_name(port)]
    number = as_int(port)
    return [fe.invalid(path, number, msg) for msg in names.is_valid_port_num(number)]


def _validate_http_get(action: JSON, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    if not as_str(action.get("path")):
        errs.append(fe.required(f"{path}.path"))
    errs += validate_port_num_or_name(action.get("port"), f"{path}.port")
    scheme = as_str(action.get("scheme"))
    if scheme not in ("HTTP", "HTTPS"):
        errs.append(fe.not_supported(f"{path}.scheme", scheme, ["HTTP", "HTTPS"]))
    for header in as_list(action.get("httpHeaders")):
        name = as_str(as_dict(header).get("name"))
        errs += [fe.invalid(f"{path}.httpHeaders", name, msg) for msg in names.is_http_header_name(name)]
    return errs


def _validate_sleep(action: JSON, grace: int | None, path: str) -> list[FieldError]:
    seconds = as_int(action.get("seconds"))
    if grace is not None and (seconds <= 0 or seconds > grace):
        detail = (
            f"must be greater than 0 and less than terminationGracePeriodSeconds ({grace}). "
            "Enable AllowPodLifecycleSleepActionZeroValue feature gate for zero sleep."
        )
        return [fe.invalid(path, seconds, detail)]
    return []


def _validate_handler(
    handler: JSON, kinds: tuple[str, ...], grace: int | None, path: str
) -> list[FieldError]:
    errs: list[FieldError] = []
    count = 0
    for kind in kinds:
        action = handler.get(kind)
        if action is None:
            continue
        at = f"{path}.{kind}"
        if count:
            errs.append(fe.forbidden(at, "may not specify more than 1 handler type"))
            continue
        count += 1
        action = as_dict(action)
        if kind == "exec":
            if not as_list(action.get("command")):
                errs.append(fe.required(f"{at}.command"))
        elif kind == "httpGet":
            errs += _validate_http_get(action, at)
        elif kind == "tcpSocket":
            errs += validate_port_num_or_name(action.get("port"), f"{at}.port")
        elif kind == "grpc":
            errs += validate_port_num_or_name(as_int(action.get("port")), f"{at}.port")
        else:
            errs += _validate_sleep(action, grace, f"{at}")
    if count == 0:
        errs.append(fe.required(path, "must specify a handler type"))
    return errs


def validate_lifecycle(lifecycle: JSON, grace: int | None, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    for hook in ("postStart", "preStop"):
        if lifecycle.get(hook) is not None:
            errs += _validate_handler(as_dict(lifecycle[hook]), _LIFECYCLE_HANDLERS, grace, f"{path}.{hook}")
    return errs


def validate_probe(kind: str, probe: JSON, grace: int | None, path: str) -> list[FieldError]:
    """A liveness, readiness or startup probe (`kind` is the container field name)."""
    errs = _validate_handler(probe, _PROBE_HANDLERS, grace, path)
    for key in (
        "initialDelaySeconds",
        "timeoutSeconds",
        "periodSeconds",
        "successThreshold",
        "failureThreshold",
    ):
        value = as_int(probe.get(key))
        if value < 0:
            errs.append(fe.invalid(f"{path}.{key}", value, _IS_NEGATIVE))
    probe_grace = probe.get("terminationGracePeriodSeconds")
    if isinstance(probe_grace, int) and probe_grace <= 0:
        errs.append(
            fe.invalid(f"{path}.terminationGracePeriodSeconds", probe_grace, "must be greater than 0")
        )
    if kind == "readinessProbe":
        if probe_grace is not None:
            detail = "must not be set for readinessProbes"
            errs.append(fe.invalid(f"{path}.terminationGracePeriodSeconds", probe_grace, detail))
    elif as_int(probe.get("successThreshold")) != 1:
        errs.append(
            fe.invalid(f"{path}.successThreshold", as_int(probe.get("successThreshold")), "must be 1")
        )
    return errs
