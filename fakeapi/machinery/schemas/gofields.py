"""The Go struct field behind each schema field, and what Go's encoding/json writes for it.

Upstream decodes a body into Go structs and encodes them again, so what it stores and returns depends
on two facts of each struct field. A schema field states them through `doc(...)` where the default is
wrong:

* `omitempty` (the json tag): by default, unless the field is `required`. Upstream's OpenAPI lists
  exactly the fields without omitempty as required, but for a few (`GRPCAction.service`,
  `Event.reportingComponent`...) which say `omitempty=False`.
* `pointer` (the Go type): by default a nested struct is a pointer (`*SecurityContext`) and a scalar,
  Time, Quantity or IntOrString is a value. `pointer=True` marks `*bool`, `*int64`, `*Time`...;
  `pointer=False` marks a value struct (`Container.resources`, `metadata`).

What encoding/json then writes:

* an omitempty value scalar, slice or map is dropped when empty (`""`, `0`, `false`, `[]`, `{}`);
* a pointer is written whenever it is set, even to an empty value (`securityContext: {}`); unset,
  it is dropped (omitempty) or written as null;
* a value struct is always written: unset, as its zero value, e.g. `resources: {}`; a zero Time is
  `null`, a zero Quantity `"0"`, a zero IntOrString `0`;
* a value scalar without omitempty is always written: unset, as `""`, `0` or `false`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from marshmallow import Schema, fields

from fakeapi.machinery.schemas.base import OMITEMPTY, POINTER, IntOrString, Quantity, Time

Shape = Literal["pointer", "struct", "slice", "map", "scalar"]


@dataclass(frozen=True, slots=True)
class GoField:
    omitempty: bool
    shape: Shape

    @property
    def drops_empty(self) -> bool:
        """Whether an empty value is left out (omitempty on a value that is not a struct)."""
        return self.omitempty and self.shape in ("scalar", "slice", "map")

    @property
    def always_written(self) -> bool:
        """Whether the field is written even when unset (as `zero_json` says)."""
        return self.shape == "struct" or not self.omitempty


def go_field(declared: fields.Field[Any]) -> GoField:
    """The Go struct field a schema field stands for."""
    metadata = declared.metadata
    omitempty = metadata.get(OMITEMPTY, not declared.required)
    pointer = metadata.get(POINTER)
    shape: Shape
    if pointer:
        shape = "pointer"
    elif isinstance(declared, fields.List):
        shape = "slice"
    elif isinstance(declared, fields.Dict):
        shape = "map"
    elif isinstance(declared, fields.Nested):
        shape = "pointer" if pointer is None else "struct"
    elif isinstance(declared, Time | Quantity | IntOrString):
        shape = "struct"
    else:
        shape = "scalar"
    return GoField(omitempty, shape)


def zero_json(declared: fields.Field[Any]) -> Any:
    """What encoding/json writes for the field's Go zero value (when the field is always written)."""
    shape = go_field(declared).shape
    if shape == "struct":
        if isinstance(declared, Time):
            return None
        if isinstance(declared, Quantity):
            return "0"
        if isinstance(declared, IntOrString):
            return 0
        assert isinstance(declared, fields.Nested)
        return zero_struct(nested_class(declared))
    if shape != "scalar":
        return None
    if isinstance(declared, fields.Boolean):
        return False
    if isinstance(declared, fields.Number):
        return 0
    return ""


def zero_struct(schema_class: type[Schema]) -> dict[str, Any]:
    """A zero value struct as encoding/json writes it: only its always-written fields."""
    return {
        declared.data_key or name: zero_json(declared)
        for name, declared in schema_class._declared_fields.items()
        if go_field(declared).always_written
    }


def nested_class(declared: fields.Nested) -> type[Schema]:
    nested = declared.nested
    if isinstance(nested, type) and issubclass(nested, Schema):
        return nested
    if isinstance(nested, Schema):
        return type(nested)
    return type(declared.schema)
