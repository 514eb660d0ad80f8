"""Custom resource schemas as apiextensions-apiserver applies them: kube-openapi's validation messages,
pruning, defaulting and list types, as tables of schemas and bodies."""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.machinery.jsonschema.defaulting import apply_defaults, prune_nulls
from fakeapi.machinery.jsonschema.listtypes import validate_list_types
from fakeapi.machinery.jsonschema.pruning import prune
from fakeapi.machinery.jsonschema.schema import compile_schema
from fakeapi.machinery.jsonschema.validation import validate


def spec_schema(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"spec": {"type": "object", "properties": properties}}}


@pytest.mark.parametrize(("field", "value", "message"), [
    ({"type": "integer"}, "x", 'spec.f: Invalid value: "string": spec.f in body must be of type integer: "string"'),
    ({"type": "integer"}, 1.5, 'spec.f: Invalid value: "number": spec.f in body must be of type integer: "number"'),
    ({"type": "integer"}, 2.0, None),
    ({"type": "number"}, 2, None),
    ({"type": "string"}, None, 'spec.f: Invalid value: "null": spec.f in body must be of type string: "null"'),
    ({"type": "string", "nullable": True}, None, None),
    ({"type": "boolean"}, "true",
     'spec.f: Invalid value: "string": spec.f in body must be of type boolean: "string"'),
    ({"x-kubernetes-int-or-string": True}, [1],
     'spec.f: Invalid value: "array": spec.f in body must be of type integer,string: "array"'),
    ({"type": "string", "enum": ["a", "b"]}, "c", 'spec.f: Unsupported value: "c": supported values: "a", "b"'),
    ({"type": "integer", "enum": [1, 2]}, 3, 'spec.f: Unsupported value: 3: supported values: "1", "2"'),
    ({"type": "string", "pattern": "^[a-z]+$"}, "A1",
     "spec.f: Invalid value: \"A1\": spec.f in body should match '^[a-z]+$'"),
    ({"type": "string", "maxLength": 2}, "abc", "spec.f: Too long: may not be more than 2 bytes"),
    ({"type": "string", "minLength": 2}, "a",
     'spec.f: Invalid value: "a": spec.f in body should be at least 2 chars long'),
    ({"type": "integer", "maximum": 5}, 6,
     "spec.f: Invalid value: 6: spec.f in body should be less than or equal to 5"),
    ({"type": "integer", "maximum": 5, "exclusiveMaximum": True}, 5,
     "spec.f: Invalid value: 5: spec.f in body should be less than 5"),
    ({"type": "number", "minimum": 0.5}, 0.25,
     "spec.f: Invalid value: 0.25: spec.f in body should be greater than or equal to 0.5"),
    ({"type": "integer", "minimum": 1000000}, 1,
     "spec.f: Invalid value: 1: spec.f in body should be greater than or equal to 1000000"),
    ({"type": "number", "minimum": 1000000}, 1.5,
     "spec.f: Invalid value: 1.5: spec.f in body should be greater than or equal to 1e+06"),
    ({"type": "integer", "multipleOf": 5}, 7, "spec.f: Invalid value: 7: spec.f in body should be a multiple of 5"),
    ({"type": "array", "maxItems": 1, "items": {"type": "string"}}, ["a", "b"],
     "spec.f: Too many: 2: must have at most 1 items"),
    ({"type": "array", "minItems": 2, "items": {"type": "string"}}, ["a"],
     "spec.f: Invalid value: 1: spec.f in body should have at least 2 items"),
    ({"type": "array", "items": {"type": "integer"}}, [1, "x"],
     'spec.f[1]: Invalid value: "string": spec.f[1] in body must be of type integer: "string"'),
    ({"type": "object", "maxProperties": 1, "additionalProperties": {"type": "string"}}, {"a": "1", "b": "2"},
     "spec.f: Too many: 2: must have at most 1 items"),
    ({"type": "object", "additionalProperties": {"type": "integer"}}, {"a": "1"},
     'spec.f.a: Invalid value: "string": spec.f.a in body must be of type integer: "string"'),
    ({"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}, {},
     "spec.f.name: Required value"),
    ({"type": "string", "format": "date-time"}, "yesterday",
     'spec.f: Invalid value: "yesterday": spec.f in body must be of type date-time: "yesterday"'),
    ({"type": "string", "format": "uuid"}, "0b2bc5cc-7c8d-4f5a-9e1f-5c9b8a7d6e5f", None),
    ({"type": "string", "format": "ipv4"}, "300.1.1.1",
     'spec.f: Invalid value: "300.1.1.1": spec.f in body must be of type ipv4: "300.1.1.1"'),
    ({"type": "string", "format": "unknown-format"}, "anything", None),
])
def test_validation_messages_are_kube_openapis(field: dict[str, Any], value: Any, message: str | None) -> None:
    errors = validate(compile_schema(spec_schema(f=field)), {"spec": {"f": value}})
    assert [str(error) for error in errors] == ([message] if message else [])


def test_status_alone_is_validated_under_its_field() -> None:
    schema = compile_schema({"type": "object", "properties": {"replicas": {"type": "integer"}}})
    assert [str(error) for error in validate(schema, {"replicas": "x"}, "", "status")] == [
        'status.replicas: Invalid value: "string": replicas in body must be of type integer: "string"']


def test_pruning_reports_unknown_fields_sorted_and_keeps_what_preserve_unknown_fields_keeps() -> None:
    schema = compile_schema({"type": "object", "properties": {
        "spec": {"type": "object", "properties": {
            "known": {"type": "string"},
            "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
            "items": {"type": "array", "items": {"type": "object", "properties": {"a": {"type": "string"}}}},
            "embedded": {"type": "object", "x-kubernetes-embedded-resource": True,
                         "properties": {"spec": {"type": "object"}}},
        }}}})
    obj = {"apiVersion": "x/v1", "kind": "X", "metadata": {"name": "a"}, "extra": 1,
           "spec": {"known": "k", "zzz": 1, "free": {"anything": {"goes": True}}, "items": [{"a": "1", "b": 2}],
                    "embedded": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "status": {}}}}
    assert prune(obj, schema) == ["extra", "spec.embedded.status", "spec.items[0].b", "spec.zzz"]
    assert obj == {"apiVersion": "x/v1", "kind": "X", "metadata": {"name": "a"},
                   "spec": {"known": "k", "free": {"anything": {"goes": True}}, "items": [{"a": "1"}],
                            "embedded": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}}}


def test_defaults_fill_missing_and_non_nullable_null_fields() -> None:
    schema = compile_schema(spec_schema(
        replicas={"type": "integer", "default": 1},
        mode={"type": "string", "default": "auto"},
        tags={"type": "array", "items": {"type": "object", "properties": {
            "weight": {"type": "integer", "default": 10}}}},
        note={"type": "string"},
        maybe={"type": "string", "nullable": True},
    ))
    obj: dict[str, Any] = {"spec": {"mode": None, "tags": [{}, {"weight": 2}], "note": None, "maybe": None}}
    apply_defaults(obj, schema)
    prune_nulls(obj, schema)
    assert obj == {"spec": {"mode": "auto", "tags": [{"weight": 10}, {"weight": 2}], "maybe": None, "replicas": 1}}


def test_set_and_map_lists_hold_no_duplicates() -> None:
    schema = compile_schema(spec_schema(
        names={"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
        ports={"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["port", "protocol"],
               "items": {"type": "object", "properties": {"port": {"type": "integer"},
                                                          "protocol": {"type": "string"}}}},
    ))
    obj = {"spec": {"names": ["a", "b", "a", "a"],
                    "ports": [{"port": 80, "protocol": "TCP"}, {"port": 80, "protocol": "UDP"},
                              {"port": 80, "protocol": "TCP"}]}}
    assert [str(error) for error in validate_list_types(schema, obj)] == [
        'spec.names[2]: Duplicate value: "a"',
        'spec.ports[2]: Duplicate value: map[string]interface {}{"port":80, "protocol":"TCP"}',
    ]
