"""ConfigMaps over HTTP: CRUD, base64 binaryData, upstream's validation messages, immutability, Table rows."""

from __future__ import annotations

import io
from typing import Any

import orjson
import pytest

CONFIG_MAPS = "/api/v1/namespaces/default/configmaps"
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"
KEY_FORMAT = (
    "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or "
    "'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"
)


def config_map(name: str = "cfg", **fields: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, **fields}


async def create(client: Any, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    # a stream: aiohttp warns about large bodies sent as bytes
    response = await client.post(CONFIG_MAPS, data=io.BytesIO(orjson.dumps(body)),
                                 headers={"Content-Type": "application/json"})
    return response.status, await response.json()


def invalid(name: str, message: str, causes: list[dict[str, str]]) -> dict[str, Any]:
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": f'ConfigMap "{name}" is invalid: {message}', "reason": "Invalid",
            "details": {"name": name, "kind": "ConfigMap", "causes": causes}, "code": 422}


async def test_create_get_update_and_delete(client: Any) -> None:
    status, created = await create(client, config_map(data={"game.properties": "lives=3\n"},
                                                      binaryData={"logo.png": "iVBORw0KGgo="}))
    assert status == 201
    assert created["data"] == {"game.properties": "lives=3\n"}
    assert created["binaryData"] == {"logo.png": "iVBORw0KGgo="}
    assert created["metadata"]["namespace"] == "default" and created["metadata"]["uid"]
    fetched = await (await client.get(f"{CONFIG_MAPS}/cfg")).json()
    assert fetched == created
    fetched["data"]["ui.properties"] = "color=blue"
    updated = await client.put(f"{CONFIG_MAPS}/cfg", json=fetched)
    assert updated.status == 200
    assert (await updated.json())["data"] == {"game.properties": "lives=3\n", "ui.properties": "color=blue"}
    deleted = await client.delete(f"{CONFIG_MAPS}/cfg")
    assert deleted.status == 200
    body = await deleted.json()  # upstream answers a Status for ConfigMaps, not the object
    assert (body["kind"], body["status"], body["details"]["name"], body["details"]["kind"]) == (
        "Status", "Success", "cfg", "configmaps")
    assert (await client.get(f"{CONFIG_MAPS}/cfg")).status == 404


async def test_binary_data_is_written_back_as_canonical_base64_and_empty_maps_are_omitted(client: Any) -> None:
    status, created = await create(client, config_map(data={}, binaryData={"a": "YW\nJj", "b": "YR=="}))
    assert status == 201
    assert created["binaryData"] == {"a": "YWJj", "b": "YQ=="}
    assert "data" not in created


@pytest.mark.parametrize(("value", "message"), [
    ("YWJ", "illegal base64 data at input byte 0"),
    ("YWJj!", "illegal base64 data at input byte 4"),
    (12, "json: cannot unmarshal number into Go struct field ConfigMap.binaryData of type []uint8"),
])
async def test_binary_data_that_is_not_base64_is_a_bad_request(client: Any, value: Any, message: str) -> None:
    status, body = await create(client, config_map(binaryData={"a": value}))
    assert status == 400
    assert body["message"] == f'ConfigMap in version "v1" cannot be handled as a ConfigMap: {message}'
    assert (await client.get(f"{CONFIG_MAPS}/cfg")).status == 404


async def test_keys_must_be_config_keys_and_appear_in_one_map_only(client: Any) -> None:
    status, body = await create(client, config_map(data={"a b": "x", "ok": "y"}, binaryData={"ok": "eQ=="}))
    assert status == 422
    assert body == invalid("cfg", f'[data[a b]: Invalid value: "a b": {KEY_FORMAT}, data[ok]: Invalid value: '
                                  '"ok": duplicate of key present in binaryData]', [
        {"reason": "FieldValueInvalid", "message": f'Invalid value: "a b": {KEY_FORMAT}', "field": "data[a b]"},
        {"reason": "FieldValueInvalid", "message": 'Invalid value: "ok": duplicate of key present in binaryData',
         "field": "data[ok]"}])


async def test_names_are_dns_subdomains(client: Any) -> None:
    status, body = await create(client, config_map("Bad_Name"))
    assert status == 422
    assert body["message"].startswith('ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": '
                                      "a lowercase RFC 1123 subdomain must consist of")


async def test_more_than_one_mebibyte_of_values_is_too_long(client: Any) -> None:
    half = "x" * (512 * 1024)
    assert (await create(client, config_map("fits", data={"a": half, "b": half})))[0] == 201
    status, body = await create(client, config_map("big", data={"a": half, "b": half + "x"}))
    assert status == 422
    assert body == invalid("big", "[]: Too long: may not be more than 1048576 bytes", [
        {"reason": "FieldValueTooLong", "message": "Too long: may not be more than 1048576 bytes", "field": "[]"}])


async def test_an_immutable_config_map_keeps_its_data_but_not_its_metadata(client: Any) -> None:
    await create(client, config_map(data={"a": "1"}, immutable=True))
    stored = await (await client.get(f"{CONFIG_MAPS}/cfg")).json()
    stored["data"] = {"a": "2"}
    response = await client.put(f"{CONFIG_MAPS}/cfg", json=stored)
    assert response.status == 422
    assert await response.json() == invalid("cfg", "data: Forbidden: field is immutable when `immutable` is set", [
        {"reason": "FieldValueForbidden", "message": "Forbidden: field is immutable when `immutable` is set",
         "field": "data"}])
    unset = await client.patch(f"{CONFIG_MAPS}/cfg", json={"immutable": False},
                               headers={"Content-Type": "application/merge-patch+json"})
    assert unset.status == 422
    assert (await unset.json())["message"] == (
        'ConfigMap "cfg" is invalid: immutable: Forbidden: field is immutable when `immutable` is set')
    labelled = await client.patch(f"{CONFIG_MAPS}/cfg", json={"metadata": {"labels": {"team": "a"}}},
                                  headers={"Content-Type": "application/merge-patch+json"})
    assert labelled.status == 200
    assert (await labelled.json())["data"] == {"a": "1"}


async def test_a_mutable_config_map_may_become_immutable(client: Any) -> None:
    await create(client, config_map(data={"a": "1"}))
    response = await client.patch(f"{CONFIG_MAPS}/cfg", json={"immutable": True, "data": {"a": "2"}},
                                  headers={"Content-Type": "application/merge-patch+json"})
    assert response.status == 200
    assert (await response.json())["immutable"] is True


async def test_table_rows_count_data_and_binary_data_keys(client: Any) -> None:
    await create(client, config_map(data={"a": "1", "b": "2"}, binaryData={"c": "eQ=="}))
    response = await client.get(CONFIG_MAPS, headers={"Accept": TABLE},
                                params={"fieldSelector": "metadata.name=cfg"})
    table = await response.json()
    assert [(column["name"], column["type"]) for column in table["columnDefinitions"]] == [
        ("Name", "string"), ("Data", "string"), ("Age", "string")]
    [row] = table["rows"]
    assert row["cells"][:2] == ["cfg", 3]


async def test_field_selectors_are_only_metadata_ones(client: Any) -> None:
    response = await client.get(CONFIG_MAPS, params={"fieldSelector": "data.a=1"})
    assert response.status == 400
    assert (await response.json())["message"] == (
        '"data.a" is not a known field selector: only "metadata.name", "metadata.namespace"')
