"""Parsing Accept headers as the apiserver's goautoneg does: media ranges, best first."""

from __future__ import annotations

from typing import NamedTuple


class MediaRange(NamedTuple):
    type: str
    subtype: str
    params: dict[str, str]
    q: float


def parse_accept(accept: str) -> list[MediaRange]:
    """Ranges by q (highest first), then concrete types before wildcards, otherwise in header order.
    Ranges with q=0 and unparsable ranges are dropped."""
    ranges: list[MediaRange] = []
    for part in accept.split(","):
        pieces = part.split(";")
        kind, slash, subtype = pieces[0].strip().lower().partition("/")
        if not slash:
            if kind != "*":
                continue
            subtype = "*"
        params: dict[str, str] = {}
        q = 1.0
        for piece in pieces[1:]:
            key, equals, value = piece.partition("=")
            if not equals:
                continue
            key, value = key.strip().lower(), value.strip().strip('"')
            if key == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
            else:
                params[key] = value
        if q > 0:
            ranges.append(MediaRange(kind, subtype.strip(), params, q))
    ranges.sort(key=lambda media: (-media.q, media.type == "*", media.subtype == "*"))
    return ranges
