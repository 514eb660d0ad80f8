"""Bounds on what a client may send: the body size and how deep its objects and arrays may nest."""

from __future__ import annotations

from typing import Any

import orjson

MAX_BODY_BYTES = 3 * 1024 * 1024
"""Upstream's request body limit (`MaxRequestBodyBytes`); a decoded YAML document is held to it too."""

MAX_DEPTH = 100
"""How deep objects and arrays may nest in a request body. Upstream's decoders allow 10000, but the
Python that handles a body (patches, copies, orjson's encoder, which stops at 255 levels) needs a bound
well below that, and no Kubernetes object comes near 100."""

_CONTAINERS = (dict, list)
_SHOWN_SEGMENTS = 10  # of the path named in a nesting error: enough to name the field


def load_json(raw: bytes) -> Any:
    """`raw` parsed as JSON within MAX_DEPTH; ValueError (with the parser's reason) otherwise."""
    value = orjson.loads(raw)  # its JSONDecodeError is a ValueError
    error = nesting_error(value, raw)
    if error is not None:
        raise ValueError(error)
    return value


def nesting_error(value: Any, raw: bytes | None = None) -> str | None:
    """None when `value` nests objects and arrays at most MAX_DEPTH deep, else where it goes deeper:
    `exceeded max depth of 100 at spec.volumes[0].flexVolume.a.a.a.a.a.a ...`.

    `raw`, the JSON text of `value`, lets most bodies skip the walk: every level but the last is a
    container with something in it, so a text with fewer brackets than MAX_DEPTH, not counting the
    empty objects `{}` (managedFields are full of them), cannot nest deeper.
    """
    if raw is not None and raw.count(b"{") - raw.count(b"{}") + raw.count(b"[") < MAX_DEPTH:
        return None
    if not _too_deep(value):
        return None
    return f"exceeded max depth of {MAX_DEPTH} at {_path_text(_first_too_deep(value))}"


def _too_deep(value: Any) -> bool:
    """Level by level, without paths: twice as fast as a walk that keeps them (this runs on writes)."""
    level = [value] if type(value) in _CONTAINERS else []
    for _ in range(MAX_DEPTH):
        below = []
        for node in level:
            for child in node.values() if type(node) is dict else node:
                if type(child) is dict or type(child) is list:
                    below.append(child)
        if not below:
            return False
        level = below
    return True


def _first_too_deep(value: Any) -> Any:
    """The path (a linked list of (key or index, parent path)) of a container below MAX_DEPTH, in a
    value `_too_deep` found too deep."""
    stack: list[tuple[Any, int, Any]] = [(value, 1, None)]
    while stack:
        node, depth, path = stack.pop()
        for key, child in (node.items() if type(node) is dict else enumerate(node)):
            if type(child) in _CONTAINERS:
                if depth == MAX_DEPTH:
                    return (key, path)
                stack.append((child, depth + 1, (key, path)))
    raise AssertionError("no container below MAX_DEPTH")


def _path_text(path: Any) -> str:
    segments: list[str | int] = []
    while path is not None:
        segments.append(path[0])
        path = path[1]
    segments.reverse()
    text = ""
    for segment in segments[:_SHOWN_SEGMENTS]:
        text += f"[{segment}]" if type(segment) is int else f".{segment}" if text else str(segment)
    return text + " ..." if len(segments) > _SHOWN_SEGMENTS else text
