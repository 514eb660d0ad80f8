"""Authorization over HTTP: `--authorization-mode` RBAC, AlwaysDeny and the default AlwaysAllow, with
upstream's 403 texts for every kind of request (namespaced, cluster scope, subresource, named object,
non-resource path, watch)."""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.app import create_app
from fakeapi.config import Authentication, ServerConfig
from fakeapi.machinery.users import UserInfo

RBAC = "/apis/rbac.authorization.k8s.io/v1"
TOKENS = {
    "admin": UserInfo("admin", groups=("system:masters",)),
    "jane": UserInfo("jane", groups=("g",)),
    "sa": UserInfo("system:serviceaccount:ns:sa", groups=("system:serviceaccounts",
                                                           "system:serviceaccounts:ns")),
}


def server(*modes: str) -> Any:
    return create_app(ServerConfig(authentication=Authentication(tokens=TOKENS), authorization_modes=modes))


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
async def rbac(aiohttp_client: Any) -> Any:
    return await aiohttp_client(server("RBAC"))


async def forbidden(response: Any) -> dict[str, Any]:
    assert response.status == 403, await response.text()
    status: dict[str, Any] = await response.json()
    assert (status["reason"], status["code"]) == ("Forbidden", 403)
    return status


async def test_a_list_without_a_binding_is_forbidden_with_upstreams_text(rbac: Any) -> None:
    status = await forbidden(await rbac.get("/api/v1/namespaces/ns/pods", headers=auth("sa")))
    assert status["message"] == ('pods is forbidden: User "system:serviceaccount:ns:sa" cannot list resource "pods" '
                                 'in API group "" in the namespace "ns"')
    assert status["details"] == {"kind": "pods"}


async def test_cluster_scope_named_objects_subresources_and_watches_are_told_apart(rbac: Any) -> None:
    jane = auth("jane")
    status = await forbidden(await rbac.get("/api/v1/nodes", headers=jane))
    assert status["message"].endswith('cannot list resource "nodes" in API group "" at the cluster scope')
    status = await forbidden(await rbac.get("/api/v1/namespaces/default/pods/x", headers=jane))
    assert status["message"] == ('pods "x" is forbidden: User "jane" cannot get resource "pods" in API group "" in '
                                 'the namespace "default"')
    assert status["details"] == {"name": "x", "kind": "pods"}
    status = await forbidden(await rbac.post("/api/v1/namespaces/default/pods/x/exec?command=ls", headers=jane))
    assert 'cannot create resource "pods/exec" in API group ""' in status["message"]
    status = await forbidden(await rbac.get("/api/v1/namespaces/default/pods?watch=1", headers=jane))
    assert 'cannot watch resource "pods"' in status["message"]
    status = await forbidden(await rbac.get(f"{RBAC}/clusterroles", headers=jane))
    assert status["message"].startswith('clusterroles.rbac.authorization.k8s.io is forbidden: User "jane" cannot '
                                        'list resource "clusterroles" in API group "rbac.authorization.k8s.io"')
    assert status["details"] == {"group": "rbac.authorization.k8s.io", "kind": "clusterroles"}


async def test_a_non_resource_path_is_forbidden_by_path(rbac: Any) -> None:
    status = await forbidden(await rbac.get("/foo", headers=auth("jane")))
    assert status["message"] == 'forbidden: User "jane" cannot get path "/foo"'
    assert status["details"] == {}


async def test_bootstrap_policy_lets_everyone_discover_and_read_health(rbac: Any) -> None:
    for path in ("/healthz", "/version", "/api", "/apis", "/api/v1"):
        assert (await rbac.get(path, headers=auth("jane"))).status == 200, path
    assert (await rbac.get("/version")).status == 200  # the anonymous user: system:public-info-viewer
    status = await forbidden(await rbac.get("/api"))
    assert status["message"] == 'forbidden: User "system:anonymous" cannot get path "/api"'


async def test_system_masters_may_do_everything(rbac: Any) -> None:
    assert (await rbac.get("/api/v1/nodes", headers=auth("admin"))).status == 200
    assert (await rbac.get("/foo", headers=auth("admin"))).status == 404


async def test_a_role_binding_grants_its_rules_in_its_namespace(rbac: Any) -> None:
    admin = auth("admin")
    role = {"metadata": {"name": "reader"}, "rules": [{"apiGroups": [""], "resources": ["pods"],
                                                        "verbs": ["get", "list"]}]}
    assert (await rbac.post(f"{RBAC}/namespaces/default/roles", json=role, headers=admin)).status == 201
    binding = {"metadata": {"name": "jane-reads"}, "roleRef": {"kind": "Role", "name": "reader"},
               "subjects": [{"kind": "Group", "name": "g"}]}
    assert (await rbac.post(f"{RBAC}/namespaces/default/rolebindings", json=binding, headers=admin)).status == 201
    assert (await rbac.get("/api/v1/namespaces/default/pods", headers=auth("jane"))).status == 200
    await forbidden(await rbac.get("/api/v1/namespaces/kube-system/pods", headers=auth("jane")))
    await forbidden(await rbac.delete("/api/v1/namespaces/default/pods/x", headers=auth("jane")))


async def test_a_service_account_subject_without_namespace_is_the_bindings(rbac: Any) -> None:
    admin = auth("admin")
    assert (await rbac.post("/api/v1/namespaces", json={"metadata": {"name": "ns"}}, headers=admin)).status == 201
    binding = {"metadata": {"name": "sa-views"}, "roleRef": {"kind": "ClusterRole", "name": "view"},
               "subjects": [{"kind": "ServiceAccount", "name": "sa"}]}
    assert (await rbac.post(f"{RBAC}/namespaces/ns/rolebindings", json=binding, headers=admin)).status == 201
    # `view` aggregates system:aggregate-to-view's rules
    assert (await rbac.get("/api/v1/namespaces/ns/pods", headers=auth("sa"))).status == 200
    await forbidden(await rbac.get("/api/v1/namespaces/ns/secrets", headers=auth("sa")))


async def test_a_binding_to_a_missing_role_is_told_in_the_reason(rbac: Any) -> None:
    binding = {"metadata": {"name": "b"}, "roleRef": {"kind": "ClusterRole", "name": "missing"},
               "subjects": [{"kind": "User", "name": "jane"}]}
    assert (await rbac.post(f"{RBAC}/clusterrolebindings", json=binding, headers=auth("admin"))).status == 201
    status = await forbidden(await rbac.get("/api/v1/nodes", headers=auth("jane")))
    assert status["message"] == ('nodes is forbidden: User "jane" cannot list resource "nodes" in API group "" at '
                                 'the cluster scope: RBAC: clusterrole.rbac.authorization.k8s.io "missing" not '
                                 'found')
    review = {"spec": {"user": "jane", "resourceAttributes": {"verb": "list", "resource": "nodes"}}}
    answer = await (await rbac.post("/apis/authorization.k8s.io/v1/subjectaccessreviews", json=review,
                                    headers=auth("admin"))).json()
    assert answer["status"] == {"allowed": False,
                                "reason": 'RBAC: clusterrole.rbac.authorization.k8s.io "missing" not found'}


async def test_always_deny_refuses_everyone_but_system_masters(aiohttp_client: Any) -> None:
    client = await aiohttp_client(server("AlwaysDeny"))
    status = await forbidden(await client.get("/api/v1/namespaces/ns/pods", headers=auth("jane")))
    assert status["message"].endswith('in the namespace "ns": Everything is forbidden.')
    assert (await client.get("/api/v1/namespaces/ns/pods", headers=auth("admin"))).status == 200


async def test_the_default_mode_allows_everyone(client: Any) -> None:
    assert (await client.get("/api/v1/nodes")).status == 200


async def test_the_control_api_is_not_authorized(rbac: Any) -> None:
    headers = {**auth("jane"), "X-Fakeapi-Control": "1"}
    assert (await rbac.get("/fakeapi/v1/requests", headers=headers)).status == 200


async def test_bootstrap_policy_is_labelled_and_annotated(rbac: Any) -> None:
    role = await (await rbac.get(f"{RBAC}/clusterroles/cluster-admin", headers=auth("admin"))).json()
    assert role["metadata"]["labels"] == {"kubernetes.io/bootstrapping": "rbac-defaults"}
    assert role["metadata"]["annotations"] == {"rbac.authorization.kubernetes.io/autoupdate": "true"}
    binding = await (await rbac.get(f"{RBAC}/clusterrolebindings/cluster-admin", headers=auth("admin"))).json()
    assert binding["subjects"] == [{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group",
                                    "name": "system:masters"}]
    roles = await (await rbac.get(f"{RBAC}/namespaces/kube-system/roles", headers=auth("admin"))).json()
    assert "extension-apiserver-authentication-reader" in [role["metadata"]["name"] for role in roles["items"]]


# ---- reviews answer from the same authorizer

AUTHZ = "/apis/authorization.k8s.io/v1"


async def test_a_subject_access_review_answers_rbacs_decision_and_reason(rbac: Any) -> None:
    review = {"spec": {"user": "someone", "groups": ["system:masters"],
                       "resourceAttributes": {"verb": "get", "resource": "pods", "namespace": "default"}}}
    answer = await (await rbac.post(f"{AUTHZ}/subjectaccessreviews", json=review, headers=auth("admin"))).json()
    assert answer["status"] == {"allowed": True}  # system:masters: the privileged group, no reason
    review["spec"] = {"user": "jane", "groups": ["g"], "nonResourceAttributes": {"verb": "get", "path": "/version"}}
    answer = await (await rbac.post(f"{AUTHZ}/subjectaccessreviews", json=review, headers=auth("admin"))).json()
    assert answer["status"] == {"allowed": False}  # not authenticated: only system:authenticated may read it
    review["spec"]["groups"] = ["system:authenticated"]
    answer = await (await rbac.post(f"{AUTHZ}/subjectaccessreviews", json=review, headers=auth("admin"))).json()
    assert answer["status"] == {"allowed": True, "reason": 'RBAC: allowed by ClusterRoleBinding "system:discovery" '
                                                           'of ClusterRole "system:discovery" to Group '
                                                           '"system:authenticated"'}


async def test_a_local_subject_access_review_is_served_in_its_namespace(rbac: Any) -> None:
    review = {"spec": {"user": "jane", "resourceAttributes": {"verb": "list", "resource": "pods",
                                                              "namespace": "default"}}}
    response = await rbac.post(f"{AUTHZ}/namespaces/default/localsubjectaccessreviews", json=review,
                               headers=auth("admin"))
    assert response.status == 201, await response.text()
    answer = await response.json()
    assert (answer["kind"], answer["metadata"]["namespace"], answer["status"]) == (
        "LocalSubjectAccessReview", "default", {"allowed": False})
    response = await rbac.post(f"{AUTHZ}/namespaces/other/localsubjectaccessreviews",
                               json={**review, "metadata": {"namespace": "other"}}, headers=auth("admin"))
    assert response.status == 422
    assert (await response.json())["message"] == (
        '.authorization.k8s.io "" is invalid: spec.resourceAttributes.namespace: '
        'Invalid value: "default": must match metadata.namespace')


async def test_self_subject_access_and_rules_reviews_answer_for_the_caller(rbac: Any) -> None:
    review = {"spec": {"resourceAttributes": {"verb": "list", "resource": "pods", "namespace": "default"}}}
    answer = await (await rbac.post(f"{AUTHZ}/selfsubjectaccessreviews", json=review, headers=auth("jane"))).json()
    assert answer["status"] == {"allowed": False}
    rules = await (await rbac.post(f"{AUTHZ}/selfsubjectrulesreviews", json={"spec": {"namespace": "default"}},
                                   headers=auth("jane"))).json()
    assert rules["status"]["incomplete"] is False
    assert {"verbs": ["create"], "apiGroups": ["authorization.k8s.io"],
            "resources": ["selfsubjectaccessreviews", "selfsubjectrulesreviews"]} in rules["status"]["resourceRules"]
    assert {"verbs": ["get"], "nonResourceURLs": ["/healthz", "/livez", "/readyz", "/version", "/version/"]} in \
        rules["status"]["nonResourceRules"]
    assert all("pods" not in rule.get("resources", []) for rule in rules["status"]["resourceRules"])


# ---- impersonation


async def test_impersonation_needs_the_impersonate_verb(rbac: Any) -> None:
    headers = {**auth("jane"), "Impersonate-User": "bob"}
    status = await forbidden(await rbac.get("/api/v1/pods", headers=headers))
    assert status["message"] == ('users "bob" is forbidden: User "jane" cannot impersonate resource "users" in API '
                                 'group "" at the cluster scope')
    headers = {**auth("jane"), "Impersonate-User": "system:serviceaccount:ns:robot"}
    status = await forbidden(await rbac.get("/api/v1/pods", headers=headers))
    assert status["message"] == ('serviceaccounts "robot" is forbidden: User "jane" cannot impersonate resource '
                                 '"serviceaccounts" in API group "" in the namespace "ns"')


async def test_an_impersonated_user_is_who_the_server_sees(rbac: Any) -> None:
    headers = {**auth("admin"), "Impersonate-User": "bob", "Impersonate-Group": "dev",
               "Impersonate-Extra-Scopes": "view"}
    review = await (await rbac.post("/apis/authentication.k8s.io/v1/selfsubjectreviews", json={},
                                    headers=headers)).json()
    assert review["status"]["userInfo"] == {"username": "bob", "groups": ["dev", "system:authenticated"],
                                            "extra": {"scopes": ["view"]}}
    status = await forbidden(await rbac.get("/api/v1/nodes", headers=headers))
    assert status["message"].startswith('nodes is forbidden: User "bob" cannot list')


async def test_impersonation_works_under_the_default_mode(client: Any) -> None:
    headers = {"Impersonate-User": "jane", "Impersonate-Group": "g"}
    review = await (await client.post("/apis/authentication.k8s.io/v1/selfsubjectreviews", json={},
                                      headers=headers)).json()
    assert review["status"]["userInfo"] == {"username": "jane", "groups": ["g", "system:authenticated"]}
    response = await client.get("/api/v1/pods", headers={"Impersonate-Group": "g"})
    assert response.status == 500  # upstream's InternalError: groups without a user
