"""RBAC's escalation and bind prevention over HTTP, with upstream's messages: roles may only hold what their
writer holds (or may `escalate`), bindings only grant what their writer holds (or may `bind`)."""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.app import create_app
from fakeapi.config import Authentication, ServerConfig
from fakeapi.machinery.users import UserInfo

RBAC = "/apis/rbac.authorization.k8s.io/v1"
TOKENS = {"admin": UserInfo("admin", groups=("system:masters",)), "jane": UserInfo("jane", groups=("g",))}
ADMIN, JANE = {"Authorization": "Bearer admin"}, {"Authorization": "Bearer jane"}


@pytest.fixture
async def rbac(aiohttp_client: Any) -> Any:
    client = await aiohttp_client(create_app(ServerConfig(authentication=Authentication(tokens=TOKENS),
                                                          authorization_modes=("RBAC",))))
    await grant(client, "jane-writes-rbac", [
        {"apiGroups": ["rbac.authorization.k8s.io"], "resources": ["clusterroles", "rolebindings"],
         "verbs": ["create", "update"]},
        {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list"]}])
    return client


async def grant(client: Any, name: str, rules: list[dict[str, Any]]) -> None:
    role = {"metadata": {"name": name}, "rules": rules}
    assert (await client.post(f"{RBAC}/clusterroles", json=role, headers=ADMIN)).status == 201
    binding = {"metadata": {"name": name}, "roleRef": {"kind": "ClusterRole", "name": name},
               "subjects": [{"kind": "User", "name": "jane"}]}
    assert (await client.post(f"{RBAC}/clusterrolebindings", json=binding, headers=ADMIN)).status == 201


def cluster_role(name: str, rules: list[dict[str, Any]]) -> dict[str, Any]:
    return {"metadata": {"name": name}, "rules": rules}


async def test_a_role_with_rules_the_writer_lacks_is_forbidden(rbac: Any) -> None:
    body = cluster_role("x", [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]},
                              {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "delete", "watch"]}])
    response = await rbac.post(f"{RBAC}/clusterroles", json=body, headers=JANE)
    assert response.status == 403, await response.text()
    status = await response.json()
    assert status["message"] == (
        'clusterroles.rbac.authorization.k8s.io "x" is forbidden: user "jane" (groups=["g" "system:authenticated"]) '
        'is attempting to grant RBAC permissions not currently held:\n'
        '{APIGroups:[""], Resources:["configmaps"], Verbs:["delete" "watch"]}\n'
        '{APIGroups:[""], Resources:["pods"], Verbs:["get"]}')
    assert status["details"] == {"name": "x", "group": "rbac.authorization.k8s.io", "kind": "clusterroles"}
    assert (await rbac.get(f"{RBAC}/clusterroles/x", headers=ADMIN)).status == 404


async def test_a_role_with_held_rules_or_the_escalate_verb_is_allowed(rbac: Any) -> None:
    held = cluster_role("held", [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["list"]}])
    assert (await rbac.post(f"{RBAC}/clusterroles", json=held, headers=JANE)).status == 201
    await grant(rbac, "jane-escalates", [{"apiGroups": ["rbac.authorization.k8s.io"], "resources": ["clusterroles"],
                                          "verbs": ["escalate"]}])
    body = cluster_role("x", [{"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]}])
    assert (await rbac.post(f"{RBAC}/clusterroles", json=body, headers=JANE)).status == 201


async def test_a_binding_to_a_role_the_writer_lacks_needs_bind(rbac: Any) -> None:
    binding = {"metadata": {"name": "b"}, "roleRef": {"kind": "ClusterRole", "name": "cluster-admin"},
               "subjects": [{"kind": "User", "name": "bob"}]}
    response = await rbac.post(f"{RBAC}/namespaces/default/rolebindings", json=binding, headers=JANE)
    assert response.status == 403
    assert (await response.json())["message"] == (
        'rolebindings.rbac.authorization.k8s.io "b" is forbidden: user "jane" (groups=["g" "system:authenticated"]) '
        'is attempting to grant RBAC permissions not currently held:\n'
        '{APIGroups:["*"], Resources:["*"], Verbs:["*"]}\n{NonResourceURLs:["*"], Verbs:["*"]}')
    await grant(rbac, "jane-binds", [{"apiGroups": ["rbac.authorization.k8s.io"], "resources": ["clusterroles"],
                                      "verbs": ["bind"], "resourceNames": ["cluster-admin"]}])
    assert (await rbac.post(f"{RBAC}/namespaces/default/rolebindings", json=binding, headers=JANE)).status == 201


async def test_a_binding_to_a_held_role_or_a_missing_one(rbac: Any) -> None:
    held = cluster_role("held", [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get"]}])
    assert (await rbac.post(f"{RBAC}/clusterroles", json=held, headers=ADMIN)).status == 201
    binding = {"metadata": {"name": "b"}, "roleRef": {"kind": "ClusterRole", "name": "held"},
               "subjects": [{"kind": "User", "name": "bob"}]}
    assert (await rbac.post(f"{RBAC}/namespaces/default/rolebindings", json=binding, headers=JANE)).status == 201
    binding = {**binding, "metadata": {"name": "c"}, "roleRef": {"kind": "Role", "name": "nope"}}
    response = await rbac.post(f"{RBAC}/namespaces/default/rolebindings", json=binding, headers=JANE)
    assert (response.status, (await response.json())["message"]) == (
        403, 'rolebindings.rbac.authorization.k8s.io "c" is forbidden: roles.rbac.authorization.k8s.io "nope" '
             'not found')
