"""The Go facts of the vendored definitions (`x-go`, made by scripts/vendor_definitions.py from upstream's
Go types) agree with a table transcribed by hand from the same sources.

tests/data/gofields.json is transcribed from upstream's v1.32 types: k8s.io/api v0.32
(core/v1, coordination/v1, authorization/v1, authentication/v1, scheduling/v1 and policy/v1
types.go) and k8s.io/apimachinery v0.32 (pkg/apis/meta/v1/types.go), with the marshalling of Time, MicroTime,
Quantity, IntOrString and FieldsV1. It maps each struct's OpenAPI definition name to its json fields:
`omitempty` (the tag), `type` (pointer, struct, slice, map or scalar) and, for a field Go writes even
when unset, `zero_json` (the bytes it writes). `observedGeneration` of PodStatus and PodCondition is
marked `not_in_v1_32` (added in v1.33, with the tag of kubernetes/api 3fed8b5a); fakeapi serves it
(see the script's BACKPORTS). A fact the script reads wrong fails here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fakeapi.machinery.schema.definitions import KUBERNETES_1_32

GO_FIELDS: dict[str, dict[str, Any]] = json.loads((Path(__file__).parent.parent / "data" / "gofields.json")
                                                  .read_text())


@pytest.mark.parametrize("name", sorted(GO_FIELDS))
def test_each_field_has_the_go_tag_type_and_zero_value(name: str) -> None:
    schema = KUBERNETES_1_32.schema(name)
    wrong: list[str] = []
    for key, upstream in GO_FIELDS[name].items():
        prop = schema.properties.get(key)
        if prop is None or prop.go is None:
            wrong.append(f"{key}: not in the definitions, or without Go facts")
            continue
        go = prop.go
        if go.omitempty != upstream["omitempty"]:
            wrong.append(f"{key}: omitempty is {upstream['omitempty']} upstream")
        if go.shape != upstream["type"]:
            wrong.append(f"{key}: a {upstream['type']} upstream ({upstream['go']}), not a {go.shape}")
        elif go.always_written != (upstream["zero"] == "written"):
            wrong.append(f"{key}: upstream writes its zero value: {upstream['zero']}")
        elif go.always_written and prop.zero_json() != json.loads(upstream["zero_json"]):
            wrong.append(f"{key}: zero value {prop.zero_json()!r}, upstream {upstream['zero_json']}")
    assert wrong == []


@pytest.mark.parametrize("name", sorted(GO_FIELDS))
def test_every_property_of_a_go_struct_has_its_facts(name: str) -> None:
    schema = KUBERNETES_1_32.schema(name)
    assert [key for key, prop in schema.properties.items() if prop.go is None] == []
