"""ControllerRevision strategy (upstream pkg/registry/apps/controllerrevision/strategy.go): no status, no
generation; data and revision are the writer's, and data never changes."""

from __future__ import annotations

from fakeapi.kinds.controllerrevision.validation import (
    validate_controller_revision,
    validate_controller_revision_update,
)
from fakeapi.kinds.strategy import Strategy
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON


class ControllerRevisionStrategy(Strategy):
    validation_covers_object_meta = True

    def reset_fields(self) -> tuple[str, ...]:
        return ()

    def validate(self, obj: JSON) -> list[FieldError]:
        return validate_controller_revision(obj)

    def validate_update(self, new: JSON, old: JSON) -> list[FieldError]:
        return validate_controller_revision_update(new, old)
