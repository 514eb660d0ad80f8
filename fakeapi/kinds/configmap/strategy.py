"""ConfigMap strategy (upstream pkg/registry/core/configmap): no server-owned fields, unconditional updates."""

from __future__ import annotations

from fakeapi.kinds.configmap.validation import validate_config_map, validate_config_map_update
from fakeapi.kinds.strategy import Strategy
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON


def drop_empty_maps(obj: JSON, *keys: str) -> None:
    """Go writes an empty map field with omitempty as nothing: `data: {}` reads back without `data`."""
    for key in keys:
        if key in obj and not obj[key]:
            del obj[key]


class ConfigMapStrategy(Strategy):
    validation_covers_object_meta = True  # validate_config_map checks ObjectMeta with DNS names

    def default(self, obj: JSON) -> None:
        drop_empty_maps(obj, "data", "binaryData")

    def validate(self, obj: JSON) -> list[FieldError]:
        return validate_config_map(obj)

    def validate_update(self, new: JSON, old: JSON) -> list[FieldError]:
        return validate_config_map_update(new, old)
