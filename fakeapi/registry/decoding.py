"""Decoding a write's body into its kind, as upstream's create and update handlers do before anything
else: the body's apiVersion and kind must be the endpoint's (or absent), then the kind's decoder checks
its shape; unknown fields are dropped and reported per fieldValidation (a 400 with Strict, `Warning`
headers with Warn, nothing with Ignore)."""

from __future__ import annotations

from typing import Any

from fakeapi.machinery.decode import BodyDecoder
from fakeapi.machinery.errors import BadRequest
from fakeapi.machinery.types import JSON
from fakeapi.registry.options import WriteOptions


def decode_body(decoder: BodyDecoder, body: Any, kind: str, api_versions: tuple[str, ...], options: WriteOptions,
                stored: JSON | None = None) -> JSON:
    """The decoded object. `api_versions` are those the endpoint takes (the first is its own); `stored`,
    the object the body replaces, spares decoding the parts the body resends unchanged."""
    version = api_versions[0].rsplit("/", 1)[-1]
    if isinstance(body, dict):
        api_version = body.get("apiVersion")
        if api_version not in (None, "", *api_versions):
            raise BadRequest(f"the API version in the data ({api_version}) does not match the expected API "
                             f"version ({api_versions[0]})")
        sent_kind = body.get("kind")
        if sent_kind not in (None, "", kind):
            raise BadRequest(f"the kind in the data ({sent_kind}) does not match the expected kind ({kind})")
    decoded = decoder.decode(body, kind, version, stored)
    errors = decoded.unknown if options.strict_errors is None else options.strict_errors
    if errors and options.field_validation == "Strict":
        raise BadRequest(f'{kind} in version "{version}" cannot be handled as a {kind}: strict decoding error: '
                         + ", ".join(errors))
    if errors and options.field_validation == "Warn":
        options.warnings.extend(errors)
    return decoded.obj
