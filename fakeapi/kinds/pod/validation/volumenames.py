"""A pod spec with its volume names replaced by their positions: what the spec's checks depend on.

The ServiceAccount admission mounts a volume named `kube-api-access-<5 random characters>` in every pod
that has none, so no two pods share a spec. The spec checks and the create warnings see a volume's name
only through its own check (a DNS label) and through which names are equal (a repeated volume, the
mounts and devices that name a volume); the warnings not at all. So a spec whose volume names are
distinct DNS labels, each named by its mounts and devices, checks the same with the names replaced by
the volumes' positions, and pods made from one template share that form of their spec.
"""

from __future__ import annotations

from typing import Any

from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation import names

_CONTAINER_GROUPS = ("initContainers", "containers", "ephemeralContainers")
_NAMING_VOLUMES = ("volumeMounts", "volumeDevices")


def volumes_by_position(spec: JSON) -> JSON | None:
    """`spec` with each volume's name, in `volumes` and in the mounts and devices naming it, replaced by
    the volume's position ("0", "1"...). None when a name counts for more than that: one that is no DNS
    label or repeats, a mount or device naming no volume (errors then name the volumes as sent), or a
    generic ephemeral volume (the name of its claim is made from the volume's)."""
    volumes = spec.get("volumes")
    if volumes is None:
        return spec
    if type(volumes) is not list:
        return None
    positions: dict[str, str] = {}
    renamed_volumes: list[JSON] = []
    for volume in volumes:
        name = volume.get("name") if type(volume) is dict else None
        if (type(name) is not str or name in positions or names.is_dns1123_label(name)
                or volume.get("ephemeral") is not None):
            return None
        positions[name] = str(len(positions))
        renamed_volumes.append({**volume, "name": positions[name]})
    renamed: JSON = {**spec, "volumes": renamed_volumes}
    for group in _CONTAINER_GROUPS:
        if group in spec:
            containers = _containers_by_position(spec[group], positions)
            if containers is None:
                return None
            renamed[group] = containers
    return renamed


def _containers_by_position(containers: Any, positions: dict[str, str]) -> list[JSON] | None:
    if type(containers) is not list:
        return None
    renamed_containers: list[JSON] = []
    for container in containers:
        if type(container) is not dict:
            return None
        renamed = dict(container)
        for field in _NAMING_VOLUMES:
            if field not in container:
                continue
            items = container[field]
            if type(items) is not list:
                return None
            renamed_items: list[JSON] = []
            for item in items:
                name = item.get("name") if type(item) is dict else None
                if type(name) is not str or name not in positions:
                    return None
                renamed_items.append({**item, "name": positions[name]})
            renamed[field] = renamed_items
        renamed_containers.append(renamed)
    return renamed_containers
