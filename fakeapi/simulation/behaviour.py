"""What a test asks of a simulated container, through `fakeapi.dev/` annotations on its pod.

    fakeapi.dev/exit-after: 5s            the container exits after running this long
    fakeapi.dev/exit-code: "3"            ... with this code (default 0)
    fakeapi.dev/crash-loop: "true"        it exits with code 1 a second after each start
    fakeapi.dev/oom-after: 10s            it is OOM-killed after running this long (OOMKilled, 137)
    fakeapi.dev/image-pull: fail          its image pull fails (or `never` ends, or takes a duration)
    fakeapi.dev/never-ready: "true"       it never becomes ready (its readiness probe fails)
    fakeapi.dev/liveness-fails-after: 30s its liveness probe fails from then on (it is restarted)
    fakeapi.dev/log-lines: "a\\nb"         lines it writes when it starts

Two more are read by what runs in the containers (fakeapi.processes), not by the kubelet: `fakeapi.dev/exec`
(scripts exec answers with) and `fakeapi.dev/port-forward` (where forwarded ports go); their values are
checked here too.

A pod-wide annotation applies to the pod's containers, not to its init containers; `<name>.<container>`
(`fakeapi.dev/exit-code.worker`) applies to that container, init containers included, and wins over the
pod-wide one. Durations are Go's (`500ms`, `5s`, `1m30s`) or seconds (`5`). The kubelet reads them at
each container start, so a changed annotation applies from the next restart.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from fakeapi.processes.ports import ANNOTATION, annotation_ports
from fakeapi.processes.scripts import parse_annotation

PREFIX = "fakeapi.dev/"
EXIT_AFTER, EXIT_CODE, CRASH_LOOP, OOM_AFTER = "exit-after", "exit-code", "crash-loop", "oom-after"
IMAGE_PULL, NEVER_READY, LIVENESS_FAILS_AFTER, LOG_LINES = (
    "image-pull", "never-ready", "liveness-fails-after", "log-lines")
NAMES = (EXIT_AFTER, EXIT_CODE, CRASH_LOOP, OOM_AFTER, IMAGE_PULL, NEVER_READY, LIVENESS_FAILS_AFTER, LOG_LINES)
EXEC, PORT_FORWARD = "exec", "port-forward"  # (not behaviours: fakeapi.processes reads them)
KNOWN = (*NAMES, EXEC, PORT_FORWARD)
CRASH_SECONDS, CRASH_CODE = 1.0, 1
PULL_FAILS, PULL_HANGS = "fail", "never"
_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_GO_DURATION = re.compile(r"((?:\d+\.?\d*|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+")
_PART = re.compile(r"(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)")


@dataclass(frozen=True, slots=True)
class Behaviour:
    exit_after: float | None = None
    exit_code: int = 0
    oom_after: float | None = None
    image_pull: str = ""  # PULL_FAILS, PULL_HANGS, or "" (a normal pull)
    pull_seconds: float | None = None  # how long a normal pull takes (None: the kubelet's default)
    never_ready: bool = False
    liveness_fails_after: float | None = None
    log_lines: tuple[str, ...] = ()


NORMAL = Behaviour()


def duration(text: str) -> float:
    """Go's time.ParseDuration (non-negative), or a number of seconds. ValueError otherwise."""
    text = text.strip()
    try:
        seconds = float(text)
    except ValueError:
        if not _GO_DURATION.fullmatch(text):
            raise ValueError(text) from None
        seconds = sum(float(number) * _UNITS[unit] for number, unit in _PART.findall(text))
    if not seconds >= 0 or seconds == float("inf"):
        raise ValueError(text)
    return seconds


def behaviour_of(annotations: Mapping[str, str], container: str, init: bool = False) -> Behaviour:
    """The container's behaviour; values that do not parse are left out (`problems` says which)."""
    if not any(key.startswith(PREFIX) for key in annotations):
        return NORMAL
    values: dict[str, str] = {}
    for name in NAMES:
        own = annotations.get(f"{PREFIX}{name}.{container}")
        pod_wide = None if init else annotations.get(PREFIX + name)
        if own is not None or pod_wide is not None:
            values[name] = own if own is not None else str(pod_wide)
    fields: dict[str, object] = {}
    for name, value in values.items():
        try:
            _parse(name, value, fields)
        except ValueError:
            continue
    if fields.pop("crash_loop", False):
        fields.setdefault("exit_after", CRASH_SECONDS)
        fields.setdefault("exit_code", CRASH_CODE)
    return Behaviour(**fields)  # type: ignore[arg-type]


def problems(annotations: Mapping[str, str], containers: Iterable[str]) -> list[str]:
    """What is wrong with the pod's `fakeapi.dev/` annotations: unknown names, containers the pod does not
    have, values that do not parse. Each is ignored."""
    known = set(containers)
    found: list[str] = []
    for key, value in sorted(annotations.items()):
        if not key.startswith(PREFIX):
            continue
        name, _dot, container = key[len(PREFIX):].partition(".")
        if name not in KNOWN or (name == PORT_FORWARD and _dot):
            found.append(f"{key} is not an annotation fakeapi knows (it knows {', '.join(KNOWN)})")
        elif _dot and container not in known:
            found.append(f"{key} names no container of this pod")
        else:
            try:
                _check(name, str(value))
            except ValueError as error:
                found.append(f'{key}: "{value}" {error}' if name in NAMES else f"{key}: {error}")
    return found


def _check(name: str, value: str) -> None:
    """ValueError saying what is wrong with an annotation's value."""
    if name == EXEC:
        parse_annotation(value)
    elif name == PORT_FORWARD:
        annotation_ports({ANNOTATION: value})
    else:
        _parse(name, value, {})


def _parse(name: str, value: str, fields: dict[str, object]) -> None:
    """Put the annotation's value into `fields` (Behaviour's), or ValueError saying what was expected."""
    if name in (EXIT_AFTER, OOM_AFTER, LIVENESS_FAILS_AFTER):
        fields[name.replace("-", "_")] = _duration(value)
    elif name == EXIT_CODE:
        if not value.strip().isdigit() or int(value) > 255:
            raise ValueError("is not an exit code (0 to 255)")
        fields["exit_code"] = int(value)
    elif name in (CRASH_LOOP, NEVER_READY):
        if value not in ("true", "false"):
            raise ValueError('is not "true" or "false"')
        fields[name.replace("-", "_")] = value == "true"
    elif name == IMAGE_PULL:
        if value in (PULL_FAILS, PULL_HANGS):
            fields["image_pull"] = value
        else:
            try:
                fields["pull_seconds"] = duration(value)
            except ValueError:
                raise ValueError(f'is not "{PULL_FAILS}", "{PULL_HANGS}" or a duration') from None
    elif name == LOG_LINES:
        fields["log_lines"] = tuple(value.splitlines())


def _duration(value: str) -> float:
    try:
        return duration(value)
    except ValueError:
        raise ValueError('is not a duration (such as "5s", "1m30s" or "90")') from None
