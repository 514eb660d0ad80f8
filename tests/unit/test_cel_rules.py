"""CEL rules checked against the schema's types with cel-go's messages, and the Kubernetes libraries the
runtime lacks (format, lists' indexOf/lastIndexOf) and the values rules see (timestamps, durations, escaped
property names, doubles)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from fakeapi.machinery.cel.decltypes import escape, schema_decl_type
from fakeapi.machinery.cel.program import Checker, CompileError
from fakeapi.machinery.jsonschema.schema import compile_schema

SCHEMA: dict[str, Any] = {"type": "object", "properties": {
    "replicas": {"type": "integer"},
    "ratio": {"type": "number"},
    "name": {"type": "string", "maxLength": 63},
    "names": {"type": "array", "maxItems": 10, "items": {"type": "string", "maxLength": 10}},
    "ports": {"type": "array", "items": {"type": "object", "properties": {"port": {"type": "integer"}}}},
    "labels": {"type": "object", "additionalProperties": {"type": "string"}},
    "created": {"type": "string", "format": "date-time"},
    "day": {"type": "string", "format": "date"},
    "timeout": {"type": "string", "format": "duration"},
    "data": {"type": "string", "format": "byte"},
    "size": {"x-kubernetes-int-or-string": True},
    "namespace": {"type": "string"},
    "max-surge": {"type": "string"},
    "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
}}


def checker(schema: dict[str, Any] = SCHEMA, root: bool = False) -> Checker:
    return Checker(schema_decl_type(compile_schema(schema), root))


def compile_error(rule: str, **options: Any) -> str:
    with pytest.raises(CompileError) as raised:
        checker().compile(rule, **options)
    return str(raised.value)


@pytest.mark.parametrize(("rule", "message"), [
    ("self.foo > 1", "compilation failed: ERROR: <input>:1:5: undefined field 'foo'\n | self.foo > 1\n | ....^"),
    ("self.replicas == 'a'", "compilation failed: ERROR: <input>:1:15: found no matching overload for '_==_' "
                             "applied to '(int, string)'\n | self.replicas == 'a'\n | ..............^"),
    ("self.names.all(n, n > 1)", "compilation failed: ERROR: <input>:1:21: found no matching overload for '_>_' "
                                 "applied to '(string, int)'\n | self.names.all(n, n > 1)\n | ....................^"),
    ("self.free.anything == 1", "compilation failed: ERROR: <input>:1:10: undefined field 'anything'\n"
                                " | self.free.anything == 1\n | .........^"),
    ("foo == 1", "compilation failed: ERROR: <input>:1:1: undeclared reference to 'foo' (in container '')\n"
                 " | foo == 1\n | ^"),
    ("self.size", "cel expression must evaluate to a bool"),
    ("self.replicas", "cel expression must evaluate to a bool"),
    ("self.name.indexOf(1) == 0", "compilation failed: ERROR: <input>:1:18: found no matching overload for "
                                  "'indexOf' applied to '(string, int)'\n | self.name.indexOf(1) == 0\n"
                                  " | .................^"),
])
def test_rules_are_checked_against_the_schema(rule: str, message: str) -> None:
    assert compile_error(rule) == message


def test_optional_old_self_errors_point_into_the_rule_as_written() -> None:
    assert compile_error("oldSelf.value().nope == 1", optional_old_self=True) == (
        "compilation failed: ERROR: <input>:1:16: undefined field 'nope'\n | oldSelf.value().nope == 1\n"
        " | ...............^")


def test_object_types_are_named_as_upstream_names_them() -> None:
    message = compile_error("self.ports[0] + 1")
    assert re.search(r"applied to '\(selfType\d+\.ports\.@idx, int\)'", message), message


@pytest.mark.parametrize("rule", [
    "self.replicas > 1 && self.ratio < 2.5",
    "self.ports.all(p, p.port > 0)",
    "self.labels.all(k, self.labels[k].size() < 64)",
    "type(self.size) == int || self.size.endsWith('%')",
    "self.__namespace__ == 'default'",
    "self.max__dash__surge == '25%'",
    "has(self.created) && self.created < timestamp('2030-01-01T00:00:00Z')",
    "self.timeout > duration('1s')",
    "size(self.data) > 0",
])
def test_rules_that_fit_the_schema_compile(rule: str) -> None:
    checker().compile(rule)


@pytest.mark.parametrize(("rule", "value", "result"), [
    ("self.created < timestamp('2030-01-01T00:00:00Z')", {"created": "2024-05-01T10:00:00Z"}, True),
    ("self.created.getFullYear() == 2024", {"created": "2024-05-01T10:00:00+02:00"}, True),
    ("self.day.getDayOfMonth() == 13", {"day": "2024-05-14"}, True),
    ("self.timeout == duration('90s')", {"timeout": "1m30s"}, True),
    ("self.data == b'AB'", {"data": "QUI="}, True),
    ("self.ratio + 0.5 == 2.5", {"ratio": 2}, True),
    ("self.__namespace__ == 'ns' && self.max__dash__surge == '1'", {"namespace": "ns", "max-surge": "1"}, True),
    ("self.names.indexOf('b') == 1 && self.names.lastIndexOf('a') == 2", {"names": ["a", "b", "a"]}, True),
    ("self.names.indexOf('z') == -1", {"names": ["a"]}, True),
    ("self.name.indexOf('b') == 1 && self.name.lastIndexOf('a') == 2", {"name": "aba"}, True),
    ("self.name.indexOf('a', 1) == 2", {"name": "aba"}, True),
    ("!format.dns1123Label().validate(self.name).hasValue()", {"name": "web-1"}, True),
    ("format.dns1123Label().validate(self.name).value()[0].startsWith('a lowercase RFC 1123 label')",
     {"name": "Web_1"}, True),
    ("format.named('dns1035Label').hasValue() && !format.named('nope').hasValue()", {}, True),
    ("format.named('uuid').value().validate(self.name) == optional.of(['does not match the UUID format'])",
     {"name": "x"}, True),
    ("(format.labelValue()).validate(self.name).orValue([]).size() == 0", {"name": "ok"}, True),
])
def test_rules_see_values_as_upstream_converts_them(rule: str, value: dict[str, Any], result: bool) -> None:
    assert checker().compile(rule).run(value, None, False, {}) == (result, None)


@pytest.mark.parametrize(("rule", "value", "error"), [
    ("self.replicas > 1", {}, "no such key: replicas"),
    ("self.names[3] == 'a'", {"names": ["a"]}, "index '3' out of range in list size '1'"),
    ("self.name.indexOf('a', -1) == 0", {"name": "a"}, "index out of range: -1"),
    ("self.replicas / 0 == 1", {"replicas": 1}, "division by zero"),
])
def test_evaluation_errors_are_cel_gos(rule: str, value: dict[str, Any], error: str) -> None:
    assert checker().compile(rule).run(value, None, False, {}) == (None, error)


@pytest.mark.parametrize(("name", "escaped"), [
    ("spec", "spec"), ("namespace", "__namespace__"), ("max-surge", "max__dash__surge"),
    ("a.b/c", "a__dot__b__slash__c"), ("x__y", "x__underscores__y"), ("1st", None), ("a b", None), ("", None),
])
def test_property_names_are_escaped_as_upstream_escapes_them(name: str, escaped: str | None) -> None:
    assert escape(name) == escaped


def test_the_root_of_a_resource_has_api_version_kind_and_metadata_name() -> None:
    root = checker({"type": "object", "properties": {"spec": {"type": "object"}}}, root=True)
    root.compile("self.kind == 'A' && self.apiVersion != '' && self.metadata.name.startsWith('a')")
    with pytest.raises(CompileError, match="undefined field 'labels'"):
        root.compile("self.metadata.labels.size() > 0")
