"""Type aliases shared by every module: wire-shaped JSON objects and store keys."""

from __future__ import annotations

from typing import Any, NamedTuple

JSON = dict[str, Any]


class ObjectKey(NamedTuple):
    """Where an object lives: its resource (plural), namespace ("" if cluster-scoped) and name."""

    resource: str
    namespace: str
    name: str
