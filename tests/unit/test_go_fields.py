"""Every schema field states upstream's Go struct field, checked against a table of the Go sources.

tests/data/gofields.json is transcribed from upstream's v1.32 types: k8s.io/api v0.32
(core/v1, coordination/v1, authorization/v1, authentication/v1, scheduling/v1 and policy/v1
types.go) and k8s.io/apimachinery v0.32 (pkg/apis/meta/v1/types.go), with the marshalling of Time, MicroTime,
Quantity, IntOrString and FieldsV1. It maps each struct's OpenAPI definition name to its json fields:
`omitempty` (the tag), `type` (pointer, struct, slice, map or scalar) and, for a field Go writes even
when unset, `zero_json` (the bytes it writes). `observedGeneration` of PodStatus and PodCondition,
which the schemas already declare, is marked `not_in_v1_32` (added in v1.33, with the tag of
kubernetes/api 3fed8b5a). A schema that drifts from the table fails here.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
from pathlib import Path
from typing import Any

import pytest

import fakeapi.kinds
import fakeapi.machinery.schemas
from fakeapi.machinery.schemas.base import K8sSchema
from fakeapi.machinery.schemas.gofields import go_field, zero_json

GO_FIELDS: dict[str, dict[str, Any]] = json.loads((Path(__file__).parent.parent / "data" / "gofields.json")
                                                  .read_text())


def schema_classes() -> dict[str, type[K8sSchema]]:
    """Every schema of every kind and of meta/v1, by the definition name it stands for."""
    for package in (fakeapi.kinds, fakeapi.machinery.schemas):
        for module in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            importlib.import_module(module.name)
    found: dict[str, type[K8sSchema]] = {}
    pending = list(K8sSchema.__subclasses__())
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        if cls.openapi_name:
            found[cls.openapi_name] = cls
    return found


SCHEMAS = schema_classes()


def test_every_schema_is_in_the_table() -> None:
    assert sorted(name for name in SCHEMAS if name not in GO_FIELDS) == []


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_each_field_has_the_go_tag_type_and_zero_value(name: str) -> None:
    go_struct = GO_FIELDS[name]
    wrong: list[str] = []
    for attribute, declared in SCHEMAS[name]._declared_fields.items():
        key = declared.data_key or attribute
        upstream = go_struct.get(key)
        if upstream is None:
            wrong.append(f"{key}: not a field of the Go struct")
            continue
        mine = go_field(declared)
        if mine.omitempty != upstream["omitempty"]:
            wrong.append(f"{key}: omitempty is {upstream['omitempty']} upstream")
        if mine.shape != upstream["type"]:
            wrong.append(f"{key}: a {upstream['type']} upstream ({upstream['go']}), not a {mine.shape}")
        elif mine.always_written != (upstream["zero"] == "written"):
            wrong.append(f"{key}: upstream writes its zero value: {upstream['zero']}")
        elif mine.always_written and zero_json(declared) != json.loads(upstream["zero_json"]):
            wrong.append(f"{key}: zero value {zero_json(declared)!r}, upstream {upstream['zero_json']}")
    assert wrong == []


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_each_go_field_is_declared(name: str) -> None:
    declared = {field.data_key or attribute for attribute, field in SCHEMAS[name]._declared_fields.items()}
    assert [key for key in GO_FIELDS[name] if key not in declared] == []
