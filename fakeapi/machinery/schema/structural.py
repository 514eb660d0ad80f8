"""A compiled schema: the OpenAPI schema of a kind, its references resolved, as the decoder, the patch
machinery, managedFields and Go's encoding rules read it.

A `Structural` is one schema node (an object with its fields, an array, a map or a scalar); a `Field` is
one property of an object, with what upstream publishes beside its schema (description, `x-kubernetes-*`)
and what the Go struct field behind it adds (`GoField`: its shape and json tag; its protobuf number).
Nodes of a named definition are shared by every field of that type, so a recursive definition is a
cycle, not an infinite tree.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Shape = Literal["pointer", "struct", "slice", "map", "scalar"]

# the definitions of the Go types that encode as a JSON scalar of their own
QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"
INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"
TIME = "io.k8s.apimachinery.pkg.apis.meta.v1.Time"
MICRO_TIME = "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime"
FIELDS_V1 = "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1"
RAW_EXTENSION = "io.k8s.apimachinery.pkg.runtime.RawExtension"
# ... and what each writes for its Go zero value
_ZERO_OF_SCALAR_STRUCT: Mapping[str, Any] = {QUANTITY: "0", INT_OR_STRING: 0, TIME: None, MICRO_TIME: None}


@dataclass(frozen=True, slots=True)
class GoField:
    """The Go struct field behind a property: what encoding/json writes for it.

    * an omitempty value scalar, slice or map is dropped when empty (`""`, `0`, `false`, `[]`, `{}`);
    * a pointer is written whenever it is set, even to an empty value (`securityContext: {}`); unset,
      it is dropped (omitempty) or written as null;
    * a value struct is always written: unset, as its zero value (`resources: {}`; a zero Time is
      `null`, a zero Quantity `"0"`, a zero IntOrString `0`);
    * a value scalar without omitempty is always written: unset, as `""`, `0` or `false`.
    """

    shape: Shape
    omitempty: bool

    @property
    def drops_empty(self) -> bool:
        return self.omitempty and self.shape in ("scalar", "slice", "map")

    @property
    def always_written(self) -> bool:
        return self.shape == "struct" or not self.omitempty

    @classmethod
    def parse(cls, tag: str) -> GoField:
        """From the definitions' `x-go` (`pointer`, `slice,omitempty`...)."""
        shape, _, rest = tag.partition(",")
        assert shape in ("pointer", "struct", "slice", "map", "scalar"), tag
        return cls(shape, rest == "omitempty")  # type: ignore[arg-type]


@dataclass(eq=False, slots=True)
class Structural:
    """One schema node. `type` is "" for a node that says nothing of its value (free-form)."""

    type: str = ""
    format: str = ""
    name: str = ""  # the definition's name, e.g. io.k8s.api.core.v1.PodSpec, for a named definition
    description: str = ""
    properties: dict[str, Field] = field(default_factory=dict)
    items: Structural | None = None
    additional: Structural | None = None  # additionalProperties: the values of a map
    required: tuple[str, ...] = ()
    extensions: dict[str, Any] = field(default_factory=dict)  # x-kubernetes-*
    # protobuf number -> the fields of a struct this one inlines in JSON but nests in protobuf (Volume's
    # VolumeSource); their `protobuf` numbers are that nested message's
    protobuf_inline: dict[int, tuple[str, ...]] = field(default_factory=dict)
    # protobuf number -> the property it holds, for the fields of this message (the inlined ones aside)
    protobuf_fields: dict[int, str] = field(default_factory=dict)

    @property
    def go_struct(self) -> str:
        """The Go struct's name as decode errors print it (`PodSpec`)."""
        return self.name.rsplit(".", 1)[-1]

    @property
    def go_type(self) -> str:
        """The Go type as decode errors print it: `v1.PodSpec`, `[]v1.Container`, `string`..."""
        if self.name:
            package = self.name.rsplit(".", 2)[-2]
            return f"{'intstr' if self.name == INT_OR_STRING else 'resource' if self.name == QUANTITY else package}." \
                   f"{self.go_struct}"
        if self.type == "array" and self.items is not None:
            return "[]" + self.items.go_type
        return {"string": "string", "boolean": "bool", "number": "float64"}.get(
            self.type, "int32" if self.format == "int32" else "int64" if self.type == "integer" else "")


@dataclass(eq=False, slots=True)
class Field:
    """A property of an object schema."""

    schema: Structural
    description: str = ""
    go: GoField | None = None  # None where no Go struct stands behind (a custom resource's schema)
    protobuf: int = 0
    extensions: dict[str, Any] = field(default_factory=dict)  # x-kubernetes-* beside a reference

    def extension(self, key: str) -> Any:
        """An `x-kubernetes-*` fact of the field: stated beside its reference, or by its schema."""
        if key in self.extensions:
            return self.extensions[key]
        return self.schema.extensions.get(key)

    def zero_json(self) -> Any:
        """What encoding/json writes for the field's Go zero value (when it is always written)."""
        assert self.go is not None
        schema = self.schema
        if self.go.shape == "struct":
            if schema.name in _ZERO_OF_SCALAR_STRUCT:
                return _ZERO_OF_SCALAR_STRUCT[schema.name]
            return zero_struct(schema)
        if self.go.shape != "scalar":
            return None
        if schema.type == "boolean":
            return False
        if schema.type in ("integer", "number"):
            return 0
        if schema.format == "byte":
            return None  # a nil []byte
        return ""


def zero_struct(schema: Structural) -> dict[str, Any]:
    """A zero value struct as encoding/json writes it: only its always-written fields."""
    return {name: prop.zero_json() for name, prop in schema.properties.items()
            if prop.go is not None and prop.go.always_written}
