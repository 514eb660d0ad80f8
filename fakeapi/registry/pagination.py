"""List pages: upstream's continue tokens, and each page cut from a consistent snapshot.

A token is base64url (unpadded) JSON `{"v":"meta.k8s.io/v1","rv":N,"start":"<key>\\u0000"}`, where the key
is the storage key relative to the list (`ns/name` across namespaces, `name` inside one). Every page of
a list is served at the first page's resourceVersion N: the store rebuilds the objects as they were at
N from today's objects and the change history. Once that history is gone the token is too old: 410,
with a fresh token (`rv: -1`) that continues at the latest version, as upstream's etcd layer answers.
"""

from __future__ import annotations

import base64
import binascii
import posixpath
import re
from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

import orjson

from fakeapi.machinery.errors import BadRequest, Expired
from fakeapi.machinery.jsonvalues import json_type_name
from fakeapi.machinery.types import JSON, ObjectKey

TOKEN_VERSION: Final = "meta.k8s.io/v1"
LATEST: Final = -1  # a token's rv when the list continues at the latest version
_BASE64URL: Final = re.compile(r"[A-Za-z0-9_-]*")

INCONSISTENT_CONTINUE: Final = (
    "The provided continue parameter is too old to display a consistent list result. You can start a new "
    "list without the continue parameter, or use the continue token in this response to retrieve the "
    "remainder of the results. Continuing with the provided token results in an inconsistent list - "
    "objects that were created, modified, or deleted between the time the first chunk was returned and "
    "now may show up in the list."
)
LIST_TOO_OLD: Final = "The resourceVersion for the provided list is too old."


class ContinueExpired(Expired):
    """410 for a token whose snapshot is gone; `metadata.continue` carries a token at the latest version."""

    def __init__(self, start: str) -> None:
        super().__init__(INCONSISTENT_CONTINUE)
        self.continue_token = encode_continue(start, LATEST)

    def to_status(self) -> JSON:
        status = super().to_status()
        status["metadata"] = {"continue": self.continue_token}
        return status


@dataclass(frozen=True)
class ContinueToken:
    resource_version: int  # LATEST (-1): continue at the latest version
    start: str  # the first relative key of the next page


@dataclass(frozen=True)
class Page:
    items: list[bytes]
    resource_version: int
    continue_token: str  # "" on the last page
    remaining: int | None  # remainingItemCount, only known without selectors


def encode_continue(start: str, resource_version: int) -> str:
    raw = orjson.dumps({"v": TOKEN_VERSION, "rv": resource_version, "start": start})
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def decode_continue(token: str) -> ContinueToken:
    """Parse a continue token; BadRequest `invalid continue token: ...` as upstream words it."""
    try:
        return _decode(token)
    except _InvalidKey as invalid:
        raise BadRequest(f"invalid continue token: continue key is not valid{invalid.detail}") from None


class _InvalidKey(Exception):
    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


def _decode(token: str) -> ContinueToken:
    valid = _BASE64URL.match(token)
    end = valid.end() if valid else 0
    if end < len(token):
        raise _InvalidKey(f": illegal base64 data at input byte {end}")
    if len(token) % 4 == 1:
        raise _InvalidKey(f": illegal base64 data at input byte {len(token) - 1}")
    try:
        data = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    except (binascii.Error, ValueError):
        raise _InvalidKey(": illegal base64 data at input byte 0") from None
    fields = _token_fields(data)
    version = fields.get("v") or ""
    if version != TOKEN_VERSION:
        raise _InvalidKey(f": server does not recognize this encoded version {version}")
    resource_version = fields.get("rv") or 0
    if resource_version == 0:
        raise _InvalidKey(": incorrect encoded start resourceVersion (version meta.k8s.io/v1)")
    start = fields.get("start") or ""
    if not start:
        raise _InvalidKey(": encoded start key empty (version meta.k8s.io/v1)")
    key = start if start.startswith("/") else "/" + start
    if _go_path_clean(key) != key:  # no climbing out of the listed range
        raise _InvalidKey(f": {start}")
    return ContinueToken(resource_version, key[1:])


_FIELD_TYPES: Final = {"v": (str, "string"), "rv": (int, "int64"), "start": (str, "string")}


def _token_fields(data: bytes) -> dict[str, Any]:
    """The token's JSON as Go's json.Unmarshal into the token struct reads it (unknown keys ignored)."""
    try:
        parsed = orjson.loads(data)
    except orjson.JSONDecodeError:
        raise _InvalidKey(": " + _json_syntax_error(data)) from None
    if not isinstance(parsed, dict):
        raise _InvalidKey(f": json: cannot unmarshal {json_type_name(parsed)} into Go value of type "
                          "storage.continueToken")
    fields: dict[str, Any] = {}
    for name, (expected, go_type) in _FIELD_TYPES.items():
        value = parsed.get(name)
        if value is None:
            continue
        if not isinstance(value, expected) or isinstance(value, bool):
            shown = json_type_name(value)
            if isinstance(value, float):
                shown = f"number {value:g}"
            raise _InvalidKey(f": json: cannot unmarshal {shown} into Go struct field "
                              f"continueToken.{name} of type {go_type}")
        fields[name] = value
    return fields




def _json_syntax_error(data: bytes) -> str:
    text = data.decode("utf-8", "replace").lstrip(" \t\r\n")
    if not text:
        return "unexpected end of JSON input"
    if text[0] not in '{["-0123456789tfn':
        return f"invalid character '{text[0]}' looking for beginning of value"
    return "unexpected end of JSON input"


def _go_path_clean(path: str) -> str:
    """Go's path.Clean for a rooted path (posixpath.normpath keeps a leading `//`, Clean does not)."""
    cleaned = posixpath.normpath(path)
    return "/" + cleaned.lstrip("/") if cleaned.startswith("//") else cleaned


# ---- pages


def relative_key(namespace: str, name: str, across_namespaces: bool) -> str:
    """The key upstream orders a list by, relative to the listed prefix."""
    return f"{namespace}/{name}" if across_namespaces and namespace else name


def cut_page(entries: Sequence[tuple[str, ObjectKey]], data_of: Callable[[ObjectKey], bytes],
             resource_version: int, limit: int, start: str = "",
             matches: Callable[[bytes], bool] | None = None) -> Page:
    """One page of `entries` ((relative key, key), sorted) from `start`, as etcd pages with a predicate.

    Up to `limit` matching items; a continue token whenever any key (matching or not) follows the
    last one returned; remainingItemCount only when nothing is filtered out.
    """
    first = bisect_left(entries, start, key=lambda entry: entry[0]) if start else 0
    items: list[bytes] = []
    if limit <= 0:
        for _relative, key in entries[first:]:
            data = data_of(key)
            if matches is None or matches(data):
                items.append(data)
        return Page(items, resource_version, "", None)
    index = first
    total = len(entries)
    while index < total and len(items) < limit:
        data = data_of(entries[index][1])
        if matches is None or matches(data):
            items.append(data)
        index += 1
    if len(items) < limit or index >= total:
        return Page(items, resource_version, "", None)
    token = encode_continue(entries[index - 1][0] + "\0", resource_version)
    remaining = total - first - limit if matches is None else None
    return Page(items, resource_version, token, remaining)
