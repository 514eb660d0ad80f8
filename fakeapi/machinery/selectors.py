"""The selector API handlers use: parse `labelSelector`/`fieldSelector` once, then match per object."""

from __future__ import annotations

from fakeapi.machinery.fieldselectors import FieldLabels, FieldSelector, parse_field_selector
from fakeapi.machinery.labels import LabelSelector, parse_label_selector

__all__ = [
    "FieldLabels",
    "FieldSelector",
    "LabelSelector",
    "parse_field_selector",
    "parse_label_selector",
]
