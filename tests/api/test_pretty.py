"""Pretty-printed JSON as upstream's negotiation decides it: the `pretty` query value, a `pretty=1` media
range, or (without a `pretty` value) a User-Agent of curl, Wget or a browser; /version and / always."""

from __future__ import annotations

from typing import Any

import pytest

PODS = "/api/v1/namespaces/default/pods"
PYTHON = {"User-Agent": "Python/3.11 aiohttp"}


@pytest.mark.parametrize(
    ("query", "headers", "pretty"),
    [
        pytest.param("", PYTHON, False, id="a-client"),
        pytest.param("?pretty=true", PYTHON, True, id="pretty-true"),
        pytest.param("?pretty=1", PYTHON, True, id="pretty-1"),
        pytest.param("?pretty=T", PYTHON, True, id="pretty-T"),
        pytest.param("", {"User-Agent": "curl/8.5.0"}, True, id="curl"),
        pytest.param("", {"User-Agent": "Wget/1.21"}, True, id="wget"),
        pytest.param("", {"User-Agent": "Mozilla/5.0 (X11; Linux x86_64)"}, True, id="browser"),
        pytest.param("?pretty=false", {"User-Agent": "curl/8.5.0"}, False, id="curl-pretty-false"),
        pytest.param("?pretty=yes", {"User-Agent": "curl/8.5.0"}, False, id="unparsable-means-false"),
        pytest.param("?pretty=", {"User-Agent": "curl/8.5.0"}, True, id="empty-falls-back-to-the-agent"),
        pytest.param("", {**PYTHON, "Accept": "application/json;pretty=1"}, True, id="media-range"),
    ],
)
async def test_the_list_is_indented_when_asked(
    client: Any, make_pod: Any, query: str, headers: dict[str, str], pretty: bool
) -> None:
    assert (await client.post(PODS, json=make_pod("web"))).status == 201
    response = await client.get(PODS + query, headers=headers)
    text = await response.text()
    assert response.status == 200
    assert text.startswith('{\n  "kind": "PodList",\n  "apiVersion": "v1",\n  "metadata": {\n') is pretty
    assert text.startswith('{"kind":"PodList","apiVersion":"v1","metadata":{') is not pretty


async def test_errors_objects_and_tables_are_indented_too(client: Any, make_pod: Any) -> None:
    missing = await client.get(PODS + "/nope?pretty=true")
    assert missing.status == 404
    assert await missing.text() == (
        '{\n  "kind": "Status",\n  "apiVersion": "v1",\n  "metadata": {},\n  "status": "Failure",\n'
        '  "message": "pods \\"nope\\" not found",\n  "reason": "NotFound",\n'
        '  "details": {\n    "name": "nope",\n    "kind": "pods"\n  },\n  "code": 404\n}'
    )
    created = await client.post(PODS + "?pretty=1", json=make_pod("web"))
    assert created.status == 201
    assert '\n  "kind": "Pod",\n' in await created.text()
    table = await client.get(PODS + "?pretty=true", headers={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"})
    assert (await table.text()).startswith('{\n  "kind": "Table",\n')


async def test_watch_streams_and_yaml_are_never_indented(client: Any, make_pod: Any) -> None:
    assert (await client.post(PODS, json=make_pod("web"))).status == 201
    async with client.get(PODS + "?watch=true&pretty=true&timeoutSeconds=1") as response:
        line = await response.content.readline()
    assert line.startswith(b'{"type":"ADDED","object":{"') and b'"kind":"Pod"' in line
    yaml_discovery = await client.get("/api/v1?pretty=true", headers={"Accept": "application/yaml"})
    assert (await yaml_discovery.text()).startswith("kind: APIResourceList\n")


async def test_version_is_always_indented(client: Any) -> None:
    response = await client.get("/version", headers=PYTHON)
    assert response.headers["Content-Type"] == "application/json"
    assert (await response.text()).startswith('{\n  "major": "1",\n  "minor": "32",\n')
