"""ConfigMap Table cells: upstream v1.32 `printConfigMap` (NAME, DATA, AGE)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fakeapi.machinery.tables.columns import AGE_COLUMN, NAME_COLUMN, Column, Printer
from fakeapi.machinery.tables.timefmt import age
from fakeapi.machinery.types import JSON


def config_map_cells(config_map: JSON, now: datetime) -> list[Any]:
    meta: JSON = config_map.get("metadata") or {}
    keys = len(config_map.get("data") or {}) + len(config_map.get("binaryData") or {})
    return [meta.get("name", ""), keys, age(meta.get("creationTimestamp"), now)]


_COLUMNS = (
    NAME_COLUMN,
    Column("Data", "string", "", 0,
           "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' "
           "or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data "
           "must not overlap with the keys in the BinaryData field, this is enforced during validation process."),
    AGE_COLUMN,
)

CONFIG_MAP_PRINTER = Printer(_COLUMNS, config_map_cells)
