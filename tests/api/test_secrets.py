"""Secrets over HTTP: base64 data, stringData merged on write, type defaulting and immutability, the checks
of each well-known type, the `type` field selector and Table rows."""

from __future__ import annotations

import base64
import io
from typing import Any

import orjson
import pytest

SECRETS = "/api/v1/namespaces/default/secrets"
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"
MERGE = {"Content-Type": "application/merge-patch+json"}


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def secret(name: str = "s", **fields: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name}, **fields}


async def create(client: Any, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    response = await client.post(SECRETS, data=io.BytesIO(orjson.dumps(body)),
                                 headers={"Content-Type": "application/json"})
    return response.status, await response.json()


async def test_string_data_is_merged_into_data_and_never_stored(client: Any) -> None:
    status, created = await create(client, secret(data={"user": b64("admin"), "password": b64("old")},
                                                  stringData={"password": "s3cr3t", "token": ""}))
    assert status == 201
    assert created["data"] == {"user": b64("admin"), "password": b64("s3cr3t"), "token": ""}
    assert "stringData" not in created
    assert created["type"] == "Opaque"
    assert await (await client.get(f"{SECRETS}/s")).json() == created


async def test_string_data_merges_on_update_and_patch(client: Any) -> None:
    _status, created = await create(client, secret(data={"a": b64("1")}))
    created["stringData"] = {"b": "2"}
    updated = await (await client.put(f"{SECRETS}/s", json=created)).json()
    assert updated["data"] == {"a": b64("1"), "b": b64("2")} and "stringData" not in updated
    patched = await client.patch(f"{SECRETS}/s", json={"stringData": {"a": "one"}}, headers=MERGE)
    assert (await patched.json())["data"] == {"a": b64("one"), "b": b64("2")}


async def test_delete_answers_a_status(client: Any) -> None:
    await create(client, secret())
    response = await client.delete(f"{SECRETS}/s")
    body = await response.json()
    assert (response.status, body["kind"], body["details"]["kind"]) == (200, "Status", "secrets")


async def test_data_that_is_not_base64_is_a_bad_request(client: Any) -> None:
    status, body = await create(client, secret(data={"a": "c2VjcmV0!"}))
    assert status == 400
    assert body["message"] == (
        'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 8')


async def test_the_type_cannot_change_and_an_update_without_it_means_opaque(client: Any) -> None:
    _status, created = await create(client, secret(type="example.com/token", data={"t": b64("x")}))
    created["type"] = "example.com/other"
    changed = await client.put(f"{SECRETS}/s", json=created)
    assert changed.status == 422
    assert (await changed.json())["message"] == (
        'Secret "s" is invalid: type: Invalid value: "example.com/other": field is immutable')
    del created["type"]  # defaulted to Opaque as it is decoded, as upstream does
    omitted = await client.put(f"{SECRETS}/s", json=created)
    assert (await omitted.json())["message"] == (
        'Secret "s" is invalid: type: Invalid value: "Opaque": field is immutable')


async def test_an_immutable_secret_keeps_its_data(client: Any) -> None:
    await create(client, secret(data={"a": b64("1")}, immutable=True))
    response = await client.patch(f"{SECRETS}/s", json={"stringData": {"a": "2"}}, headers=MERGE)
    assert response.status == 422
    assert await response.json() == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": 'Secret "s" is invalid: data: Forbidden: field is immutable when `immutable` is set',
        "reason": "Invalid",
        "details": {"name": "s", "kind": "Secret", "causes": [
            {"reason": "FieldValueForbidden", "message": "Forbidden: field is immutable when `immutable` is set",
             "field": "data"}]},
        "code": 422}
    relabelled = await client.patch(f"{SECRETS}/s", json={"metadata": {"labels": {"a": "b"}}}, headers=MERGE)
    assert relabelled.status == 200


@pytest.mark.parametrize(("fields", "message"), [
    ({"type": "kubernetes.io/service-account-token"},
     "metadata.annotations[kubernetes.io/service-account.name]: Required value"),
    ({"type": "kubernetes.io/dockerconfigjson", "data": {"config.json": b64("{}")}},
     "data[.dockerconfigjson]: Required value"),
    ({"type": "kubernetes.io/dockerconfigjson", "stringData": {".dockerconfigjson": "{auths: {}}"}},
     'data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": invalid character \'a\' looking for '
     "beginning of object key string"),
    ({"type": "kubernetes.io/dockerconfigjson", "stringData": {".dockerconfigjson": '["auths"]'}},
     'data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": json: cannot unmarshal array into Go '
     "value of type map[string]interface {}"),
    ({"type": "kubernetes.io/dockercfg", "stringData": {".dockercfg": '{"registry": '}},
     'data[.dockercfg]: Invalid value: "<secret contents redacted>": unexpected end of JSON input'),
    ({"type": "kubernetes.io/basic-auth"},
     "[data[username]: Required value, data[password]: Required value]"),
    ({"type": "kubernetes.io/ssh-auth", "stringData": {"ssh-privatekey": ""}},
     "data[ssh-privatekey]: Required value"),
    ({"type": "kubernetes.io/tls", "stringData": {"tls.key": "k"}}, "data[tls.crt]: Required value"),
    ({"data": {"bad key": ""}},
     "data[bad key]: Invalid value: \"bad key\": a valid config key must consist of alphanumeric characters, "
     "'-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is "
     "'[-._a-zA-Z0-9]+')"),
])
async def test_each_type_requires_its_keys(client: Any, fields: dict[str, Any], message: str) -> None:
    status, body = await create(client, secret(**fields))
    assert status == 422
    assert body["message"] == f'Secret "s" is invalid: {message}'
    assert (await client.get(f"{SECRETS}/s")).status == 404


@pytest.mark.parametrize("fields", [
    {"type": "kubernetes.io/service-account-token",
     "metadata": {"name": "s", "annotations": {"kubernetes.io/service-account.name": "default"}}},
    {"type": "kubernetes.io/dockerconfigjson", "stringData": {".dockerconfigjson": '{"auths": {}}'}},
    {"type": "kubernetes.io/basic-auth", "stringData": {"password": ""}},
    {"type": "kubernetes.io/ssh-auth", "stringData": {"ssh-privatekey": "key"}},
])
async def test_secrets_with_what_their_type_requires_are_created(client: Any, fields: dict[str, Any]) -> None:
    assert (await create(client, secret(**fields)))[0] == 201


async def test_more_than_one_mebibyte_of_data_is_too_long(client: Any) -> None:
    status, body = await create(client, secret(stringData={"a": "x" * (1024 * 1024 + 1)}))
    assert status == 422
    assert body["message"] == 'Secret "s" is invalid: data: Too long: may not be more than 1048576 bytes'


async def test_a_tls_secret_whose_inputs_hold_no_pem_is_created_with_a_warning(client: Any) -> None:
    response = await client.post(SECRETS, json=secret(type="kubernetes.io/tls",
                                                      stringData={"tls.crt": "not pem", "tls.key": "nor this"}))
    assert response.status == 201
    assert response.headers.getall("Warning") == [
        '299 - "tls: failed to find any PEM data in certificate input"']
    switched = await client.post(SECRETS, json=secret("switched", type="kubernetes.io/tls", stringData={
        "tls.crt": "-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----\n", "tls.key": ""}))
    assert switched.headers.getall("Warning") == [
        '299 - "tls: failed to find certificate PEM data in certificate input, but did find a private key; PEM '
        'inputs may have been switched"']


async def test_the_type_field_selector_and_table_rows(client: Any) -> None:
    await create(client, secret("plain", data={"a": b64("1"), "b": b64("2")}))
    await create(client, secret("auth", type="kubernetes.io/basic-auth", stringData={"username": "u"}))
    listed = await (await client.get(SECRETS, params={"fieldSelector": "type=kubernetes.io/basic-auth"})).json()
    assert [item["metadata"]["name"] for item in listed["items"]] == ["auth"]
    response = await client.get(SECRETS, headers={"Accept": TABLE}, params={"fieldSelector": "type!=x"})
    table = await response.json()
    assert [column["name"] for column in table["columnDefinitions"]] == ["Name", "Type", "Data", "Age"]
    assert [row["cells"][:3] for row in table["rows"]] == [["auth", "kubernetes.io/basic-auth", 1],
                                                           ["plain", "Opaque", 2]]
    unsupported = await client.get(SECRETS, params={"fieldSelector": "data.a=1"})
    assert unsupported.status == 400
    assert (await unsupported.json())["message"] == "field label not supported: data.a"
