"""What a kind's schema is compiled into: everything that reads the shape of its objects."""

from __future__ import annotations

from dataclasses import dataclass

from fakeapi.machinery.decode import DecodePlan, Decoder, structural_plan
from fakeapi.machinery.schema.patchtree import patch_tree
from fakeapi.machinery.schema.structural import Structural, zero_struct
from fakeapi.machinery.types import JSON


@dataclass(frozen=True, eq=False)
class CompiledSchema:
    """A definition compiled for the decoder, the patchers and managedFields. Shared by every server of
    the process (it is derived from package data only): treat its parts as read-only."""

    schema: Structural
    decode_plan: DecodePlan
    apply_plan: DecodePlan  # for applied configurations: fields neither dropped nor added
    patch_tree: JSON
    zero: JSON  # the Go zero value of the kind's struct, as encoding/json writes it

    @classmethod
    def of(cls, schema: Structural) -> CompiledSchema:
        return cls(schema, structural_plan(schema), structural_plan(schema, partial=True), patch_tree(schema),
                   zero_struct(schema))

    def decoder(self) -> Decoder:
        """A decoder of its own (without a memo of parts), for bodies that are not stored."""
        return Decoder(self.decode_plan)
