"""request_info classifies requests as upstream's RequestInfoFactory does."""

from __future__ import annotations

import pytest

from fakeapi.http.requestinfo import RequestInfo as Info
from fakeapi.http.requestinfo import request_info


@pytest.mark.parametrize(
    ("method", "path", "query", "expected"),
    [
        ("GET", "/api/v1/namespaces/default/pods", {}, Info("list", "pods", "", "default", "", True)),
        ("GET", "/api/v1/namespaces/default/pods", {"watch": "true"},
         Info("watch", "pods", "", "default", "", True)),
        ("GET", "/api/v1/namespaces/default/pods", {"watch": "1"},
         Info("watch", "pods", "", "default", "", True)),
        ("GET", "/api/v1/namespaces/default/pods", {"watch": "false"},
         Info("list", "pods", "", "default", "", True)),
        ("GET", "/api/v1/pods", {"watch": "true"}, Info("watch", "pods", "", "", "", True)),
        ("GET", "/api/v1/namespaces/default/pods/web", {}, Info("get", "pods", "", "default", "web", True)),
        ("HEAD", "/api/v1/namespaces/default/pods/web", {}, Info("get", "pods", "", "default", "web", True)),
        ("POST", "/api/v1/namespaces/default/pods", {}, Info("create", "pods", "", "default", "", True)),
        ("PUT", "/api/v1/namespaces/ns/pods/web/status", {},
         Info("update", "pods", "status", "ns", "web", True)),
        ("PATCH", "/api/v1/namespaces/ns/pods/web", {}, Info("patch", "pods", "", "ns", "web", True)),
        ("DELETE", "/api/v1/namespaces/ns/pods/web", {}, Info("delete", "pods", "", "ns", "web", True)),
        ("DELETE", "/api/v1/namespaces/ns/pods", {}, Info("deletecollection", "pods", "", "ns", "", True)),
        ("GET", "/api/v1/namespaces/ns/pods/web/log", {}, Info("get", "pods", "log", "ns", "web", True)),
        # a namespace and its own subresources
        ("GET", "/api/v1/namespaces/ns", {}, Info("get", "namespaces", "", "ns", "ns", True)),
        ("PUT", "/api/v1/namespaces/ns/status", {},
         Info("update", "namespaces", "status", "ns", "ns", True)),
        ("GET", "/api/v1/namespaces", {}, Info("list", "namespaces", "", "", "", True)),
        # a list or watch pinned to one name by the field selector names it
        ("GET", "/api/v1/namespaces/ns/pods", {"watch": "true", "fieldSelector": "metadata.name=web"},
         Info("watch", "pods", "", "ns", "web", True)),
        ("GET", "/api/v1/namespaces/ns/pods", {"fieldSelector": "metadata.name!=web"},
         Info("list", "pods", "", "ns", "", True)),
        # the old watch prefix
        ("GET", "/api/v1/watch/namespaces/ns/pods", {}, Info("watch", "pods", "", "ns", "", True)),
        ("GET", "/apis/apps/v1/namespaces/ns/deployments/d", {},
         Info("get", "deployments", "", "ns", "d", True, "apps")),
        # non-resource requests keep the method as their verb
        ("GET", "/healthz", {}, Info("get")),
        ("GET", "/api/v1", {}, Info("get")),
        ("POST", "/fakeapi/v1/reset", {}, Info("post")),
    ],
)
def test_request_info_classifies_like_upstream(method: str, path: str, query: dict[str, str],
                                               expected: Info) -> None:
    assert request_info(method, path, query) == expected
