"""The control API's clock changes, as a marshmallow schema: loaded with the first change."""

from __future__ import annotations

from collections.abc import Callable
from types import UnionType
from typing import Any

from marshmallow import ValidationError, fields

from fakeapi.machinery.bodies import BodySchema


def _is(kind: type | UnionType, message: str) -> Callable[[Any], None]:
    """A validator of a JSON value's type: JSON's true is no number, 1 no boolean (unlike Python's)."""
    def check(value: Any) -> None:
        if isinstance(value, bool) != (kind is bool) or not isinstance(value, kind):
            raise ValidationError(message)
    return check


class ClockChangeSchema(BodySchema):
    """POST /fakeapi/v1/clock: `{"frozen": bool, "now": RFC 3339 time, "advanceSeconds": number}`."""

    what = "clock"
    frozen = fields.Raw(allow_none=True, validate=_is(bool, "frozen must be true or false"))
    now = fields.Raw(allow_none=True)  # checked by _parse_time, with the clock's own message
    advance = fields.Raw(data_key="advanceSeconds", allow_none=True,
                         validate=_is(int | float, "advanceSeconds must be a number"))

    def load_body(self, body: Any) -> Any:
        if not isinstance(body, dict):
            raise ValueError("the clock body must be a JSON object")
        return super().load_body(body)


CLOCK_CHANGE = ClockChangeSchema()
