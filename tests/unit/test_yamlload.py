"""YAML bodies read as upstream reads them (sigs.k8s.io/yaml over go-yaml v2): aliases bounded as go-yaml
bounds them (CVE-2019-11253), nesting and the expanded size bounded, values plain JSON."""

from __future__ import annotations

import tracemalloc
from typing import Any

import orjson
import pytest

from fakeapi.machinery.errors import BadRequest, RequestEntityTooLarge
from fakeapi.machinery.yamlload import load_yaml, load_yaml_all
from tests.hostile.checks import billion_laughs

LIMIT = 3 * 1024 * 1024
EXCESSIVE = "error converting YAML to JSON: yaml: document contains excessive aliasing"


def refused(text: bytes, max_bytes: int | None = LIMIT) -> str:
    with pytest.raises(BadRequest) as caught:
        load_yaml(text, max_bytes)
    return caught.value.message


def test_a_billion_laughs_is_refused_as_go_yaml_refuses_it_within_little_memory() -> None:
    bomb = billion_laughs()
    assert len(bomb) < 600
    tracemalloc.start()
    try:
        assert refused(bomb) == EXCESSIVE
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 10 * 1024 * 1024  # the expanded document would be 9**9 strings


@pytest.mark.parametrize("text", [
    b"a: &a [*a]",  # an alias inside its own anchor: infinite
    b"a: &a {b: *a}",
    b"a: &a [[[[*a]]]]",
    # merge keys that double at every level
    "\n".join(["x0: &x0 {k0: 1}"] + [f"x{i}: &x{i} {{<<: [*x{i - 1}, *x{i - 1}], k{i}: 1}}"
                                        for i in range(1, 30)]).encode(),
])
def test_self_referencing_and_merging_bombs_are_refused(text: bytes) -> None:
    assert refused(text) == EXCESSIVE


def test_documents_with_some_aliases_load_as_go_yaml_loads_them() -> None:
    # go-yaml's limit_test: 100 aliases of a list of 100 maps is fine
    text = "a: &a [{a}" + ",{a}" * 99 + "]\n" + "".join(f"b{i}: *a\n" for i in range(100))
    value = load_yaml(text.encode(), LIMIT)
    assert value["b99"] == [{"a": None}] * 100
    assert load_yaml(b"base: &base {cpu: 1}\nlimits: {<<: *base, memory: 2Gi}", LIMIT) == {
        "base": {"cpu": 1}, "limits": {"cpu": 1, "memory": "2Gi"}}


def test_the_expanded_document_is_held_to_the_size_limit() -> None:
    text = "a: &a [" + ",".join(["word"] * 1000) + "]\nb: [" + ",".join(["*a"] * 20) + "]\n"
    assert len(load_yaml(text.encode(), LIMIT)["b"]) == 20
    with pytest.raises(RequestEntityTooLarge) as caught:
        load_yaml(text.encode(), 100_000)
    assert caught.value.message == "Request entity too large: limit is 100000"


@pytest.mark.parametrize(("depth", "message"), [
    (101, "error converting YAML to JSON: yaml: exceeded max depth of 100 at [0][0][0][0][0][0][0][0][0][0] ..."),
    (5000, "exceeded maximum nesting depth"),  # libyaml's own limit, at 1000
])
def test_nesting_is_bounded(depth: int, message: str) -> None:
    assert message in refused(b"[" * depth + b"]" * depth)
    block = "".join("  " * level + "a:\n" for level in range(depth)) + "  " * depth + "b\n"
    assert "depth" in refused(block.encode())
    assert load_yaml(b"[" * 100 + b"]" * 100, LIMIT) is not None


@pytest.mark.parametrize(("text", "value"), [
    (b"a: 99999999999999999999", 1e20),  # beyond uint64: a float, as go-yaml's resolver makes it
    (b"a: 18446744073709551615", 18446744073709551615),  # uint64 stays an integer
    (b"a: -9223372036854775809", -9223372036854775809.0),
    (b"a: " + b"9" * 400, "9" * 400),  # no float either: go-yaml keeps the text
    (b"a: 2024-01-01", "2024-01-01"),  # timestamps stay the text written
    (b"a: !!binary aGVsbG8=", "hello"),
    (b"a: !!set {x, y}", {"x": None, "y": None}),
    (b"a: !!omap [{x: 1}, {y: 2}]", [{"x": 1}, {"y": 2}]),
])
def test_values_are_what_yaml_to_json_makes_of_them(text: bytes, value: Any) -> None:
    loaded = load_yaml(text, LIMIT)
    assert loaded == {"a": value} and type(loaded["a"]) is type(value)
    orjson.dumps(loaded)  # and the store can encode them


def test_map_keys_become_strings_as_yaml_to_json_writes_them() -> None:
    assert load_yaml(b"{1: a, true: b, 1.5: c, 2024-01-01: d}", LIMIT) == {
        "1": "a", "true": "b", "1.5": "c", "2024-01-01": "d"}


@pytest.mark.parametrize(("text", "message"), [
    (b"a: .inf", "json: unsupported value: +Inf"),
    (b"a: -.inf", "json: unsupported value: -Inf"),
    (b"a: .nan", "json: unsupported value: NaN"),
    (b"{~: 1}", "unsupported map key of type: %!s(<nil>)"),
    (b"{[a]: 1}", "unsupported map key of type: list"),
    (b"a: !!map [1]", "yaml: cannot decode a sequence as a map"),
])
def test_values_json_cannot_hold_are_refused(text: bytes, message: str) -> None:
    assert refused(text) == f"error converting YAML to JSON: {message}"


def test_many_documents_load_one_by_one_within_the_same_bounds() -> None:
    assert load_yaml_all(b"a: 1\n---\n---\nb: 2\n", None) == [{"a": 1}, None, {"b": 2}]
    with pytest.raises(BadRequest) as caught:
        load_yaml_all(b"a: 1\n---\n" + billion_laughs(), None)
    assert caught.value.message == EXCESSIVE
