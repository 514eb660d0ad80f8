"""Namespace Table columns: upstream v1.32 `printNamespace`, as paths into the object."""

from __future__ import annotations

from fakeapi.machinery.tables.columns import AGE_COLUMN, NAME_COLUMN, Column, PathColumn, path_printer

NAMESPACE_PRINTER = path_printer((
    PathColumn(NAME_COLUMN, ".metadata.name", missing=""),
    PathColumn(Column("Status", "string", "", 0, "The status of the namespace"), ".status.phase", missing=""),
    PathColumn(AGE_COLUMN, ".metadata.creationTimestamp", age=True, missing="<unknown>"),
))
