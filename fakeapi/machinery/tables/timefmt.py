"""Ages for Table cells: upstream's HumanDuration and the "since timestamp" helpers around it."""

from __future__ import annotations

import re
from datetime import UTC, datetime

UNKNOWN = "<unknown>"

# fromisoformat on 3.11 takes at most 6 fractional digits; MicroTime from other clients may carry 9
_LONG_FRACTION = re.compile(r"(\.\d{6})\d+")


def human_duration(seconds: float) -> str:
    """apimachinery `duration.HumanDuration`: about 2-3 significant figures, Go's truncating ints."""
    whole = int(seconds)
    if whole < -1:
        return "<invalid>"
    if whole < 0:
        return "0s"
    if whole < 120:
        return f"{whole}s"
    minutes = whole // 60
    if minutes < 10:
        rest = whole % 60
        return f"{minutes}m" if rest == 0 else f"{minutes}m{rest}s"
    if minutes < 60 * 3:
        return f"{minutes}m"
    hours = whole // 3600
    if hours < 8:
        rest = minutes % 60
        return f"{hours}h" if rest == 0 else f"{hours}h{rest}m"
    if hours < 48:
        return f"{hours}h"
    days = hours // 24
    if hours < 24 * 8:
        rest = hours % 24
        return f"{days}d" if rest == 0 else f"{days}d{rest}h"
    if hours < 24 * 365 * 2:
        return f"{days}d"
    years = days // 365
    if hours < 24 * 365 * 8:
        rest = days % 365
        return f"{years}y" if rest == 0 else f"{years}y{rest}d"
    return f"{years}y"


def parse_time(value: object) -> datetime | None:
    """A wire `Time`/`MicroTime` as an aware datetime; None for unset (Go's zero time) or unreadable."""
    if not isinstance(value, str) or not value:
        return None
    text = value[:-1] + "+00:00" if value.endswith(("Z", "z")) else value
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        try:
            parsed = datetime.fromisoformat(_LONG_FRACTION.sub(r"\1", text))
        except ValueError:
            return None
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def aware(now: datetime) -> datetime:
    return now if now.tzinfo is not None else now.replace(tzinfo=UTC)


def since(when: datetime | None, now: datetime) -> str:
    """Upstream `translateTimestampSince`: `<unknown>` for the zero time, else the human age."""
    if when is None:
        return UNKNOWN
    return human_duration((now - when).total_seconds())


def age(value: object, now: datetime) -> str:
    return since(parse_time(value), now)
