"""Large patches are applied off the event loop: the patch of a body over OFF_LOOP_BYTES is computed in a
worker thread against the object as it is when the request starts, and the update then runs on the loop as
every write does. Computing a 3 MiB strategic merge patch takes a good part of a second; other requests are
answered meanwhile. An object changed in between is patched afresh, on the loop, as upstream's update
retries against the latest version."""

from __future__ import annotations

import asyncio
from typing import Any

from fakeapi.http.bodies import OFF_LOOP_BYTES
from fakeapi.machinery.types import JSON
from fakeapi.registry.generic import Patcher, Registry
from fakeapi.registry.scale import ScaleRegistry


async def computed_ahead(registry: Registry | ScaleRegistry, namespace: str, name: str, patcher: Patcher,
                         patch: Any, body_size: int) -> Patcher:
    """`patcher` itself for a small body; for a large one, a patcher that hands back what a worker thread
    computed, if the object is still the version it was computed against."""
    if body_size <= OFF_LOOP_BYTES:
        return patcher
    current = registry.get(namespace, name)
    result: JSON | None = await asyncio.to_thread(patcher, current, patch)
    version = current["metadata"].get("resourceVersion")

    def ahead(obj: JSON, body: Any) -> JSON:
        nonlocal result
        patched, result = result, None  # (handed out once: the update pipeline changes it)
        if patched is not None and body is patch and obj["metadata"].get("resourceVersion") == version:
            return patched
        return patcher(obj, body)

    return ahead
