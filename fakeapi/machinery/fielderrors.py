"""Field errors as upstream's apimachinery `field.Error`: what validation returns.

A FieldError renders exactly like upstream: `<field>: <Type>[: <value>][: <detail>]`,
and becomes one `details.causes` entry of a 422 Invalid Status.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import orjson

# reason (the cause's `reason`) -> the type string printed in messages
REQUIRED = "FieldValueRequired"
INVALID = "FieldValueInvalid"
NOT_SUPPORTED = "FieldValueNotSupported"
DUPLICATE = "FieldValueDuplicate"
NOT_FOUND = "FieldValueNotFound"
FORBIDDEN = "FieldValueForbidden"
TOO_LONG = "FieldValueTooLong"
TOO_MANY = "FieldValueTooMany"
TYPE_INVALID = "FieldValueTypeInvalid"
INTERNAL = "InternalError"

_TYPE_TEXT = {
    REQUIRED: "Required value",
    INVALID: "Invalid value",
    NOT_SUPPORTED: "Unsupported value",
    DUPLICATE: "Duplicate value",
    NOT_FOUND: "Not found",
    FORBIDDEN: "Forbidden",
    TOO_LONG: "Too long",
    TOO_MANY: "Too many",
    TYPE_INVALID: "Invalid value",
    INTERNAL: "Internal error",
}
# types whose message never prints the offending value
_NO_VALUE = {REQUIRED, FORBIDDEN, TOO_LONG, INTERNAL}

OMIT = object()
"""A bad value that is not printed (upstream's `field.OmitValueType`)."""


@dataclass(frozen=True)
class GoSyntax:
    """A bad value upstream prints with Go's %#v (a []byte is `[]byte{0x2d, 0x2d}`), as printed."""

    text: str

    @classmethod
    def of_bytes(cls, data: bytes) -> GoSyntax:
        return cls("[]byte{" + ", ".join(f"0x{byte:x}" for byte in data) + "}")


def go_float(value: float) -> str:
    """Go's %v of a float64 (strconv's shortest 'g'): 10, 1.5, 100000, 1e+06, 1.5e-05."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if value == 0:
        return "0"
    sign, digit_tuple, exponent = Decimal(repr(float(value))).normalize().as_tuple()
    assert isinstance(exponent, int)
    digits = "".join(map(str, digit_tuple))
    point = len(digits) + exponent  # where the decimal point falls
    text_sign = "-" if sign else ""
    if point - 1 < -4 or point - 1 >= 6:
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        power = point - 1
        return f"{text_sign}{mantissa}e{'-' if power < 0 else '+'}{abs(power):02d}"
    if point <= 0:
        return f"{text_sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return text_sign + digits + "0" * (point - len(digits))
    return f"{text_sign}{digits[:point]}.{digits[point:]}"


def _render_value(value: Any) -> str:
    if isinstance(value, GoSyntax):
        return value.text
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return go_float(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return orjson.dumps(value).decode()
    if value is None:
        return "null"
    return orjson.dumps(value).decode()


@dataclass(frozen=True)
class FieldError:
    reason: str
    field: str
    value: Any = OMIT
    detail: str = ""
    warning: bool = False  # ratcheted: reported as a Warning header, not refused (see `as_warning`)

    def body(self) -> str:
        """The message without the field path: `Invalid value: "x": detail`."""
        text = _TYPE_TEXT[self.reason]
        if self.reason not in _NO_VALUE and self.value is not OMIT:
            text = f"{text}: {_render_value(self.value)}"
        if self.detail:
            text = f"{text}: {self.detail}"
        return text

    def __str__(self) -> str:
        return f"{self.field}: {self.body()}" if self.field else self.body()

    def to_cause(self) -> dict[str, str]:
        return {"reason": self.reason, "message": self.body(), "field": self.field}


def as_warning(error: FieldError) -> FieldError:
    """An error validation ratcheting lets through: the request succeeds with it as a warning."""
    return FieldError(error.reason, error.field, error.value, error.detail, warning=True)


def required(field: str, detail: str = "") -> FieldError:
    return FieldError(REQUIRED, field, OMIT, detail)


def invalid(field: str, value: Any, detail: str = "") -> FieldError:
    return FieldError(INVALID, field, value, detail)


def not_supported(field: str, value: Any, supported: list[str]) -> FieldError:
    detail = "supported values: " + ", ".join(orjson.dumps(s).decode() for s in supported) if supported else ""
    return FieldError(NOT_SUPPORTED, field, value, detail)


def duplicate(field: str, value: Any) -> FieldError:
    return FieldError(DUPLICATE, field, value)


def not_found(field: str, value: Any) -> FieldError:
    return FieldError(NOT_FOUND, field, value)


def type_invalid(field: str, value: Any, detail: str) -> FieldError:
    return FieldError(TYPE_INVALID, field, value, detail)


def too_many(field: str, actual: int, maximum: int) -> FieldError:
    return FieldError(TOO_MANY, field, actual if actual >= 0 else OMIT,
                      f"must have at most {maximum} items" if maximum >= 0 else "has too many items")


def forbidden(field: str, detail: str) -> FieldError:
    return FieldError(FORBIDDEN, field, OMIT, detail)


def internal(field: str, detail: str) -> FieldError:
    return FieldError(INTERNAL, field, OMIT, detail)


def too_long(field: str, max_length: int, detail: str = "") -> FieldError:
    return FieldError(TOO_LONG, field, OMIT, detail or f"may not be more than {max_length} bytes")

