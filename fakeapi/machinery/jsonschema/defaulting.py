"""Defaulting (upstream's structural defaulting): a missing field, or a null one that is not nullable, takes its
schema's `default`; then the nulls that are neither nullable nor defaulted are dropped."""

from __future__ import annotations

from typing import Any

from fakeapi.machinery.jsonschema.schema import NO_DEFAULT, Schema
from fakeapi.machinery.jsonvalues import copy_json


def has_defaults(schema: Schema) -> bool:
    """Whether defaulting can change anything (most schemas have no default: their objects are left alone)."""
    if schema.default is not NO_DEFAULT:
        return True
    children = [*schema.properties.values(), schema.additional, schema.items]
    return any(child is not None and has_defaults(child) for child in children)


def apply_defaults(value: Any, schema: Schema | None) -> None:
    """Fill in the defaults below `value` (in place)."""
    if schema is None:
        return
    if isinstance(value, dict):
        for key, prop in schema.properties.items():
            if prop.default is NO_DEFAULT:
                continue
            if key not in value or _non_nullable_null(value[key], prop):
                value[key] = copy_json(prop.default)
        for key in value:
            declared = schema.properties.get(key)
            if declared is not None:
                apply_defaults(value[key], declared)
            elif schema.additional is not None:
                values = schema.additional
                if _non_nullable_null(value[key], values) and values.default is not NO_DEFAULT:
                    value[key] = copy_json(values.default)
                apply_defaults(value[key], values)
    elif isinstance(value, list) and schema.items is not None:
        items = schema.items
        for index, item in enumerate(value):
            if _non_nullable_null(item, items) and items.default is not NO_DEFAULT:
                value[index] = copy_json(items.default)
            apply_defaults(value[index], items)


def _non_nullable_null(value: Any, schema: Schema) -> bool:
    return value is None and not schema.nullable


def prune_nulls(value: Any, schema: Schema | None) -> None:
    """Drop the nulls of fields that are not nullable and have no default (upstream's
    PruneNonNullableNullsWithoutDefaults)."""
    if isinstance(value, dict):
        for key in list(value):
            child = schema.child(key) if schema is not None else None
            item = value[key]
            if item is None and child is not None and not child.nullable and child.default is NO_DEFAULT:
                del value[key]
            else:
                prune_nulls(item, child)
    elif isinstance(value, list):
        items = schema.items if schema is not None else None
        for item in value:
            prune_nulls(item, items)
