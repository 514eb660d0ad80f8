"""The JSONPath subset of printer columns, scale paths and selectable fields."""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.machinery.jsonpath import JsonPath, JsonPathError

POD: dict[str, Any] = {
    "metadata": {"name": "web", "labels": {"app.kubernetes.io/name": "web", "tier": "front"}},
    "spec": {"replicas": 3, "containers": [{"name": "app", "image": "nginx"}, {"name": "log", "image": "busybox"}]},
    "status": {"conditions": [{"type": "Ready", "status": "True"}, {"type": "Synced", "status": "False"}],
               "ready": False},
}


@pytest.mark.parametrize(("path", "found"), [
    (".spec.replicas", [3]),
    ("{.spec.replicas}", [3]),
    (".", [POD]),
    (".metadata.labels['app.kubernetes.io/name']", ["web"]),
    (".metadata.labels[\"tier\"]", ["front"]),
    (".spec.containers[0].image", ["nginx"]),
    (".spec.containers[-1].name", ["log"]),
    (".spec.containers[*].name", ["app", "log"]),
    (".spec.containers.*.name", ["app", "log"]),
    (".metadata.labels[*]", ["web", "front"]),
    (".status.conditions[?(@.type=='Ready')].status", ["True"]),
    (".status.conditions[?(@.type != \"Ready\")].type", ["Synced"]),
    (".status.ready", [False]),
    (".status.missing", []),
    (".spec.containers[5].name", []),
    (".spec.replicas.deeper", []),
])
def test_a_path_finds_every_value_it_reaches(path: str, found: list[Any]) -> None:
    assert JsonPath(path).values(POD) == found


def test_first_is_none_when_nothing_is_found() -> None:
    assert JsonPath(".status.phase").first(POD) is None
    assert JsonPath(".metadata.name").first(POD) == "web"


@pytest.mark.parametrize("path", [".spec.", ".spec[", ".spec[?(@.x ~ 1)]", "spec", ".spec..x"])
def test_a_malformed_path_is_refused_with_its_text(path: str) -> None:
    with pytest.raises(JsonPathError, match="invalid JSONPath"):
        JsonPath(path)
