"""Helpers shared by the validators: Go-style bad-value rendering, quantities, semantic equality."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from fractions import Fraction
from typing import Any

from fakeapi.machinery.quantity import canonical_quantity, parse_quantity
from fakeapi.machinery.types import JSON


class GoText(int):
    """A bad value that upstream prints verbatim (a Go `%#v` literal or a Stringer's output).

    FieldError prints ints with `str()`, so an int subclass is the one way to get unquoted text
    into a message without changing `fakeapi.field`.
    """

    text: str

    def __new__(cls, text: str) -> GoText:
        obj = super().__new__(cls, 0)
        obj.text = text
        return obj

    def __str__(self) -> str:
        return self.text

    __repr__ = __str__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GoText) and other.text == self.text

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return hash(self.text)

    def __bool__(self) -> bool:
        return True


def go_quote(value: str) -> str:
    """Go's %q for the common case (printable text)."""
    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    return f'"{escaped}"'


def go_string_slice(values: Iterable[str]) -> GoText:
    return GoText("[]string{" + ", ".join(go_quote(v) for v in values) + "}")


def go_string_map(values: Mapping[str, str] | None) -> GoText:
    if values is None:
        return GoText("map[string]string(nil)")
    body = ", ".join(f"{go_quote(k)}:{go_quote(str(values[k]))}" for k in sorted(values))
    return GoText("map[string]string{" + body + "}")


def go_struct(type_name: str, fields: Iterable[tuple[str, Any]]) -> GoText:
    """A `%#v`-style struct literal listing the given (GoFieldName, value) pairs."""
    parts = []
    for name, value in fields:
        if isinstance(value, str):
            parts.append(f"{name}:{go_quote(value)}")
        elif isinstance(value, bool):
            parts.append(f"{name}:{'true' if value else 'false'}")
        elif value is None:
            parts.append(f"{name}:(nil)")
        else:
            parts.append(f"{name}:{value}")
    return GoText(type_name + "{" + ", ".join(parts) + "}")


def go_time(value: Any) -> GoText | None:
    """metav1.Time as Go's Time.String() prints it (UTC, as the apiserver decodes it), or None if unset."""
    if not value:
        return None
    text = str(value)
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)
    except ValueError:
        return GoText(text)
    stamp = parsed.replace(tzinfo=None).isoformat(sep=" ", timespec="seconds")  # the year in four digits
    if parsed.microsecond:
        stamp += f".{parsed.microsecond:06d}".rstrip("0")
    return GoText(stamp + " +0000 UTC")


def as_dict(value: Any) -> JSON:
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def as_str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def as_int(value: Any, default: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        return default
    return value


def quantity(value: Any) -> Fraction | None:
    """The numeric value of a resource quantity, or None if it does not parse."""
    try:
        return parse_quantity(value)
    except (ValueError, TypeError, ZeroDivisionError):
        return None


def quantity_text(value: Any) -> str:
    """The quantity as upstream's Quantity.String() prints it."""
    try:
        return canonical_quantity(value)
    except (ValueError, TypeError):
        return value if isinstance(value, str) else str(value)


_QUANTITY_KEYS = frozenset(
    {"limits", "requests", "overhead", "allocatedResources", "capacity", "sizeLimit", "divisor"}
)


def _is_zero(value: Any) -> bool:
    return value is None or value is False or value == 0 or value == "" or value == [] or value == {}


def semantic_equal(a: Any, b: Any, quantities: bool = False) -> bool:
    """apimachinery's Semantic.DeepEqual on wire JSON: absent, null and empty are the same,
    and resource quantities compare by value (`1` == `1000m`). `quantities` marks `a`/`b` as a
    quantity or a map of quantities."""
    if a is b or a == b:  # plain equality is C-fast and settles the common case
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        for key in a.keys() | b.keys():
            if not semantic_equal(a.get(key), b.get(key), quantities or key in _QUANTITY_KEYS):
                return False
        return True
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return False
        return all(semantic_equal(x, y, quantities) for x, y in zip(a, b, strict=True))
    if _is_zero(a) and _is_zero(b):
        return True
    if quantities and not isinstance(a, dict | list) and not isinstance(b, dict | list):
        qa, qb = quantity(a), quantity(b)
        return qa is not None and qa == qb
    return False


def diff_paths(old: Any, new: Any, path: str = "") -> list[str]:
    """A short, readable stand-in for go-cmp's diff: one `-`/`+` pair per changed leaf."""
    if semantic_equal(old, new):
        return []
    if isinstance(old, dict) and isinstance(new, dict):
        lines: list[str] = []
        for key in sorted(old.keys() | new.keys()):
            lines += diff_paths(old.get(key), new.get(key), f"{path}.{key}" if path else key)
        return lines or [f"- {path}: {old!r}", f"+ {path}: {new!r}"]
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        lines = []
        for index, (x, y) in enumerate(zip(old, new, strict=True)):
            lines += diff_paths(x, y, f"{path}[{index}]")
        return lines
    return [f"- {path}: {_show(old)}", f"+ {path}: {_show(new)}"]


def _show(value: Any) -> str:
    import orjson

    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return repr(value)
