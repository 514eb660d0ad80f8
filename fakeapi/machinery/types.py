"""Type aliases shared by every module: wire-shaped JSON objects and store keys."""

from __future__ import annotations

from typing import Any, NamedTuple

JSON = dict[str, Any]


class ObjectKey(NamedTuple):
    """Where an object lives: its group resource (the plural qualified by its API group, as upstream
    writes a GroupResource: `pods`, `leases.coordination.k8s.io`), namespace ("" if cluster-scoped) and name."""

    resource: str
    namespace: str
    name: str
