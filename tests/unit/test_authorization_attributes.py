"""What the authorizers are asked (a request's attributes, as upstream's RequestInfo maps it) and how a
policy rule matches them."""

from __future__ import annotations

import pytest
from multidict import MultiDict

from fakeapi.http.authorization import attributes_of
from fakeapi.http.requestinfo import request_info
from fakeapi.machinery.users import UserInfo
from fakeapi.registry.authorization.attributes import Attributes
from fakeapi.registry.authorization.rules import Rule

JANE = UserInfo("jane")


def attributes(method: str, path: str, **query: str) -> tuple[object, ...]:
    attrs = attributes_of(JANE, request_info(method, path, MultiDict(query)), path)
    return (attrs.verb, attrs.resource_request, attrs.api_group, attrs.namespace, attrs.combined_resource,
            attrs.name)


@pytest.mark.parametrize(("method", "path", "query", "expected"), [
    ("GET", "/api/v1/namespaces/ns/pods", {}, ("list", True, "", "ns", "pods", "")),
    ("GET", "/api/v1/namespaces/ns/pods", {"watch": "true"}, ("watch", True, "", "ns", "pods", "")),
    ("GET", "/api/v1/watch/namespaces/ns/pods/x", {}, ("watch", True, "", "ns", "pods", "x")),
    ("GET", "/api/v1/namespaces/ns/pods", {"fieldSelector": "metadata.name=x"}, ("list", True, "", "ns", "pods", "x")),
    ("GET", "/api/v1/namespaces/ns/pods/x", {}, ("get", True, "", "ns", "pods", "x")),
    ("DELETE", "/api/v1/namespaces/ns/pods", {}, ("deletecollection", True, "", "ns", "pods", "")),
    ("PATCH", "/apis/apps/v1/namespaces/ns/deployments/d/scale", {},
     ("patch", True, "apps", "ns", "deployments/scale", "d")),
    ("POST", "/api/v1/namespaces/ns/pods/x/exec", {}, ("create", True, "", "ns", "pods/exec", "x")),
    ("PUT", "/api/v1/namespaces/ns/finalize", {}, ("update", True, "", "ns", "namespaces/finalize", "ns")),
    ("GET", "/api/v1/nodes", {}, ("list", True, "", "", "nodes", "")),
    ("GET", "/healthz", {}, ("get", False, "", "", "", "")),
    ("POST", "/version", {}, ("post", False, "", "", "", "")),
])
def test_requests_map_to_upstreams_attributes(method: str, path: str, query: dict[str, str],
                                              expected: tuple[object, ...]) -> None:
    assert attributes(method, path, **query) == expected


def rule(**fields: list[str]) -> Rule:
    return Rule.of(fields)


def test_rules_match_wildcards_subresources_names_and_url_prefixes() -> None:
    scale = Attributes(JANE, "get", True, "ns", "apps", "deployments", "scale", "d")
    assert rule(verbs=["get"], apiGroups=["*"], resources=["*/scale"]).allows(scale)
    assert not rule(verbs=["get"], apiGroups=["apps"], resources=["deployments"]).allows(scale)
    assert rule(verbs=["*"], apiGroups=["apps"], resources=["deployments/scale"], resourceNames=["d"]).allows(scale)
    assert not rule(verbs=["get"], apiGroups=["apps"], resources=["deployments/scale"],
                    resourceNames=["e"]).allows(scale)
    listing = Attributes(JANE, "list", True, "ns", "", "pods")
    assert not rule(verbs=["list"], apiGroups=[""], resources=["pods"], resourceNames=["x"]).allows(listing)
    health = Attributes(JANE, "get", False, path="/healthz/etcd")
    assert rule(verbs=["get"], nonResourceURLs=["/healthz/*"]).allows(health)
    assert not rule(verbs=["get"], nonResourceURLs=["/healthz"]).allows(health)
    assert not rule(verbs=["get"], apiGroups=["*"], resources=["*"]).allows(health)
