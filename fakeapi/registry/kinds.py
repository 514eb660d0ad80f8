"""The kinds a server serves, changeable while it runs (a CustomResourceDefinition adds one).

Discovery, the OpenAPI documents, routing and storage read it at every request, so adding or removing a
kind is one call: `add(kind)` serves it at its group version (and its subresources), `remove(...)` stops
serving it (its stored objects stay where they are). Every change bumps `generation` and tells the
listeners, e.g. the OpenAPI documents, which are rebuilt when next asked for.
"""

from __future__ import annotations

from collections.abc import Callable

from fakeapi.kinds.kind import Kind, ResourceInfo
from fakeapi.machinery.types import JSON
from fakeapi.registry.generic import Registry
from fakeapi.registry.scale import ScaleRegistry

GroupVersionResource = tuple[str, str, str]
Listener = Callable[[], None]


class KindRegistry:
    def __init__(self, registry_for: Callable[[Kind], Registry]) -> None:
        self._registry_for = registry_for
        self._registries: dict[GroupVersionResource, Registry] = {}
        self._subresources: dict[tuple[str, str, str, str], Registry] = {}
        self._scales: dict[GroupVersionResource, ScaleRegistry] = {}
        self._listeners: list[Listener] = []
        self._published: dict[str, JSON] = {}  # the OpenAPI definitions served kinds bring (custom resources)
        self.generation = 0

    def add(self, kind: Kind) -> Registry:
        """Serve a kind (one call); ValueError if its group version already serves that resource."""
        info = kind.info
        key = (info.group, info.version, info.resource)
        if key in self._registries:
            raise ValueError(f"{info.resource} of {info.api_version} is served already")
        registry = self._registry_for(kind)
        self._registries[key] = registry
        for name in kind.subresource_strategies:
            self._subresources[(*key, name)] = registry.subresource(name)
        if kind.scale is not None:
            self._scales[key] = ScaleRegistry(registry.subresource("scale"), kind.scale)
        self._published.update(kind.published)
        self._changed()
        return registry

    def remove(self, group: str, version: str, resource: str) -> None:
        """Stop serving a resource (KeyError if it is not served)."""
        removed = self._registries.pop((group, version, resource))
        for name in removed.kind.published:
            self._published.pop(name, None)
        for key in [key for key in self._subresources if key[:3] == (group, version, resource)]:
            del self._subresources[key]
        self._scales.pop((group, version, resource), None)
        self._changed()

    def get(self, resource: str, group: str = "", version: str = "v1") -> Registry | None:
        return self._registries.get((group, version, resource))

    def subresource(self, resource: str, name: str, group: str = "", version: str = "v1") -> Registry | None:
        return self._subresources.get((group, version, resource, name))

    def scale(self, resource: str, group: str = "", version: str = "v1") -> ScaleRegistry | None:
        return self._scales.get((group, version, resource))

    def registries(self) -> list[Registry]:
        """Every served resource's registry, in the order they were added."""
        return list(self._registries.values())

    def infos(self) -> list[ResourceInfo]:
        return [registry.info for registry in self._registries.values()]

    def published(self, name: str) -> JSON | None:
        """An OpenAPI definition a served kind publishes beside upstream's (a custom resource's), or None."""
        return self._published.get(name)

    def listen(self, listener: Listener) -> None:
        """Be told of every change (after it is made)."""
        self._listeners.append(listener)

    def _changed(self) -> None:
        self.generation += 1
        for listener in self._listeners:
            listener()
