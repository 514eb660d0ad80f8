"""Reading a CustomResourceDefinition (apiextensions.k8s.io/v1, wire-shaped): what serving one version of its
custom resources needs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fakeapi.machinery.types import JSON


@dataclass(frozen=True)
class Names:
    plural: str
    singular: str
    kind: str
    list_kind: str
    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()

    @classmethod
    def of(cls, names: Any) -> Names:
        names = names if isinstance(names, dict) else {}
        return cls(str(names.get("plural") or ""), str(names.get("singular") or ""), str(names.get("kind") or ""),
                   str(names.get("listKind") or ""), tuple(names.get("shortNames") or ()),
                   tuple(names.get("categories") or ()))


def versions(crd: JSON) -> list[JSON]:
    value = (crd.get("spec") or {}).get("versions")
    return [version for version in value if isinstance(version, dict)] if isinstance(value, list) else []


def storage_version(crd: JSON) -> str:
    for version in versions(crd):
        if version.get("storage"):
            return str(version.get("name") or "")
    return ""


def schema_of(version: JSON) -> JSON | None:
    schema = (version.get("schema") or {}).get("openAPIV3Schema")
    return schema if isinstance(schema, dict) else None


def subresources_of(version: JSON) -> JSON:
    subresources = version.get("subresources")
    return subresources if isinstance(subresources, dict) else {}


def condition(crd: JSON, kind: str) -> JSON | None:
    for found in (crd.get("status") or {}).get("conditions") or []:
        if isinstance(found, dict) and found.get("type") == kind:
            return found
    return None


def is_true(crd: JSON, kind: str) -> bool:
    found = condition(crd, kind)
    return found is not None and found.get("status") == "True"


def openapi_name(group: str, version: str, kind: str) -> str:
    """The definition name upstream publishes a custom resource under: its group reversed, e.g.
    `com.example.stable.v1.CronTab` for stable.example.com/v1."""
    return ".".join([*reversed(group.split(".")), version, kind])
