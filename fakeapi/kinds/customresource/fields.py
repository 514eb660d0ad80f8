"""Field selectors of a custom resource: metadata.name (and metadata.namespace when namespaced), and the
version's selectableFields, each the text of the value its path finds ("" when none)."""

from __future__ import annotations

from typing import Any

from fakeapi.machinery.fieldselectors import FieldLabels
from fakeapi.machinery.jsonpath import JsonPath
from fakeapi.machinery.types import JSON


def custom_resource_labels(selectable: list[str], namespaced: bool) -> FieldLabels:
    paths = [(path.removeprefix("."), JsonPath(path)) for path in selectable]

    def fields_of(obj: JSON) -> dict[str, str]:
        meta = obj.get("metadata") or {}
        fields = {"metadata.name": meta.get("name") or ""}
        if namespaced:
            fields["metadata.namespace"] = meta.get("namespace") or ""
        for name, path in paths:
            fields[name] = _text(path.first(obj))
        return fields

    supported = frozenset(["metadata.name", *(["metadata.namespace"] if namespaced else []),
                           *(name for name, _ in paths)])
    return FieldLabels(fields_of, supported=supported)


def _text(value: Any) -> str:
    """Go's fmt.Sprint of the value."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)

