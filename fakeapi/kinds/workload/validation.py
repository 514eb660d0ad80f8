"""Validation helpers the workload kinds share (upstream's apps validation and core's ValidateNonnegativeField)."""

from __future__ import annotations

import re
from typing import Any

from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.validation import names
from fakeapi.machinery.validation.objectmeta import IS_NEGATIVE
from fakeapi.machinery.validation.values import GoText, as_dict, as_int, go_quote

_PERCENT = re.compile(r"[0-9]+%")
NOT_GREATER_THAN_REPLICAS = "cannot be greater than status.replicas"


def nonnegative(value: Any, path: str) -> list[FieldError]:
    """ValidateNonnegativeField, for a field that is set (an unset one is its zero, which passes)."""
    number = as_int(value)
    return [fe.invalid(path, number, IS_NEGATIVE)] if number < 0 else []


def nonnegative_fields(obj: Any, path: str, *names: str) -> list[FieldError]:
    obj = as_dict(obj)
    return [error for name in names for error in nonnegative(obj.get(name), f"{path}.{name}")]


def _percent(value: Any) -> int | None:
    """The number of a valid percentage string (`25%`), else None."""
    if isinstance(value, str) and _PERCENT.fullmatch(value):
        return int(value[:-1])
    return None


def int_or_percent_value(value: Any) -> int:
    """getIntOrPercentValue: a percentage's number, an int, else 0 (intstr.IntValue of a non-number)."""
    percent = _percent(value)
    if percent is not None:
        return percent
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            return 0
    return 0


def go_int_or_string(value: Any) -> GoText:
    """An intstr.IntOrString as a field error prints it (`%#v`: it is no Stringer by value)."""
    if isinstance(value, str):
        return GoText(f"intstr.IntOrString{{Type:1, IntVal:0, StrVal:{go_quote(value)}}}")
    return GoText(f"intstr.IntOrString{{Type:0, IntVal:{as_int(value)}, StrVal:\"\"}}")


_PERCENT_ERROR = names.regex_error("a valid percent string must be a numeric string followed by an ending '%'",
                                   "[0-9]+%", "1%", "93%")


def validate_positive_int_or_percent(value: Any, path: str) -> list[FieldError]:
    """ValidatePositiveIntOrPercent: a valid percentage, or a non-negative integer."""
    if isinstance(value, str):
        return [] if _percent(value) is not None else [fe.invalid(path, go_int_or_string(value), _PERCENT_ERROR)]
    return nonnegative(value, path)


def not_more_than_100_percent(value: Any, path: str) -> list[FieldError]:
    percent = _percent(value)
    if percent is None or percent <= 100:
        return []
    return [fe.invalid(path, go_int_or_string(value), "must not be greater than 100%")]


def is_decremented(new: Any, old: Any) -> bool:
    """IsDecremented for optional counters (collisionCount): a set value may not go down or away."""
    if old is None:
        return False
    if new is None:
        return True
    return as_int(new) < as_int(old)


def replica_counts_not_above(status: Any, path: str, *names: str) -> list[FieldError]:
    """Each named count at most status.replicas."""
    status = as_dict(status)
    replicas = as_int(status.get("replicas"))
    return [fe.invalid(f"{path}.{name}", as_int(status.get(name)), NOT_GREATER_THAN_REPLICAS)
            for name in names if as_int(status.get(name)) > replicas]


def go_pointer(type_name: str, value: Any) -> str:
    """A pointer field inside a `%#v` struct literal: Go prints its address, which no client can know."""
    return f"(*{type_name})(nil)" if value is None else f"(*{type_name})(0xc000000000)"


def go_strategy(struct: str, strategy: Any, rolling_struct: str) -> GoText:
    """An update strategy struct (`apps.DeploymentStrategy{Type:"x", RollingUpdate:(*...)(nil)}`)."""
    strategy = as_dict(strategy)
    return GoText(f"{struct}{{Type:{go_quote(str(strategy.get('type') or ''))}, "
                  f"RollingUpdate:{go_pointer(rolling_struct, strategy.get('rollingUpdate'))}}}")
