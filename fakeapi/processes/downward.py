"""The downward API: a pod's own fields and its containers' resources as text, as the kubelet renders them
for environment variables (fieldRef, resourceFieldRef) and downwardAPI volume files."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from fakeapi.machinery import quantity
from fakeapi.machinery.types import JSON

Lookup = Callable[[str, str, str], JSON | None]  # (resource, namespace, name) -> the object, or None


class Unresolved(Exception):
    """A reference the kubelet cannot resolve: the message is upstream's (`configmap "x" not found`...)."""


def field_value(pod: JSON, path: str) -> str:
    """fieldpath.ExtractFieldPathAsString plus the pod fields only environment variables may name."""
    meta: JSON = pod.get("metadata") or {}
    spec: JSON = pod.get("spec") or {}
    status: JSON = pod.get("status") or {}
    for prefix, values in (("metadata.labels", meta.get("labels")), ("metadata.annotations", meta.get("annotations"))):
        if path == prefix:
            return format_map(values or {})
        if path.startswith(prefix + "['") and path.endswith("']"):
            return str((values or {}).get(path[len(prefix) + 2:-2], ""))
    simple: dict[str, Any] = {
        "metadata.name": meta.get("name"), "metadata.namespace": meta.get("namespace"),
        "metadata.uid": meta.get("uid"), "spec.nodeName": spec.get("nodeName"),
        "spec.serviceAccountName": spec.get("serviceAccountName"), "status.hostIP": status.get("hostIP"),
        "status.podIP": status.get("podIP"),
        "status.hostIPs": ",".join(item.get("ip", "") for item in status.get("hostIPs") or []),
        "status.podIPs": ",".join(item.get("ip", "") for item in status.get("podIPs") or []),
    }
    if path in simple:
        return str(simple[path] or "")
    raise Unresolved(f"unsupported fieldPath: {path}")


def resource_value(pod: JSON, reference: JSON, container: str, lookup: Lookup) -> str:
    """A resourceFieldRef's value, rounded up to its divisor; a limit the container does not set is the
    node's allocatable amount (as the kubelet fills it in)."""
    name = reference.get("containerName") or container
    spec = next((c for key in ("containers", "initContainers") for c in (pod.get("spec") or {}).get(key) or []
                 if c.get("name") == name), None)
    if spec is None:
        raise Unresolved(f"container {name} not found in pod {(pod.get('metadata') or {}).get('name', '')}")
    resource = str(reference.get("resource", ""))
    kind, _dot, resource_name = resource.partition(".")
    amounts: JSON = (spec.get("resources") or {}).get(kind) or {}
    amount = amounts.get(resource_name)
    if amount is None and kind == "limits":
        node = lookup("nodes", "", (pod.get("spec") or {}).get("nodeName", "")) or {}
        amount = ((node.get("status") or {}).get("allocatable") or {}).get(resource_name)
    value = quantity.parse_quantity(amount if amount is not None else "0")
    divisor = quantity.parse_quantity(reference.get("divisor") or "1")
    if divisor <= 0:
        divisor = quantity.parse_quantity("1")
    if resource_name == "cpu":  # in millicores, then divided
        return str(math.ceil(math.ceil(value * 1000) / math.ceil(divisor * 1000)))
    return str(math.ceil(math.ceil(value) / math.ceil(divisor)))


def format_map(values: Mapping[str, Any]) -> str:
    """Upstream's FormatMap: `key="value"` lines in key order (Go-quoted), no trailing newline."""
    return "\n".join(f"{key}={go_quote(str(values[key]))}" for key in sorted(values))


def go_quote(text: str) -> str:
    """Go's %q of a string (strconv.Quote): printable characters as they are, the rest escaped."""
    escapes = {'"': '\\"', "\\": "\\\\", "\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r",
               "\t": "\\t", "\v": "\\v"}
    out = []
    for char in text:
        if char in escapes:
            out.append(escapes[char])
        elif char.isprintable():
            out.append(char)
        elif ord(char) < 0x80:
            out.append(f"\\x{ord(char):02x}")
        elif ord(char) <= 0xFFFF:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(f"\\U{ord(char):08x}")
    return '"' + "".join(out) + '"'
