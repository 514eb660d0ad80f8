"""What a request does to which object (verb, resource, namespace, name...), as upstream's RequestInfo."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

_METHOD_VERBS = {"POST": "create", "GET": "get", "HEAD": "get", "PUT": "update", "PATCH": "patch",
                 "DELETE": "delete"}
_SPECIAL_VERBS = frozenset({"proxy", "watch"})
_NAMESPACE_SUBRESOURCES = frozenset({"status", "finalize"})
# strconv.ParseBool's true spellings: what `watch=` accepts as true
_TRUE = frozenset({"1", "t", "T", "true", "TRUE", "True"})


@dataclass(frozen=True, slots=True)
class RequestInfo:
    """Upstream's RequestInfo: `verb` is a Kubernetes verb for resource requests, else the method."""

    verb: str
    resource: str = ""
    subresource: str = ""
    namespace: str = ""
    name: str = ""
    is_resource_request: bool = False
    group: str = ""  # the API group: "" for /api/v1, `coordination.k8s.io` for /apis/coordination.k8s.io/v1


def request_info(method: str, path: str, query: Mapping[str, str]) -> RequestInfo:
    """Classify a request as upstream's RequestInfoFactory does (a get without a name is list or watch...)."""
    trimmed = path.strip("/")
    parts = trimmed.split("/") if trimmed else []
    non_resource = RequestInfo(verb=method.lower())
    if len(parts) < 3 or parts[0] not in ("api", "apis"):
        return non_resource
    group = parts[1] if parts[0] == "apis" else ""
    parts = parts[1:] if parts[0] == "api" else parts[2:]  # /api/{version} or /apis/{group}/{version}
    if len(parts) < 2:
        return non_resource
    parts = parts[1:]  # the version
    if parts[0] in _SPECIAL_VERBS:
        if len(parts) < 2:
            return non_resource
        verb = parts[0]
        parts = parts[1:]
    else:
        verb = _METHOD_VERBS.get(method.upper(), "")
    namespace = ""
    if parts[0] == "namespaces" and len(parts) > 1:
        namespace = parts[1]
        if len(parts) > 2 and parts[2] not in _NAMESPACE_SUBRESOURCES:
            parts = parts[2:]
    resource = parts[0]
    name = parts[1] if len(parts) >= 2 else ""
    subresource = parts[2] if len(parts) >= 3 and verb != "proxy" else ""
    if not name and verb == "get":
        verb = "watch" if query.get("watch", "") in _TRUE else "list"
        name = _exact_name(query.get("fieldSelector", ""))
    if not name and verb == "delete":
        verb = "deletecollection"
    return RequestInfo(verb, resource, subresource, namespace, name, True, group)


def _exact_name(selector: str) -> str:
    """The name a `metadata.name=X` field selector pins a list or watch to, as upstream records it."""
    for term in selector.split(","):
        field, sep, value = term.partition("==") if "==" in term else term.partition("=")
        if sep and field.strip() == "metadata.name":
            value = value.strip()
            if value and "/" not in value and "%" not in value and value not in (".", ".."):
                return value
    return ""
