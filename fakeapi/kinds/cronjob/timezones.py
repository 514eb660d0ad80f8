"""IANA time zones, as Go's time.LoadLocation finds them (the system's database, else the bundled `tzdata`,
as kube-apiserver embeds Go's)."""

from __future__ import annotations

import zoneinfo


def load_zone(name: str) -> zoneinfo.ZoneInfo | None:
    """The zone named so, or None when there is none (`UTC` and `Local` included as Go has them)."""
    if name in ("", "UTC"):
        return zoneinfo.ZoneInfo("UTC")
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return None
