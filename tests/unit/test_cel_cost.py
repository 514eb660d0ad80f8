"""The estimated cost of x-kubernetes-validations rules: upstream's TestCostEstimation table
(apiextensions-apiserver pkg/apiserver/schema/cel), each schema without bounds and with `maxItems`,
`maxProperties` or `maxLength` set, and the cost error messages of a CRD."""

from __future__ import annotations

from typing import Any

import pytest

from fakeapi.kinds.customresourcedefinition.schema import TotalCost, cost_error_message
from fakeapi.machinery.cel.decltypes import schema_decl_type
from fakeapi.machinery.cel.program import Checker
from fakeapi.machinery.jsonschema.schema import compile_schema


def _item(kind: str) -> dict[str, Any]:
    if kind in ("duration", "date", "date-time"):
        return {"type": "string", "format": kind}
    if kind == "int-or-string":
        return {"x-kubernetes-int-or-string": True}
    return {"type": kind}


def array(kind: str) -> Any:
    return lambda bound: {"type": "array", "items": _item(kind), **_bound("maxItems", bound)}


def array_of_arrays(kind: str) -> Any:
    return lambda bound: {"type": "array", "items": {"type": "array", "items": {"type": kind}},
                          **_bound("maxItems", bound)}


def object_array(bound: int | None) -> dict[str, Any]:
    return {"type": "array", "items": {"type": "object", "required": ["required"],
                                       "properties": {"required": {"type": "string"}, "optional": {"type": "string"}}},
            **_bound("maxItems", bound)}


def map_array(kind: str) -> Any:
    return lambda bound: {"type": "array", "items": {"type": "object", "additionalProperties": {"type": kind}},
                          **_bound("maxItems", bound)}


def map_of(kind: str) -> Any:
    return lambda bound: {"type": "object", "additionalProperties": _item(kind), **_bound("maxProperties", bound)}


def string(bound: int | None) -> dict[str, Any]:
    return {"type": "string", **_bound("maxLength", bound)}


def _bound(name: str, bound: int | None) -> dict[str, Any]:
    return {} if bound is None else {name: bound}


def max_cost(raw: dict[str, Any], rule: str) -> int:
    schema = compile_schema(raw)
    return Checker(schema_decl_type(schema, False)).compile(rule).max_cost


LIMIT = 10_000_000


@pytest.mark.parametrize(("generator", "rule", "unbounded", "bound", "bounded"), [
    (array("number"), "self.all(x, true)", 4718591, 10, 32),
    (array("string"), "self.all(x, true)", 3145727, 20, 62),
    (array("boolean"), "self.all(x, true)", 1887437, 5, 17),
    (array_of_arrays("number"), "self.all(x, true)", 3145727, 100, 302),
    (object_array, "self.all(x, true)", 555128, 50, 152),
    (map_of("number"), "self.all(x, true)", 1348169, 10, 32),
    (map_of("string"), "self.all(x, true)", 1179647, 3, 11),
    (map_of("boolean"), "self.all(x, true)", 943718, 100, 302),
    (string, "self.contains('test')", 314574, 10, 5),
    (string, "self.startsWith('test')", 2, 15, 2),
    (string, 'size(self + "hello") > size("hello")', 314578, 4, 7),
    (array("number"), "self[1] == 0.0", 2, 5000, 2),
    (array("string"), "self[1] == self[1]", 314577, 8, 314577),
    (array("number"), "self.all(x, self.all(y, true))", None, 10, 352),
    (array("number"), "self.all(x, self.all(y, self.all(z, true)))", None, 10, 3552),
    (string, 'self.matches("x")', 314574, 50, 22),
    (string, '"".matches("(((((((((())))))))))[0-9]")', 7, 10, 7),
    (string, 'self.matches("")', 1, 100, 1),
    (array("number"), "self[3] == 0.0", 2, 0, 2),
    (string, 'self == "x"', 2, 0, 1),
    (array("number"), "self.all(x, x == 0.0)", 6291454, 3 * 1024 * 2048, 25165826),
    (array("int-or-string"), "self.all(x, true)", 4718591, 10, 32),
    (array("int-or-string"), "self[0] == 5", 3, 10, 3),
    (object_array, "self[0] == null", 2, 422, 2),
    (array_of_arrays("number"), "self[0][0] == -1.0", 3, 51, 3),
    (map_array("number"), "self.all(x, x.y == 25.2)", 6291452, 12, 74),
    (map_array("number"), "self[0].x > 2.0", 4, 3000, 4),
    (array("duration"), "self.all(x, true)", 2359295, 5, 17),
    (array("duration"), "self[0].getHours() == 2", 4, 525, 4),
    (array("date"), "self.all(x, true)", 725936, 15, 47),
    (array("date-time"), "self.all(x, true)", 428963, 25, 77),
    (array("date-time"), "self[2].getMinutes() == 45", 4, 99, 4),
    (map_of("int-or-string"), "self.all(x, true)", 1348169, 15, 47),
])
def test_estimated_costs_are_upstreams(generator: Any, rule: str, unbounded: int | None, bound: int,
                                       bounded: int) -> None:
    found = max_cost(generator(None), rule)
    if unbounded is None:
        assert found > LIMIT
    else:
        assert found == unbounded
    assert max_cost(generator(bound), rule) == bounded


@pytest.mark.parametrize(("cost", "message"), [
    (10_000_001, "estimated rule cost exceeds budget by factor of 1.000000x"),
    (25_000_000, "estimated rule cost exceeds budget by factor of 2.5x"),
    (2_000_000_000, "estimated rule cost exceeds budget by factor of more than 100x"),
])
def test_cost_error_messages_say_the_factor_as_upstream_does(cost: int, message: str) -> None:
    assert cost_error_message("estimated rule cost", cost, LIMIT) == message + (
        " (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and "
        "strings are declared)")


@pytest.mark.parametrize(("costs", "total", "expensive"), [
    ([], 0, []),
    ([1_000_000], 1_000_000, [1_000_000]),
    ([900_000], 900_000, []),
    ([5_000_000, 25_000_000, 900_000], 30_900_000, [25_000_000, 5_000_000]),
    ([16_000_000, 50_000_000, 900_000, 34_000_000, 50_000_000, 50_000_001], 200_900_001,
     [50_000_001, 50_000_000, 50_000_000, 34_000_000]),
    ([2**63, 2**63, 1], 2**64 - 1, [2**63, 2**63]),
])
def test_the_crd_total_keeps_the_four_most_expensive_rules(costs: list[int], total: int,
                                                           expensive: list[int]) -> None:
    found = TotalCost()
    for index, cost in enumerate(costs):
        found.observe(f"rule{index}", cost)
    assert found.total == total
    assert [cost for _path, cost in found.most_expensive] == expensive
