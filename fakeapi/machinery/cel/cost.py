"""The cost of a CEL expression, in CEL's cost units, as cel-go's checker estimates it (checker/cost.go) with
the Kubernetes libraries' call costs (k8s.io/apiserver/pkg/cel/library/cost.go): a [min, max] range over the
sizes the values may have. Sizes come from a `Sizes`: the schema's bounds when a CRD is written, the values'
own sizes when a rule is about to run (fakeapi's runtime cost: an upper bound of what cel-go would count).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

from fakeapi.machinery.cel.ast import CelType, Expr

MAX = 2**64 - 1
SELECT_AND_IDENT_COST = 1
CONST_COST = 0
LIST_CREATE_BASE_COST = 10
MAP_CREATE_BASE_COST = 30
STRUCT_CREATE_BASE_COST = 40
STRING_TRAVERSAL_COST_FACTOR = 0.1
REGEX_STRING_LENGTH_COST_FACTOR = 0.25
MAX_FORMAT_SIZE = 64
MAX_NAME_FORMAT_REGEX_SIZE = 128
ACCUMULATOR = "@result"


def _add(a: int, b: int) -> int:
    return min(a + b, MAX)


def _mul(a: int, b: int) -> int:
    return min(a * b, MAX)


def _factor(a: int, factor: float) -> int:
    if a > 0 and factor > 0 and a > MAX / factor:
        return MAX
    result = math.ceil(float(a) * factor)
    return MAX if result >= 2**64 else int(result)


@dataclass(frozen=True)
class Range:
    """A cost or a size: [low, high], saturating at 2^64-1 as cel-go's uint64 arithmetic does."""

    low: int
    high: int

    def __add__(self, other: Range) -> Range:
        return Range(_add(self.low, other.low), _add(self.high, other.high))

    def __mul__(self, other: Range) -> Range:
        return Range(_mul(self.low, other.low), _mul(self.high, other.high))

    def factor(self, factor: float) -> Range:
        return Range(_factor(self.low, factor), _factor(self.high, factor))

    def union(self, other: Range) -> Range:
        return Range(min(self.low, other.low), max(self.high, other.high))


ZERO = Range(0, 0)
ONE = Range(1, 1)
UNKNOWN_SIZE = Range(0, MAX)


class Sizes(Protocol):
    """The size (characters, bytes, items or entries) of the values at a path: a variable, then field names,
    `@items`, `@keys` or `@values`."""

    def size(self, path: tuple[str, ...]) -> Range | None: ...


@dataclass
class _Node:
    """An expression as the estimator sees an argument: its tree node, path and size worked out so far."""

    expr: Expr | None
    type: CelType
    path: tuple[str, ...] | None
    computed: Range | None


class Estimator:
    """cel-go's coster over one checked tree."""

    def __init__(self, sizes: Sizes, renamed: dict[str, str] | None = None) -> None:
        self.sizes = sizes
        self.renamed = renamed or {}
        self._paths: dict[int, tuple[str, ...]] = {}
        self._computed: dict[int, Range] = {}
        self._ranges: dict[str, list[Expr]] = {}

    def cost(self, expr: Expr) -> Range:
        kind = expr.kind
        if kind == "const":
            return Range(CONST_COST, CONST_COST)
        if kind == "ident":
            return self._ident(expr)
        if kind == "select":
            return self._select(expr)
        if kind == "call":
            return self._call(expr)
        if kind == "list":
            return self._sum(expr.args) + Range(LIST_CREATE_BASE_COST, LIST_CREATE_BASE_COST)
        if kind == "map":
            return self._sum(expr.args) + Range(MAP_CREATE_BASE_COST, MAP_CREATE_BASE_COST)
        if kind == "struct":
            return self._sum(expr.args) + Range(STRUCT_CREATE_BASE_COST, STRUCT_CREATE_BASE_COST)
        if kind == "comprehension":
            return self._comprehension(expr)
        return ZERO

    def _sum(self, exprs: list[Expr]) -> Range:
        total = ZERO
        for item in exprs:
            total = total + self.cost(item)
        return total

    def _ident(self, expr: Expr) -> Range:
        name = str(expr.value)
        scopes = self._ranges.get(name)
        if scopes:
            iter_range = scopes[-1]
            parent = self._paths.get(iter_range.id)
            if parent is not None and iter_range.type.kind in ("list", "map"):
                self._paths[expr.id] = (*parent, "@items" if iter_range.type.kind == "list" else "@keys")
        else:
            self._paths[expr.id] = (name,)
        return Range(SELECT_AND_IDENT_COST, SELECT_AND_IDENT_COST)

    def _select(self, expr: Expr) -> Range:
        assert expr.target is not None
        if expr.test_only:
            return ONE + self.cost(expr.target)
        total = self.cost(expr.target)
        if expr.target.type.kind in ("map", "message"):
            total = total + ONE
        parent = self._paths.get(expr.target.id)
        if parent is not None:
            self._paths[expr.id] = (*parent, str(expr.value))
        return total

    def _comprehension(self, expr: Expr) -> Range:
        assert expr.iter_range is not None and expr.accu_init is not None and expr.result is not None
        assert expr.loop_condition is not None and expr.loop_step is not None
        total = self.cost(expr.iter_range) + self.cost(expr.accu_init)
        self._ranges.setdefault(expr.iter_var, []).append(expr.iter_range)
        loop = self.cost(expr.loop_condition)
        step = self.cost(expr.loop_step)
        self._ranges[expr.iter_var].pop()
        total = total + self.cost(expr.result)
        count = self.size(self._node(expr.iter_range))
        self._computed[expr.id] = count
        return total + count * (step + loop)

    def _node(self, expr: Expr) -> _Node:
        path = self._paths.get(expr.id)
        if path is not None and path[0] == ACCUMULATOR:
            path = None
        return _Node(expr, expr.type, path, self._computed.get(expr.id))

    def _computed_size(self, node: _Node) -> Range | None:
        if node.computed is not None:
            return node.computed
        expr = node.expr
        if expr is None:
            return None
        if expr.kind == "const":
            if isinstance(expr.value, str):
                return Range(len(expr.value), len(expr.value))
            if isinstance(expr.value, bytes):
                return Range(len(expr.value), len(expr.value))
            return ONE
        if expr.kind == "list":
            return Range(len(expr.args), len(expr.args))
        if expr.kind == "map":
            return Range(len(expr.args) // 2, len(expr.args) // 2)
        return None

    def _estimated(self, node: _Node) -> Range | None:
        return None if not node.path else self.sizes.size(node.path)

    def size(self, node: _Node) -> Range:
        """cel-go's sizeEstimate: computed, estimated, 1 for scalars, else unknown."""
        found = self._computed_size(node)
        if found is None:
            found = self._estimated(node)
        if found is not None:
            return found
        return ONE if node.type.scalar else UNKNOWN_SIZE

    def library_size(self, node: _Node) -> Range:
        """The Kubernetes estimator's sizeEstimate: no scalar shortcut."""
        found = self._computed_size(node)
        if found is None:
            found = self._estimated(node)
        return found if found is not None else UNKNOWN_SIZE

    def _call(self, expr: Expr) -> Range:
        args = expr.args
        arg_costs = [self.cost(arg) for arg in args]
        nodes = [self._node(arg) for arg in args]
        if not expr.overloads:
            return ZERO
        total = ZERO
        target: _Node | None = None
        if expr.target is not None:
            total = total + self.cost(expr.target)
            target = self._node(expr.target)
        function = self.renamed.get(str(expr.value), str(expr.value))
        cost: Range | None = None
        result: Range | None = None
        for overload in expr.overloads:
            call_cost, call_size = self._function(function, overload, target, nodes, arg_costs)
            cost = call_cost if cost is None else cost.union(call_cost)
            if call_size is not None:
                result = call_size if result is None else result.union(call_size)
            if overload == "index_list" and args and args[0].id in self._paths:
                self._paths[expr.id] = (*self._paths[args[0].id], "@items")
            elif overload == "index_map" and args and args[0].id in self._paths:
                self._paths[expr.id] = (*self._paths[args[0].id], "@values")
        if result is not None:
            self._computed[expr.id] = result
        assert cost is not None
        return total + cost

    def _function(self, function: str, overload: str, target: _Node | None, args: list[_Node],
                  arg_costs: list[Range]) -> tuple[Range, Range | None]:
        arg_sum = ZERO
        for cost in arg_costs:
            arg_sum = arg_sum + cost
        sets = _SETS.get(overload)
        if sets is not None and len(args) == 2:
            estimate = (self.library_size(args[0]) * self.library_size(args[1])).factor(sets) + ONE
            return estimate + arg_sum, None
        library = kubernetes_call_cost(self, function, overload, target, args)
        if library is not None:
            return library[0] + arg_sum, library[1]
        return self._standard(overload, target, args, arg_costs, arg_sum)

    def _standard(self, overload: str, target: _Node | None, args: list[_Node], arg_costs: list[Range],
                  arg_sum: Range) -> tuple[Range, Range | None]:
        traversal = STRING_TRAVERSAL_COST_FACTOR
        if overload == "string_format" and target is not None:
            return self.size(target).factor(traversal) + arg_sum, None
        if overload in ("string_to_bytes", "bytes_to_string", "strings_quote") and len(args) == 1:
            size = self.size(args[0])
            result = {"string_to_bytes": Range(size.low, _mul(size.high, 4)),
                      "bytes_to_string": Range(size.low // 4, size.high),
                      "strings_quote": Range(_add(size.low, 2), _add(_mul(size.high, 2), 2))}[overload]
            return size.factor(traversal) + arg_sum, result
        if overload in ("starts_with_string", "ends_with_string") and len(args) == 1:
            return self.size(args[0]).factor(traversal) + arg_sum, None
        if overload == "in_list" and len(args) == 2:
            return self.size(args[1]).factor(1) + arg_sum, None
        if overload == "matches_string" and target is not None and len(args) == 1:
            text = (self.size(target) + ONE).factor(traversal)
            regex = self.size(args[0]).factor(REGEX_STRING_LENGTH_COST_FACTOR)
            return text * regex + arg_sum, None
        if overload == "contains_string" and target is not None and len(args) == 1:
            return self.size(target).factor(traversal) * self.size(args[0]).factor(traversal) + arg_sum, None
        if overload in ("logical_or", "logical_and"):
            left, right = arg_costs[0], arg_costs[1]
            return Range(left.low, (left + right).high), None
        if overload == "conditional":
            size = self.size(args[1]).union(self.size(args[2]))
            return arg_costs[0] + arg_costs[1].union(arg_costs[2]), size
        if overload in ("add_string", "add_bytes", "add_list") and len(args) == 2:
            size = self.size(args[0]) + self.size(args[1])
            if overload == "add_list":
                return ONE + arg_sum, size
            return size.factor(traversal) + arg_sum, size
        if overload in _COMPARISONS:
            left, right = self.size(args[0]), self.size(args[1])
            smallest = min(left.high, right.high)
            return Range(1 if smallest > 0 else 0, smallest).factor(traversal) + arg_sum, None
        return ONE + arg_sum, None


_SETS = {"list_sets_contains_list": 1.0, "list_sets_intersects_list": 1.0, "list_sets_equivalent_list": 2.0}
_COMPARISONS = frozenset({"less_string", "greater_string", "less_equals_string", "greater_equals_string",
                          "less_bytes", "greater_bytes", "less_equals_bytes", "greater_equals_bytes", "equals",
                          "not_equals"})
_NOMINAL = frozenset({"masked", "prefixLength", "family", "isUnspecified", "isLoopback", "isLinkLocalMulticast",
                      "isLinkLocalUnicast", "isGlobalUnicast", "format.named", "sign", "asInteger", "isInteger",
                      "asApproximateFloat", "isGreaterThan", "isLessThan", "compareTo", "add", "sub", "getScheme",
                      "getHostname", "getHost", "getPort", "getEscapedPath", "getQuery"})
_IP_SIZE = Range(4, 16)


def kubernetes_call_cost(estimator: Estimator, function: str, overload: str, target: _Node | None,
                         args: list[_Node]) -> tuple[Range, Range | None] | None:
    """The Kubernetes libraries' EstimateCallCost: (cost, result size), or None to use CEL's own."""
    traversal = STRING_TRAVERSAL_COST_FACTOR
    size = estimator.library_size
    if function in _NOMINAL:
        return ONE, None
    if function in ("isSorted", "sum", "max", "min", "indexOf", "lastIndexOf"):
        if target is None:
            return None
        element = _element(target)
        if element is not None:
            cost = ONE
            if element.type.kind in ("string", "bytes"):
                cost = cost + size(element).factor(traversal)
            return size(target) * cost, None
        return size(target).factor(traversal), None
    if function == "url" and len(args) == 1:
        found = size(args[0])
        return found.factor(traversal), found
    if function in ("lowerAscii", "upperAscii", "substring", "trim") and target is not None:
        found = size(target)
        return found.factor(traversal), found
    if function == "replace" and target is not None and len(args) >= 2:
        return _replace(size(target), size(args[0]), size(args[1]))
    if function == "split" and target is not None:
        found = size(target)
        high = found.high
        if len(args) > 1 and args[1].expr is not None and args[1].expr.kind == "const" \
                and isinstance(args[1].expr.value, int) and not isinstance(args[1].expr.value, bool):
            high = args[1].expr.value
        return found.factor(2 * traversal), Range(0, high)
    if function == "join" and target is not None:
        listed = size(target)
        result = ZERO
        element = _element(target)
        if element is not None:
            result = listed * size(element)
        if args:
            separators = Range(max(listed.low - 1, 0), max(listed.high - 1, 0))
            result = result + size(args[0]) * separators
        return result.factor(traversal), result
    if function in ("find", "findAll") and target is not None and args:
        text = size(target)
        regex = size(args[0]).factor(REGEX_STRING_LENGTH_COST_FACTOR)
        return (text + ONE).factor(traversal) * regex, Range(0, text.high)
    if function in ("cidr", "isIP", "isCIDR", "quantity", "isQuantity") and args:
        return size(args[0]).factor(traversal), None
    if function == "ip":
        if overload == "cidr_ip" or not args:
            return ONE, None
        return size(args[0]).factor(traversal), None
    if function == "ip.isCanonical" and args:
        return size(args[0]).factor(2 * traversal), None
    if function in ("containsIP", "containsCIDR") and target is not None and args:
        cost = (_IP_SIZE + _IP_SIZE).factor(traversal)
        if function == "containsCIDR":
            cost = cost + _IP_SIZE.factor(traversal) + ONE
        if overload in ("cidr_contains_ip_string", "cidr_contains_cidr_string"):
            cost = cost + size(args[0]).factor(traversal)
        return cost, None
    if function == "validate" and target is not None and args:
        return size(args[0]).factor(traversal).factor(MAX_NAME_FORMAT_REGEX_SIZE * REGEX_STRING_LENGTH_COST_FACTOR), \
            None
    if function == "_==_" and len(args) == 2 and args[0].type == args[1].type:
        name = args[0].type.name
        if name in ("kubernetes.IP", "kubernetes.CIDR", "kubernetes.Quantity"):
            return ONE, None
        if name == "kubernetes.Format":
            return Range(1, MAX_FORMAT_SIZE).factor(traversal), None
        if name == "kubernetes.URL":
            return ONE.factor(traversal), None
    return None


def _element(node: _Node) -> _Node | None:
    if node.type.kind != "list" or not node.type.params:
        return None
    path = (*node.path, "@items") if node.path is not None else None
    return _Node(None, node.type.params[0], path, None)


def _replace(text: Range, old: Range, new: Range) -> tuple[Range, Range]:
    count_high = retained_high = 0
    if old.low == 0:
        count_high = text.high + 1 if text.high < MAX else text.high
        retained_high = text.high
    elif new.high <= old.low:
        retained_high = text.high
    else:
        count_high = math.ceil(text.high / old.low)
    count_low = retained_low = 0
    if old.high == 0:
        count_low = text.low + 1 if text.low < MAX else text.low
        retained_low = text.low
    elif old.high <= new.low:
        retained_low = text.low
    else:
        count_low = math.ceil(text.low / old.high)
    size = Range(count_low, count_high) * new + Range(retained_low, retained_high)
    return text.factor(2 * STRING_TRAVERSAL_COST_FACTOR), size


def estimate(tree: Expr, sizes: Sizes, renamed: dict[str, str] | None = None) -> Range:
    return Estimator(sizes, renamed).cost(tree)

