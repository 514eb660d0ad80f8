"""JSON merge patch (RFC 7386) as kube-apiserver applies it (evanphx/json-patch v4), and shared helpers."""

from __future__ import annotations

import json
from typing import Any

import orjson

from fakeapi.machinery.errors import BadRequest, Invalid
from fakeapi.machinery.fielderrors import invalid
from fakeapi.machinery.jsonvalues import copy_json, json_type_name
from fakeapi.machinery.types import JSON

_TYPE_META_STRUCT = (
    'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }'
)


def json_text(value: Any) -> str:
    """Compact JSON with sorted keys, as Go's encoding/json writes a decoded value."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()
    except orjson.JSONEncodeError:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class UndecodablePatchResult(Invalid):
    """422 for a patch whose result is not an object: upstream fails to decode it into the resource."""

    def __init__(self, result: Any) -> None:
        text = json_text(result)
        detail = (f"couldn't get version/kind; json parse error: json: cannot unmarshal "
                  f"{json_type_name(result)} into Go value of type {_TYPE_META_STRUCT}")
        super().__init__("", "", [invalid("patch", text, detail)])
        # upstream's NewInvalid(schema.GroupKind{}, "", ...) omits the empty name and kind
        self.details = {"causes": [error.to_cause() for error in self.errors]}


def apply_merge_patch(doc: JSON, patch: Any, *, strict: bool = True) -> JSON:
    """Apply an RFC 7386 merge patch to `doc` and return a new object; neither input is changed.

    `strict` means fieldValidation Strict or Warn (the default): upstream then first decodes the body
    into a map, so a patch that is not an object is a 400 before any merge is tried.
    """
    if type(patch) is not dict:
        raise _not_an_object(patch, strict)
    try:
        result: JSON = copy_json(doc)
        _merge_into(result, patch)
    except RecursionError:
        raise too_deep() from None
    return result


def too_deep() -> BadRequest:
    """Go has no recursion limit to hit; a patch nested close to the JSON decoder's own limit hits ours."""
    return BadRequest("the patch is nested too deeply")


def _not_an_object(patch: Any, strict: bool) -> Exception:
    if patch is None:
        return BadRequest("Invalid JSON Patch")
    if strict:
        return BadRequest(f"error decoding patch: json: cannot unmarshal {json_type_name(patch)} "
                          f"into Go value of type map[string]interface {{}}")
    if type(patch) is list:  # RFC 7386: a non-object patch replaces the whole document
        try:
            return UndecodablePatchResult(_without_nulls(patch))
        except RecursionError:
            return too_deep()
    return BadRequest("Invalid JSON Patch")


def _merge_into(target: JSON, patch: JSON) -> None:
    for key, value in patch.items():
        if value is None:
            target.pop(key, None)
            continue
        current = target.get(key)
        if type(current) is dict and type(value) is dict:
            _merge_into(current, value)
        elif type(current) is dict:
            target[key] = copy_json(value)  # upstream keeps the nulls of a non-object replacing an object
        else:
            target[key] = _without_nulls(value)


def _without_nulls(value: Any) -> Any:
    """A copy without null object members at any depth; nulls inside arrays stay, as upstream keeps them."""
    if type(value) is dict:
        return {key: _without_nulls(item) for key, item in value.items() if item is not None}
    if type(value) is list:
        return [_without_nulls(item) for item in value]
    return value
