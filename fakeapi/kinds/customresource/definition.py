"""Reading a CustomResourceDefinition (apiextensions.k8s.io/v1, wire-shaped): what serving one version of its
custom resources needs."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from fakeapi.machinery.types import JSON

_KUBE_VERSION = re.compile(r"^v([1-9][0-9]*)(?:(alpha|beta)([1-9][0-9]*))?$")


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


def version_priority(version: str) -> tuple[int, int, int, str]:
    """Sort key of kube-aware version order (upstream's version.CompareKubeAwareVersionStrings), highest
    first: v10, v2, v1, v11beta2, v10beta3, v3beta1, v12alpha1, v11alpha2, foo1, foo10."""
    match = _KUBE_VERSION.match(version)
    if match is None:
        return (3, 0, 0, version)
    major, stage, minor = match.groups()
    rank = {None: 0, "beta": 1, "alpha": 2}[stage]
    return (rank, -int(major), -int(minor or 0), "")


def openapi_name(group: str, version: str, kind: str) -> str:
    """The definition name upstream publishes a custom resource under: its group reversed, e.g.
    `com.example.stable.v1.CronTab` for stable.example.com/v1."""
    return ".".join([*reversed(group.split(".")), version, kind])
