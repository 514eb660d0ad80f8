"""The official `kubernetes` client against `FakeAPIServer(authorization_mode="RBAC")` as a user of its own:
refused with upstream's 403 until a RoleBinding (seeded directly, as a test's fixture would) grants it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from kubernetes import client as k8s
from kubernetes.client.exceptions import ApiException

from fakeapi.machinery.users import UserInfo
from fakeapi.testing import FakeAPIServer


@pytest.fixture
def server() -> Iterator[FakeAPIServer]:
    with FakeAPIServer(token="robot-token", user=UserInfo("robot", groups=("robots",)),
                       authorization_mode="RBAC") as started:
        yield started


def test_a_user_is_refused_until_a_binding_grants_it(server: FakeAPIServer) -> None:
    core: Any = k8s.CoreV1Api(server.kubernetes_client())
    with pytest.raises(ApiException) as refused:
        core.list_namespaced_pod("default")
    assert refused.value.status == 403
    status = json.loads(refused.value.body or "{}")
    assert (status["reason"], status["message"]) == (
        "Forbidden", 'pods is forbidden: User "robot" cannot list resource "pods" in API group "" in the '
                     'namespace "default"')
    server.seed([{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
                  "metadata": {"name": "robots-view", "namespace": "default"},
                  "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
                  "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "robots"}]}])
    assert core.list_namespaced_pod("default").items == []
    with pytest.raises(ApiException) as refused:
        core.list_namespaced_secret("default")
    assert refused.value.status == 403
