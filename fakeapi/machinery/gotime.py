"""Go's time.Parse of an RFC3339 time, as apimachinery's Time and MicroTime decode one: the canonical form
upstream writes back (UTC; seconds, or microseconds), or Go's exact error message."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import orjson

from fakeapi.machinery.clock import rfc3339, rfc3339_micro

RFC3339_LAYOUT = "2006-01-02T15:04:05Z07:00"
# Already as upstream writes it, with every part in range (days past the 28th take the slow path).
_IN_RANGE = r"[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|1[0-9]|2[0-8])T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]"
_CANONICAL_TIME = re.compile(_IN_RANGE + "Z")
_CANONICAL_MICRO_TIME = re.compile(_IN_RANGE + r"\.[0-9]{6}Z")
# Go's time.Parse walks the layout element by element; these mirror the elements of RFC3339.
_TIME_ELEMENTS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (element, re.compile(pattern))
    for element, pattern in (
        ("2006", r"[0-9]{4}"),
        ("-", "-"),
        ("01", r"[0-9]{2}"),
        ("-", "-"),
        ("02", r"[0-9]{2}"),
        ("T", "T"),
        ("15", r"[0-9]{1,2}"),
        (":", ":"),
        ("04", r"[0-9]{2}"),
        (":", ":"),
        ("05", r"[0-9]{2}(?:\.[0-9]+)?"),
        ("Z07:00", r"Z|[+-][0-9]{2}:[0-9]{2}"),
    )
)


def _go_quote(text: str) -> str:
    return orjson.dumps(text).decode()


def _time_format_error(value: str) -> str:
    rest = value
    for element, pattern in _TIME_ELEMENTS:
        match = pattern.match(rest)
        if match is None:
            return (
                f"parsing time {_go_quote(value)} as {_go_quote(RFC3339_LAYOUT)}: "
                f"cannot parse {_go_quote(rest)} as {_go_quote(element)}"
            )
        rest = rest[match.end() :]
    return f"parsing time {_go_quote(value)}: extra text: {_go_quote(rest)}"


_TIME = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{1,2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]+))?"
    r"(Z|([+-])([0-9]{2}):([0-9]{2}))"
)


def canonical_time(value: str, micro: bool = False) -> str:
    """An RFC3339 time as upstream writes it back (UTC; seconds, or microseconds for MicroTime).

    Raises ValueError with the message Go's time.Parse gives for a malformed value.
    """
    if (_CANONICAL_MICRO_TIME if micro else _CANONICAL_TIME).fullmatch(value):
        return value
    match = _TIME.fullmatch(value)
    if match is None:
        raise ValueError(_time_format_error(value))
    year, month, day, hour, minute, second = (int(part) for part in match.group(1, 2, 3, 4, 5, 6))
    fraction = (match.group(7) or "")[:6].ljust(6, "0")
    for name, number, low, high in (
        ("month", month, 1, 12),
        ("hour", hour, 0, 23),
        ("minute", minute, 0, 59),
        ("second", second, 0, 59),
    ):
        if not low <= number <= high:
            raise ValueError(f"parsing time {_go_quote(value)}: {name} out of range")
    try:
        parsed = datetime(year, month, day, hour, minute, second, int(fraction), tzinfo=UTC)
    except ValueError:
        raise ValueError(f"parsing time {_go_quote(value)}: day out of range") from None
    if match.group(8) != "Z":
        sign = 1 if match.group(9) == "+" else -1
        try:
            parsed -= sign * timedelta(hours=int(match.group(10)), minutes=int(match.group(11)))
        except OverflowError:  # Go writes years 0 and 10000 in UTC; Python's datetime cannot
            raise ValueError(f"parsing time {_go_quote(value)}: year out of range") from None
    return rfc3339_micro(parsed) if micro else rfc3339(parsed)
