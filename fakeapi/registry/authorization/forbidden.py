"""Upstream's 403 for a request its authorizers did not allow (apiserver responsewriters.Forbidden):
`pods "x" is forbidden: User "jane" cannot get resource "pods" in API group "" in the namespace "ns"`."""

from __future__ import annotations

import orjson

from fakeapi.machinery.errors import Forbidden, qualified
from fakeapi.machinery.types import JSON
from fakeapi.registry.authorization.attributes import Attributes


def forbidden_message(attrs: Attributes) -> str:
    user = _quote(attrs.user.username)
    if not attrs.resource_request:
        return f"User {user} cannot {attrs.verb} path {_quote(attrs.path)}"
    what = f"User {user} cannot {attrs.verb} resource {_quote(attrs.combined_resource)} in API group " \
           f"{_quote(attrs.api_group)}"
    if attrs.namespace:
        return f"{what} in the namespace {_quote(attrs.namespace)}"
    return f"{what} at the cluster scope"


def forbidden(attrs: Attributes, reason: str) -> Forbidden:
    """The 403 Forbidden Status of a refused request (the authorizers' reason after the message)."""
    why = forbidden_message(attrs)
    if reason:
        why = f"{why}: {reason}"
    if not attrs.resource_request or not attrs.resource:
        return Forbidden(f"forbidden: {why}", {})
    resource = qualified(attrs.resource, attrs.api_group)
    details: JSON = {"name": attrs.name} if attrs.name else {}
    if attrs.api_group:
        details["group"] = attrs.api_group
    details["kind"] = attrs.resource
    if attrs.name:
        return Forbidden(f"{resource} {_quote(attrs.name)} is forbidden: {why}", details)
    return Forbidden(f"{resource} is forbidden: {why}", details)


def _quote(text: str) -> str:
    """Go's %q (for the printable text names are made of)."""
    return orjson.dumps(text).decode()
