"""The RBAC kinds over HTTP: defaulting, upstream's validation messages and field paths, the immutable
roleRef, and the Table columns kubectl prints."""

from __future__ import annotations

from typing import Any

RBAC = "/apis/rbac.authorization.k8s.io/v1"
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"


def role(name: str, rules: list[dict[str, Any]], kind: str = "Role") -> dict[str, Any]:
    return {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": kind, "metadata": {"name": name}, "rules": rules}


def binding(name: str, role_kind: str, role_name: str, subjects: list[dict[str, Any]],
            kind: str = "RoleBinding") -> dict[str, Any]:
    return {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": kind, "metadata": {"name": name},
            "roleRef": {"kind": role_kind, "name": role_name}, "subjects": subjects}


async def invalid(response: Any) -> tuple[str, list[dict[str, str]]]:
    assert response.status == 422, await response.text()
    status = await response.json()
    return status["message"], status["details"]["causes"]


async def test_a_binding_gets_the_rbac_group_on_its_role_ref_and_user_subjects(client: Any) -> None:
    body = binding("b", "ClusterRole", "view", [{"kind": "User", "name": "jane"},
                                               {"kind": "ServiceAccount", "name": "sa", "namespace": "default"}])
    response = await client.post(f"{RBAC}/namespaces/default/rolebindings", json=body)
    assert response.status == 201, await response.text()
    created = await response.json()
    assert created["roleRef"] == {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"}
    assert created["subjects"] == [{"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": "jane"},
                                   {"kind": "ServiceAccount", "name": "sa", "namespace": "default"}]


async def test_rules_are_validated_with_upstreams_messages(client: Any) -> None:
    body = role("r", [{"apiGroups": [""], "resources": ["pods"]},
                      {"verbs": ["get"], "nonResourceURLs": ["/healthz"]},
                      {"verbs": ["get"], "resources": ["pods", "secrets"], "resourceNames": ["x"]}])
    message, causes = await invalid(await client.post(f"{RBAC}/namespaces/default/roles", json=body))
    assert message == (
        'Role.rbac.authorization.k8s.io "r" is invalid: [rules[0].verbs: Required value: verbs must contain at '
        'least one value, rules[1].nonResourceURLs: Invalid value: []string{"/healthz"}: namespaced rules cannot '
        'apply to non-resource URLs, rules[2].apiGroups: Required value: resource rules must supply at least one '
        'api group, rules[2].resourceNames: Required value: resource names cannot apply to multiple resources]')
    assert [cause["field"] for cause in causes] == ["rules[0].verbs", "rules[1].nonResourceURLs",
                                                    "rules[2].apiGroups", "rules[2].resourceNames"]


async def test_a_cluster_role_may_name_non_resource_urls(client: Any) -> None:
    body = role("health", [{"verbs": ["get"], "nonResourceURLs": ["/healthz"]}], kind="ClusterRole")
    response = await client.post(f"{RBAC}/clusterroles", json=body)
    assert response.status == 201, await response.text()


async def test_role_ref_kind_and_api_group_take_upstreams_values(client: Any) -> None:
    body = binding("b", "Role", "r", [{"kind": "Robot", "name": "x"}], kind="ClusterRoleBinding")
    body["roleRef"]["apiGroup"] = "example.com"
    message, _ = await invalid(await client.post(f"{RBAC}/clusterrolebindings", json=body))
    assert message == (
        'ClusterRoleBinding.rbac.authorization.k8s.io "b" is invalid: [roleRef.apiGroup: Unsupported value: '
        '"example.com": supported values: "rbac.authorization.k8s.io", roleRef.kind: Unsupported value: "Role": '
        'supported values: "ClusterRole", subjects[0].kind: Unsupported value: "Robot": supported values: '
        '"ServiceAccount", "User", "Group"]')


async def test_a_cluster_binding_needs_the_service_accounts_namespace(client: Any) -> None:
    body = binding("b", "ClusterRole", "view", [{"kind": "ServiceAccount", "name": "sa"}], kind="ClusterRoleBinding")
    message, _ = await invalid(await client.post(f"{RBAC}/clusterrolebindings", json=body))
    assert message.endswith('is invalid: subjects[0].namespace: Required value')


async def test_role_ref_cannot_change(client: Any) -> None:
    path = f"{RBAC}/namespaces/default/rolebindings"
    created = await (await client.post(path, json=binding("b", "ClusterRole", "view", []))).json()
    created["roleRef"]["name"] = "edit"
    message, causes = await invalid(await client.put(f"{path}/b", json=created))
    assert message == (
        'RoleBinding.rbac.authorization.k8s.io "b" is invalid: roleRef: Invalid value: rbac.RoleRef{APIGroup:'
        '"rbac.authorization.k8s.io", Kind:"ClusterRole", Name:"edit"}: cannot change roleRef')
    assert causes[0]["field"] == "roleRef"


async def test_an_aggregation_rule_needs_a_selector(client: Any) -> None:
    body = role("agg", [], kind="ClusterRole")
    body["aggregationRule"] = {"clusterRoleSelectors": []}
    message, _ = await invalid(await client.post(f"{RBAC}/clusterroles", json=body))
    assert message.endswith("aggregationRule.clusterRoleSelectors: Required value: at least one "
                            "clusterRoleSelector required if aggregationRule is non-nil")


async def test_binding_table_names_the_role_and_subjects(client: Any) -> None:
    body = binding("b", "ClusterRole", "view", [{"kind": "User", "name": "jane"}, {"kind": "Group", "name": "g"},
                                               {"kind": "ServiceAccount", "name": "sa", "namespace": "ns"}])
    await client.post(f"{RBAC}/namespaces/default/rolebindings", json=body)
    table = await (await client.get(f"{RBAC}/namespaces/default/rolebindings",
                                    headers={"Accept": TABLE})).json()
    assert [(c["name"], c["priority"]) for c in table["columnDefinitions"]] == [
        ("Name", 0), ("Role", 0), ("Age", 0), ("Users", 1), ("Groups", 1), ("ServiceAccounts", 1)]
    [row] = table["rows"]
    assert row["cells"][:2] == ["b", "ClusterRole/view"] and row["cells"][3:] == ["jane", "g", "ns/sa"]


async def test_an_aggregated_cluster_role_gathers_the_rules_of_the_roles_it_selects(client: Any) -> None:
    extra = role("extra-view", [{"apiGroups": ["example.com"], "resources": ["widgets"], "verbs": ["get"]}],
                 kind="ClusterRole")
    extra["metadata"]["labels"] = {"rbac.authorization.k8s.io/aggregate-to-view": "true"}
    assert (await client.post(f"{RBAC}/clusterroles", json=extra)).status == 201
    for name in ("view", "edit", "admin"):  # edit gathers view's, admin edit's
        rules = (await (await client.get(f"{RBAC}/clusterroles/{name}")).json())["rules"]
        assert extra["rules"][0] in rules, name
    [entry] = [e for e in (await (await client.get(f"{RBAC}/clusterroles/view")).json())["metadata"]["managedFields"]
               if e.get("manager") == "clusterrole-aggregator"]
    assert entry["operation"] == "Update"
    assert (await client.delete(f"{RBAC}/clusterroles/extra-view")).status == 200
    rules = (await (await client.get(f"{RBAC}/clusterroles/admin")).json())["rules"]
    assert extra["rules"][0] not in rules
