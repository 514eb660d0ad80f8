"""A body that repeats a field: upstream's strict decoder reports it (a 400 with Strict, a Warning with Warn)."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest

from fakeapi.http.bodies import OFF_LOOP_BYTES, parse_yaml

PODS = "/api/v1/namespaces/default/pods"
JSON = {"Content-Type": "application/json"}
YAML = {"Content-Type": "application/yaml"}
CONTAINERS = '"containers":[{"name":"web","image":"nginx"}]'
DUPLICATE_NAME = ('{"apiVersion":"v1","kind":"Pod","metadata":{"name":"first","name":"web"},'
                  '"spec":{' + CONTAINERS + "}}")


def bad_request(message: str) -> dict[str, Any]:
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": 'Pod in version "v1" cannot be handled as a Pod: strict decoding error: ' + message,
            "reason": "BadRequest", "code": 400}


async def test_strict_create_with_a_duplicate_field_is_400_and_stores_nothing(client: Any) -> None:
    response = await client.post(PODS, data=DUPLICATE_NAME, headers=JSON, params={"fieldValidation": "Strict"})
    assert response.status == 400
    assert await response.json() == bad_request('duplicate field "metadata.name"')
    assert (await client.get(PODS + "/web")).status == 404
    assert (await client.get(PODS + "/first")).status == 404


async def test_duplicate_and_unknown_fields_are_reported_in_document_order(client: Any) -> None:
    body = ('{"apiVersion":"v1","kind":"Pod","spec":{"bogus":1,' + CONTAINERS + ',"bogus":2},'
            '"metadata":{"name":"web","labels":{"a":"1","a":"2"},"name":"web"}}')
    response = await client.post(PODS, data=body, headers=JSON, params={"fieldValidation": "Strict"})
    assert await response.json() == bad_request(
        'unknown field "spec.bogus", duplicate field "metadata.labels.a", duplicate field "metadata.name"')


async def test_warn_creates_with_the_last_value_and_a_warning(client: Any) -> None:
    response = await client.post(PODS, data=DUPLICATE_NAME, headers=JSON, params={"fieldValidation": "Warn"})
    assert response.status == 201
    assert response.headers.getall("Warning") == ['299 - "duplicate field \\"metadata.name\\""']
    assert (await response.json())["metadata"]["name"] == "web"


async def test_without_field_validation_a_body_is_not_checked_for_duplicates(client: Any) -> None:
    response = await client.post(PODS, data=DUPLICATE_NAME, headers=JSON)
    assert response.status == 201
    assert "Warning" not in response.headers


async def test_ignore_says_nothing_about_duplicates(client: Any) -> None:
    response = await client.post(PODS, data=DUPLICATE_NAME, headers=JSON, params={"fieldValidation": "Ignore"})
    assert response.status == 201
    assert "Warning" not in response.headers


async def test_strict_update_with_a_duplicate_field_is_400_and_changes_nothing(client: Any) -> None:
    created = await (await client.post(PODS, data=DUPLICATE_NAME, headers=JSON,
                                       params={"fieldValidation": "Ignore"})).json()
    rv = created["metadata"]["resourceVersion"]
    created["metadata"]["labels"] = {"app": "b"}
    body = json.dumps(created).replace('"labels": {"app": "b"}', '"labels": {"app": "a", "app": "b"}')
    response = await client.put(PODS + "/web", data=body, headers=JSON, params={"fieldValidation": "Strict"})
    assert response.status == 400
    assert await response.json() == bad_request('duplicate field "metadata.labels.app"')
    stored = await (await client.get(PODS + "/web")).json()
    assert stored["metadata"]["resourceVersion"] == rv and "labels" not in stored["metadata"]
    warned = await client.put(PODS + "/web", data=body, headers=JSON, params={"fieldValidation": "Warn"})
    assert warned.status == 200
    assert warned.headers.getall("Warning") == ['299 - "duplicate field \\"metadata.labels.app\\""']
    assert (await warned.json())["metadata"]["labels"] == {"app": "b"}


YAML_BODY = """apiVersion: v1
kind: Pod
metadata:
  name: first
  name: web
spec:
  containers:
  - name: web
    image: nginx
    bogus: 1
"""


async def test_yaml_duplicates_are_go_yaml_errors_before_unknown_fields(client: Any) -> None:
    response = await client.post(PODS, data=YAML_BODY, headers=YAML, params={"fieldValidation": "Strict"})
    assert response.status == 400
    assert await response.json() == bad_request(
        'yaml: unmarshal errors:\n  line 5: key "name" already set in map, unknown field "spec.containers[0].bogus"')
    warned = await client.post(PODS, data=YAML_BODY, headers=YAML, params={"fieldValidation": "Warn"})
    assert warned.status == 201
    assert warned.headers.getall("Warning") == [
        '299 - "yaml: unmarshal errors:   line 5: key \\"name\\" already set in map"',
        '299 - "unknown field \\"spec.containers[0].bogus\\""',
    ]


@pytest.mark.filterwarnings("ignore:Sending a large body directly:ResourceWarning")  # (aiohttp's client)
async def test_a_large_yaml_body_is_parsed_off_the_loop_with_the_same_answers(client: Any) -> None:
    """Over 64 KiB a YAML body is parsed in a worker thread (with libyaml): the loop answers other requests
    meanwhile, and the answers are those of a small body."""
    data = "".join(f"  key{index}: value-{index}-{'x' * 40}\n" for index in range(12_000))  # ~750 KiB
    body = f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\n  name: again\ndata:\n{data}"
    configmaps = "/api/v1/namespaces/default/configmaps"
    refused = await client.post(configmaps, data=body, headers=YAML, params={"fieldValidation": "Strict"})
    assert (await refused.json())["message"] == ('ConfigMap in version "v1" cannot be handled as a ConfigMap: '
                                                 'strict decoding error: yaml: unmarshal errors:\n  line 5: key '
                                                 '"name" already set in map')
    created = await client.post(configmaps, data=body.replace("  name: big\n", ""), headers=YAML,
                                params={"fieldValidation": "Strict"})
    assert created.status == 201
    assert len((await created.json())["data"]) == 12_000


async def test_parse_yaml_runs_a_large_body_in_a_worker_thread() -> None:
    seen: list[str] = []

    def parse(raw: bytes) -> int:
        seen.append(threading.current_thread().name)
        return len(raw)

    assert await parse_yaml(b"x" * 1000, parse) == 1000
    assert await parse_yaml(b"x" * (OFF_LOOP_BYTES + 1), parse) == OFF_LOOP_BYTES + 1
    assert seen[0] == threading.current_thread().name and seen[1] != seen[0]
