"""What a pod's containers ask for in total, by upstream's resourcehelper.AggregateContainerRequests and
AggregateContainerLimits: one function for defaulting, validation and the simulated scheduler and kubelet."""

from __future__ import annotations

from typing import Any

from fakeapi.machinery.quantity import Quantity, add_quantities, parse
from fakeapi.machinery.types import JSON


def aggregate_containers(spec: JSON, kind: str = "requests") -> dict[str, Quantity]:
    """Regular containers and sidecars (restartable init containers) add up; a classic init container
    needs its own amount plus the sidecars started before it; the pod needs the larger of the two.
    `kind` is "requests" or "limits"; amounts that do not parse are left to validation."""
    total: dict[str, Quantity] = {}
    for container in _dicts(spec.get("containers")):
        _add_into(total, _amounts(container, kind))
    sidecars: dict[str, Quantity] = {}
    init_peak: dict[str, Quantity] = {}
    for container in _dicts(spec.get("initContainers")):
        own = _amounts(container, kind)
        if container.get("restartPolicy") == "Always":
            _add_into(total, own)
            _add_into(sidecars, own)
            running = sidecars
        else:
            running = dict(own)
            _add_into(running, sidecars)
        _max_into(init_peak, running)
    _max_into(total, init_peak)
    return total


def _dicts(items: Any) -> list[JSON]:
    return [item for item in items if isinstance(item, dict)] if isinstance(items, list) else []


def _amounts(container: JSON, kind: str) -> dict[str, Quantity]:
    resources = container.get("resources")
    resource_list = resources.get(kind) if isinstance(resources, dict) else None
    found: dict[str, Quantity] = {}
    if isinstance(resource_list, dict):
        for name, amount in resource_list.items():
            if isinstance(amount, str | int | float) and not isinstance(amount, bool):
                try:
                    found[name] = parse(amount)
                except ValueError:
                    continue
    return found


def _add_into(total: dict[str, Quantity], more: dict[str, Quantity]) -> None:
    for name, amount in more.items():
        previous = total.get(name)
        total[name] = amount if previous is None else add_quantities(previous, amount)


def _max_into(peak: dict[str, Quantity], more: dict[str, Quantity]) -> None:
    for name, amount in more.items():
        previous = peak.get(name)
        if previous is None or amount.nanos > previous.nanos:
            peak[name] = amount
