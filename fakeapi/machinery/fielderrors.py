"""Field errors as upstream's apimachinery `field.Error`: what validation returns.

A FieldError renders exactly like upstream: `<field>: <Type>[: <value>][: <detail>]`,
and becomes one `details.causes` entry of a 422 Invalid Status.
"""

from __future__ import annotations

from dataclasses import dataclass
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
    INTERNAL: "Internal error",
}
# types whose message never prints the offending value
_NO_VALUE = {REQUIRED, FORBIDDEN, TOO_LONG, INTERNAL}

OMIT = object()
"""A bad value that is not printed (upstream's `field.OmitValueType`)."""


def _render_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
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


def forbidden(field: str, detail: str) -> FieldError:
    return FieldError(FORBIDDEN, field, OMIT, detail)


def internal(field: str, detail: str) -> FieldError:
    return FieldError(INTERNAL, field, OMIT, detail)


def too_long(field: str, max_length: int, detail: str = "") -> FieldError:
    return FieldError(TOO_LONG, field, OMIT, detail or f"may not be more than {max_length} bytes")


def too_many(field: str, actual: int, max_items: int) -> FieldError:
    return FieldError(TOO_MANY, field, actual, f"must have at most {max_items} items")
