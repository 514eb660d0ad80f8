"""A small JSONPath evaluator: the subset Kubernetes uses in printer columns, scale subresource paths and
selectable fields (client-go's util/jsonpath grammar, without its template text).

    .spec.replicas                      a field; `.` alone is the object
    .metadata.labels['app.kubernetes.io/name']   a field by quoted name
    .spec.containers[0].image           an index (negative counts from the end)
    .spec.containers[*].name            every item (or every value of a map)
    .status.conditions[?(@.type=="Ready")].status      the items a filter keeps (== or !=)

`JsonPath(text).values(obj)` gives every value the path reaches, in order (none when it reaches nothing).
A malformed path raises JsonPathError with a message naming the problem.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

_NAME = re.compile(r"[A-Za-z0-9_$\-]+")
# [?(@.a.b == 'x')]: a path from the item, == or !=, and a quoted string, a number or true/false
_FILTER = re.compile(r"\?\(@((?:\.[A-Za-z0-9_$\-]+)+)\s*(==|!=)\s*"
                     r"(?:'([^']*)'|\"([^\"]*)\"|(-?[0-9.]+)|(true|false))\)")


class JsonPathError(ValueError):
    pass


@dataclass(frozen=True)
class _Field:
    name: str


@dataclass(frozen=True)
class _Index:
    index: int


@dataclass(frozen=True)
class _All:
    pass


@dataclass(frozen=True)
class _Filter:
    path: tuple[str, ...]
    equal: bool
    value: Any


_Step = _Field | _Index | _All | _Filter


class JsonPath:
    """A parsed path, to evaluate against many objects."""

    def __init__(self, text: str) -> None:
        self.text = text
        body = text.strip()
        if body.startswith("{") and body.endswith("}"):
            body = body[1:-1].strip()
        self._steps = tuple(_parse(body, text))

    def values(self, obj: Any) -> list[Any]:
        found = [obj]
        for step in self._steps:
            found = [result for value in found for result in _apply(step, value)]
        return found

    def first(self, obj: Any) -> Any:
        """The first value the path reaches, or None."""
        found = self.values(obj)
        return found[0] if found else None

    def field_steps(self) -> list[str | int] | None:
        """The path as field names and indexes, or None when it has wildcards or filters."""
        steps: list[str | int] = []
        for step in self._steps:
            if isinstance(step, _Field):
                steps.append(step.name)
            elif isinstance(step, _Index):
                steps.append(step.index)
            else:
                return None
        return steps

    @property
    def is_simple(self) -> bool:
        """Whether the path names fields only (`.spec.replicas`), so a value can be set at it."""
        return bool(self._steps) and all(isinstance(step, _Field) for step in self._steps)

    def set(self, obj: dict[str, Any], value: Any) -> None:
        """Set the value at a simple path, making the objects on the way."""
        assert self.is_simple, self.text
        node = obj
        steps = [step.name for step in self._steps if isinstance(step, _Field)]
        for name in steps[:-1]:
            child = node.get(name)
            if not isinstance(child, dict):
                child = node[name] = {}
            node = child
        node[steps[-1]] = value


def _parse(body: str, text: str) -> Iterator[_Step]:
    position = 0
    if body in ("", "."):
        return
    while position < len(body):
        char = body[position]
        if char == ".":
            match = _NAME.match(body, position + 1)
            if match is None:
                if body.startswith("*", position + 1):
                    yield _All()
                    position += 2
                    continue
                raise JsonPathError(f"invalid JSONPath {text!r}: a field name must follow '.' at {position}")
            yield _Field(match.group())
            position = match.end()
        elif char == "[":
            end = _closing(body, position, text)
            inner = body[position + 1:end].strip()
            position = end + 1
            if inner == "*":
                yield _All()
            elif inner[:1] in ("'", '"') and inner[-1:] == inner[:1] and len(inner) >= 2:
                yield _Field(inner[1:-1])
            elif re.fullmatch(r"-?[0-9]+", inner):
                yield _Index(int(inner))
            else:
                match = _FILTER.fullmatch(inner)
                if match is None:
                    raise JsonPathError(f"invalid JSONPath {text!r}: unsupported [{inner}]")
                yield _Filter(tuple(match.group(1)[1:].split(".")), match.group(2) == "==", _literal(match))
        else:
            raise JsonPathError(f"invalid JSONPath {text!r}: unexpected {char!r} at {position}")


def _closing(body: str, start: int, text: str) -> int:
    quote = ""
    for index in range(start + 1, len(body)):
        char = body[index]
        if quote:
            if char == quote:
                quote = ""
        elif char in ("'", '"'):
            quote = char
        elif char == "]":
            return index
    raise JsonPathError(f"invalid JSONPath {text!r}: unclosed [")


def _literal(match: re.Match[str]) -> Any:
    single, double, number, boolean = match.group(3, 4, 5, 6)
    if single is not None or double is not None:
        return single if single is not None else double
    if boolean is not None:
        return boolean == "true"
    return float(number) if "." in number else int(number)


def _apply(step: _Step, value: Any) -> list[Any]:
    if isinstance(step, _Field):
        return [value[step.name]] if isinstance(value, dict) and step.name in value else []
    if isinstance(step, _Index):
        if isinstance(value, list) and -len(value) <= step.index < len(value):
            return [value[step.index]]
        return []
    if isinstance(step, _All):
        if isinstance(value, list):
            return list(value)
        return list(value.values()) if isinstance(value, dict) else []
    if not isinstance(value, list):
        return []
    kept = []
    for item in value:
        found: Any = item
        for name in step.path:
            found = found.get(name) if isinstance(found, dict) else None
        if (found == step.value) == step.equal and found is not None:
            kept.append(item)
    return kept
