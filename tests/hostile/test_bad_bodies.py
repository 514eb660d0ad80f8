"""Request bodies that once crashed the server or grew without bound: each gets upstream's code and a
Status now, and leaves the store as it was."""

from __future__ import annotations

import gzip
import json
from typing import Any

import aiohttp
import orjson
import pytest

from fakeapi.testing import FakeAPIServer
from tests.hostile.checks import PODS, YAML, billion_laughs, status_of, store_unchanged

POD_YAML = "apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}}}\nspec:\n  containers: [{{name: a, image: nginx}}]\n"


def nested(depth: int) -> Any:
    value: Any = {}
    for _ in range(depth):
        value = {"a": value}
    return value


async def refused(http: aiohttp.ClientSession, server: FakeAPIServer, body: bytes, headers: dict[str, str],
                  path: str = PODS, method: str = "POST") -> tuple[int, str, str]:
    with store_unchanged(server):
        async with http.request(method, path, data=body, headers=headers) as response:
            answer = await response.json()
    return (*status_of(answer), answer["message"])


async def test_a_yaml_alias_bomb_is_refused_as_upstream_refuses_it(http: aiohttp.ClientSession,
                                                                   async_fakeapi: FakeAPIServer) -> None:
    code, reason, message = await refused(http, async_fakeapi, billion_laughs(), YAML)
    assert (code, reason, message) == (
        400, "BadRequest", "error converting YAML to JSON: yaml: document contains excessive aliasing")


async def test_yaml_aliases_expanding_beyond_the_body_limit_are_too_large(http: aiohttp.ClientSession,
                                                                          async_fakeapi: FakeAPIServer) -> None:
    words = ",".join(["lorem ipsum dolor sit amet"] * 4000)
    body = POD_YAML.format(name="big") + f"  args: &a [{words}]\n" + "x: [" + ",".join(["*a"] * 40) + "]\n"
    assert len(body) < 200_000
    code, reason, message = await refused(http, async_fakeapi, body.encode(), YAML)
    assert (code, reason, message) == (413, "RequestEntityTooLarge", "Request entity too large: limit is 3145728")


@pytest.mark.parametrize("body", [
    b"[" * 5000 + b"]" * 5000,
    b"- " * 5000 + b"a",  # block sequences
])
async def test_yaml_nested_thousands_deep_is_a_bad_request(http: aiohttp.ClientSession, async_fakeapi: FakeAPIServer,
                                                           body: bytes) -> None:
    code, reason, message = await refused(http, async_fakeapi, body, YAML)
    assert (code, reason) == (400, "BadRequest")
    assert message.startswith("error converting YAML to JSON: ") and "depth" in message


@pytest.mark.parametrize(("part", "where"), [
    ({"spec": {"containers": [{"name": "a", "image": "i"}], "volumes": [{"name": "v", "flexVolume": nested(250)}]}},
     "spec.volumes[0].flexVolume.a.a.a.a.a.a ..."),
    ({"metadata": {"name": "p", "managedFields": [{"manager": "m", "fieldsV1": nested(250)}]}},
     "metadata.managedFields[0].fieldsV1.a.a.a.a.a.a ..."),
])
async def test_free_form_json_nested_too_deep_is_refused_naming_the_field(
        http: aiohttp.ClientSession, async_fakeapi: FakeAPIServer, make_pod: Any, part: Any, where: str) -> None:
    body = json.dumps({**make_pod("deep"), **part}).encode()  # (orjson stops at 255 levels)
    code, reason, message = await refused(http, async_fakeapi, body, {"Content-Type": "application/json"})
    assert (code, reason, message) == (
        400, "BadRequest", f"couldn't get version/kind; json parse error: exceeded max depth of 100 at {where}")


async def test_yaml_integers_beyond_64_bits_are_floats_as_upstream_decodes_them(
        http: aiohttp.ClientSession, async_fakeapi: FakeAPIServer) -> None:
    typed = POD_YAML.format(name="typed") + "  priority: 99999999999999999999\n"
    code, reason, message = await refused(http, async_fakeapi, typed.encode(), YAML)
    assert (code, reason) == (400, "BadRequest")
    assert message.startswith('Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal number ')
    assert message.endswith(" into Go struct field PodSpec.spec.priority of type int32")
    free_form = POD_YAML.format(name="free") + "  volumes: [{name: v, flexVolume: {driver: d, n: 1" + "0" * 20 + "}}]\n"
    async with http.post(PODS, data=free_form, headers=YAML) as response:
        assert response.status == 201  # a float64 where no type is given (here: a 500 once)


async def test_yaml_values_json_has_no_type_for_are_converted_or_refused(
        http: aiohttp.ClientSession, async_fakeapi: FakeAPIServer) -> None:
    body = POD_YAML.format(name="dated").replace("{name: dated}", "{name: dated, annotations: {day: 2024-01-01}}")
    async with http.post(PODS, data=body, headers=YAML) as response:
        assert response.status == 201
        assert (await response.json())["metadata"]["annotations"] == {"day": "2024-01-01"}
    numbered = POD_YAML.format(name="numbered").replace("{name: numbered}", "{name: numbered, labels: {1: a}}")
    async with http.post(PODS, data=numbered, headers=YAML) as response:
        assert (response.status, (await response.json())["metadata"]["labels"]) == (201, {"1": "a"})
    flagged = POD_YAML.format(name="flagged").replace("{name: flagged}", "{name: flagged, annotations: !!set {a}}")
    async with http.post(PODS, data=flagged, headers=YAML) as response:  # a set is a map of nulls
        assert (response.status, (await response.json())["metadata"]["annotations"]) == (201, {"a": ""})
    infinite = (POD_YAML.format(name="x") + "  n: .inf\n").encode()
    code, reason, message = await refused(http, async_fakeapi, infinite, YAML)
    assert (code, reason) == (400, "BadRequest")
    assert message == "error converting YAML to JSON: json: unsupported value: +Inf"


async def test_apply_patches_and_seeds_are_held_to_the_same_yaml_bounds(
        http: aiohttp.ClientSession, async_fakeapi: FakeAPIServer, make_pod: Any) -> None:
    async_fakeapi.seed(make_pod("web"))
    apply = {"Content-Type": "application/apply-patch+yaml"}
    code, reason, message = await refused(http, async_fakeapi, billion_laughs().replace(b"bomb", b"web"), apply,
                                          path=PODS + "/web?fieldManager=me", method="PATCH")
    assert (code, reason, message) == (
        400, "BadRequest", "error converting YAML to JSON: yaml: document contains excessive aliasing")
    code, reason, message = await refused(http, async_fakeapi, billion_laughs(), YAML, path="/fakeapi/v1/seed")
    assert (code, reason, message) == (
        400, "BadRequest", "error converting YAML to JSON: yaml: document contains excessive aliasing")


async def test_content_encoding_is_ignored_as_upstream_ignores_it(
        http: aiohttp.ClientSession, async_fakeapi: FakeAPIServer, make_pod: Any) -> None:
    plain = orjson.dumps(make_pod("plain"))
    for encoding in ("gzip", "br", "zstd", "x-unknown"):
        headers = {"Content-Type": "application/json", "Content-Encoding": encoding}
        async with http.post(PODS + "?dryRun=All", data=plain, headers=headers) as response:
            assert response.status == 201, encoding  # the bytes as sent: plain JSON
    headers = {"Content-Type": "application/json", "Content-Encoding": "gzip"}
    code, reason, message = await refused(http, async_fakeapi, gzip.compress(plain), headers)
    assert (code, reason) == (400, "BadRequest")
    assert message.startswith("couldn't get version/kind; json parse error: ")
