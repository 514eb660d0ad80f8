"""The sizes the cost estimator reads: the schema's bounds when a CRD is written (upstream's sizeEstimator), the
values' own sizes when a rule is about to run."""

from __future__ import annotations

from typing import Any

from fakeapi.machinery.cel.cost import Range
from fakeapi.machinery.cel.decltypes import DeclType
from fakeapi.machinery.cel.values import size_of

_KEY = DeclType("string")  # a map key: upstream's StringType, which holds no bound (0)


def _step(decl: DeclType, name: str) -> DeclType | None:
    if name in ("@items", "@values"):
        return decl.elem
    if name == "@keys":
        return _KEY if decl.kind == "map" else None
    found = decl.fields.get(name)
    return None if found is None else found.type


class SchemaSizes:
    """Sizes from maxLength, maxItems, maxProperties (or what fits in a request)."""

    def __init__(self, root: DeclType) -> None:
        self.root = root

    def size(self, path: tuple[str, ...]) -> Range | None:
        decl: DeclType | None = self.root
        for name in path[1:]:
            assert decl is not None
            decl = _step(decl, name)
            if decl is None:
                return None
        assert decl is not None
        return Range(0, decl.max_elements)


class ValueSizes:
    """Sizes from the values `self` and `oldSelf` hold: the largest of the values a path reaches."""

    def __init__(self, root: DeclType, value: Any, old: Any) -> None:
        self.root = root
        self.values = {"self": value, "oldSelf": old}

    def size(self, path: tuple[str, ...]) -> Range | None:
        if path[0] not in self.values:
            return None
        decl: DeclType | None = self.root
        values = [self.values[path[0]]]
        for name in path[1:]:
            assert decl is not None
            step = _step(decl, name)
            if step is None:
                return None
            values = _follow(decl, name, values)
            decl = step
        assert decl is not None
        if decl.kind in ("string", "bytes", "list", "map", "dyn"):
            return Range(0, max((size_of(value) for value in values), default=0))
        return Range(0, decl.max_elements)


def _follow(decl: DeclType, name: str, values: list[Any]) -> list[Any]:
    found: list[Any] = []
    for value in values:
        if name == "@items" and isinstance(value, list):
            found += value
        elif name == "@values" and isinstance(value, dict):
            found += value.values()
        elif name == "@keys" and isinstance(value, dict):
            found += value.keys()
        elif isinstance(value, dict):
            key = decl.fields[name].name
            if key in value:
                found.append(value[key])
    return found
