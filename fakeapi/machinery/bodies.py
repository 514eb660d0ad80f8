"""fakeapi's own request bodies (the control API's, and the `fakeapi.dev/` annotations' JSON), declared as
marshmallow schemas: they check the types and unknown fields, and a failure is told in one line."""

from __future__ import annotations

from typing import Any

from marshmallow import RAISE, Schema, ValidationError

UNKNOWN = "Unknown field."


class BodySchema(Schema):
    """A body schema: unknown fields are errors, camelCase names are given as data_key."""

    class Meta:
        unknown = RAISE

    what = "body"  # how errors name the body: "unknown script fields: ..."

    def load_body(self, body: Any) -> Any:
        """The loaded body; ValueError with one line saying what is wrong (unknown fields first, then the
        first field in declaration order)."""
        if not isinstance(body, dict):
            raise ValueError(f"a {self.what} is a JSON object")
        try:
            return self.load(body)
        except ValidationError as error:
            raise ValueError(one_line(self, error)) from None


def one_line(schema: BodySchema, error: ValidationError) -> str:
    messages = error.messages if isinstance(error.messages, dict) else {"_schema": error.messages}
    unknown = sorted(name for name, found in messages.items() if found == [UNKNOWN])
    if unknown:
        return f"unknown {schema.what} fields: {', '.join(unknown)}"
    names = [field.data_key or name for name, field in schema.fields.items()] + ["_schema"]
    for name in names:
        if name in messages:
            found = messages[name]
            return str(found[0] if isinstance(found, list) else found)
    return str(next(iter(messages.values())))
