"""ServiceAccounts over HTTP: CRUD, secret references reduced to names, the deprecated-annotation warning,
validation and Table rows."""

from __future__ import annotations

from typing import Any

SERVICE_ACCOUNTS = "/api/v1/namespaces/default/serviceaccounts"
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"
DEPRECATED = ('299 - "metadata.annotations[kubernetes.io/enforce-mountable-secrets]: deprecated in v1.32+; prefer '
              'separate namespaces to isolate access to mounted secrets"')


def service_account(name: str = "builder", **fields: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": name}, **fields}


async def test_create_keeps_only_the_names_of_secret_references(client: Any) -> None:
    response = await client.post(SERVICE_ACCOUNTS, json=service_account(
        secrets=[{"name": "token", "namespace": "default", "kind": "Secret", "uid": "1"}, {"kind": "Secret"}],
        imagePullSecrets=[{"name": "registry"}], automountServiceAccountToken=False))
    assert response.status == 201
    created = await response.json()
    assert created["secrets"] == [{"name": "token"}, {}]
    assert created["imagePullSecrets"] == [{"name": "registry"}]
    assert created["automountServiceAccountToken"] is False
    created["secrets"] = [{"name": "other", "kind": "Secret"}]
    updated = await client.put(f"{SERVICE_ACCOUNTS}/builder", json=created)
    assert (await updated.json())["secrets"] == [{"name": "other"}]


async def test_delete_answers_the_deleted_object(client: Any) -> None:
    await client.post(SERVICE_ACCOUNTS, json=service_account())
    response = await client.delete(f"{SERVICE_ACCOUNTS}/builder")
    body = await response.json()
    assert (response.status, body["kind"], body["metadata"]["name"]) == (200, "ServiceAccount", "builder")


async def test_the_enforce_mountable_secrets_annotation_draws_a_deprecation_warning(client: Any) -> None:
    annotated = service_account(metadata={"name": "builder",
                                          "annotations": {"kubernetes.io/enforce-mountable-secrets": "true"}})
    created = await client.post(SERVICE_ACCOUNTS, json=annotated)
    assert created.headers.getall("Warning") == [DEPRECATED]
    updated = await client.put(f"{SERVICE_ACCOUNTS}/builder", json=await created.json())
    assert updated.headers.getall("Warning") == [DEPRECATED]
    plain = await client.post(SERVICE_ACCOUNTS, json=service_account("plain"))
    assert "Warning" not in plain.headers


async def test_names_are_dns_subdomains(client: Any) -> None:
    response = await client.post(SERVICE_ACCOUNTS, json=service_account("Builder"))
    assert response.status == 422
    assert (await response.json())["message"].startswith(
        'ServiceAccount "Builder" is invalid: metadata.name: Invalid value: "Builder": a lowercase RFC 1123 '
        "subdomain must consist of")


async def test_table_rows_count_secrets(client: Any) -> None:
    await client.post(SERVICE_ACCOUNTS, json=service_account(secrets=[{"name": "a"}, {"name": "b"}]))
    response = await client.get(SERVICE_ACCOUNTS, headers={"Accept": TABLE},
                                params={"fieldSelector": "metadata.name=builder"})
    table = await response.json()
    assert [column["name"] for column in table["columnDefinitions"]] == ["Name", "Secrets", "Age"]
    assert [row["cells"][:2] for row in table["rows"]] == [["builder", 2]]
