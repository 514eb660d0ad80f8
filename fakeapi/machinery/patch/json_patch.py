"""JSON patch (RFC 6902) as kube-apiserver applies it: the jsonpatch library bent to evanphx/json-patch v4."""

from __future__ import annotations

from typing import Any

import jsonpatch
import jsonpointer

from fakeapi.machinery.errors import BadRequest, RequestEntityTooLarge, StatusError
from fakeapi.machinery.jsonvalues import copy_json, json_type_name
from fakeapi.machinery.patch.merge import UndecodablePatchResult, json_text, too_deep
from fakeapi.machinery.types import JSON

MAX_OPERATIONS = 10000
"""Upstream's maxJSONPatchOperations."""

MAX_COPY_BYTES = 3 * 1024 * 1024
"""Upstream's JSONPatchMaxCopyBytes: how much a patch's copy operations may grow the object."""

_STRING_MEMBERS = ("op", "path", "from")
_LIBRARY_ERRORS = (
    jsonpatch.JsonPatchException, jsonpointer.JsonPointerException, KeyError, IndexError, TypeError,
)


class UnprocessablePatch(StatusError):
    """422 for a patch that cannot be applied; upstream sends only this generic message, no causes."""

    code = 422
    reason = "Invalid"

    def __init__(self, cause: str) -> None:
        super().__init__("the server rejected our request due to an error in our request", {})
        self.cause = cause  # what went wrong, for logs; upstream drops it from the response


def apply_json_patch(doc: JSON, patch: Any, *, strict: bool = True) -> JSON:
    """Apply an RFC 6902 patch to `doc` and return a new object; neither input is changed.

    `strict` means fieldValidation Strict or Warn (the default); with Ignore upstream decodes the
    patch more loosely and words its 400s differently.
    """
    operations = _decode(patch, strict)
    copied = [0]
    try:
        result: Any = copy_json(doc)
        for operation in operations:
            result = _apply(result, operation, copied)
    except RecursionError:
        raise too_deep() from None
    if result is None:  # upstream decodes a null document as an empty object
        return {}
    if type(result) is not dict:
        raise UndecodablePatchResult(result)
    return result


def _decode(patch: Any, strict: bool) -> list[Any]:
    """The 400s and the 413 upstream answers before applying anything."""
    prefix, patch_type, op_type = (
        ("error decoding patch: ", "[]handlers.jsonPatchOp", "handlers.jsonPatchOp") if strict
        else ("", "jsonpatch.Patch", "jsonpatch.Operation"))
    if patch is None:
        return []
    if type(patch) is not list:
        raise BadRequest(f"{prefix}json: cannot unmarshal {json_type_name(patch)} "
                         f"into Go value of type {patch_type}")
    for operation in patch:
        if operation is None:
            continue
        if type(operation) is not dict:
            raise BadRequest(f"{prefix}json: cannot unmarshal {json_type_name(operation)} "
                             f"into Go value of type {op_type}")
        if strict:
            for member, value in operation.items():
                if member in _STRING_MEMBERS and value is not None and type(value) is not str:
                    raise BadRequest(f"{prefix}json: cannot unmarshal {json_type_name(value)} "
                                     f"into Go struct field jsonPatchOp.{member} of type string")
    if len(patch) > MAX_OPERATIONS:
        raise RequestEntityTooLarge(f"Request entity too large: The allowed maximum operations "
                                    f"in a JSON patch is {MAX_OPERATIONS}, got {len(patch)}")
    return patch


def _apply(doc: Any, operation: Any, copied: list[int]) -> Any:
    kind = operation.get("op") if type(operation) is dict else None
    if kind not in ("add", "remove", "replace", "move", "copy", "test"):
        raise UnprocessablePatch(f"Unexpected kind: {kind if type(kind) is str else 'unknown'}")
    path = _upstream_path(operation.get("path"))
    if path is None:
        raise UnprocessablePatch(f"{kind} operation does not apply: doc is missing path")
    try:
        return _OPERATIONS[kind](doc, path, operation, copied)
    except _LIBRARY_ERRORS as error:
        raise UnprocessablePatch(f"{kind} operation failed: {error}") from None


def _upstream_path(path: Any) -> str | None:
    """evanphx v4 splits the path on "/" and ignores whatever precedes the first slash."""
    if type(path) is not str:
        return None
    if path == "" or path.startswith("/"):
        return path
    slash = path.find("/")
    return None if slash < 0 else path[slash:]


def _add(doc: Any, path: str, operation: JSON, copied: list[int]) -> Any:
    if path == "":  # upstream finds no parent for the root
        raise UnprocessablePatch("add operation does not apply: doc is missing path: \"\"")
    # a missing value adds null, as upstream does
    return jsonpatch.AddOperation({"op": "add", "path": path, "value": operation.get("value")}).apply(doc)


def _remove(doc: Any, path: str, operation: JSON, copied: list[int]) -> Any:
    return jsonpatch.RemoveOperation({"op": "remove", "path": path}).apply(doc)


def _replace(doc: Any, path: str, operation: JSON, copied: list[int]) -> Any:
    value = operation.get("value")
    if path == "":
        if value is not None and type(value) not in (dict, list):
            raise UnprocessablePatch("replace operation value must be object or array")
        return copy_json(value)
    parent, key = jsonpointer.JsonPointer(path).to_last(doc)
    if type(parent) is dict and key not in parent:  # evanphx v4 replaces a missing member by adding it
        return jsonpatch.AddOperation({"op": "add", "path": path, "value": value}).apply(doc)
    return jsonpatch.ReplaceOperation({"op": "replace", "path": path, "value": value}).apply(doc)


def _move(doc: Any, path: str, operation: JSON, copied: list[int]) -> Any:
    source = _upstream_path(operation.get("from"))
    if not source or path == "":
        raise UnprocessablePatch("move operation does not apply: doc is missing from or destination path")
    return jsonpatch.MoveOperation({"op": "move", "path": path, "from": source}).apply(doc)


def _copy(doc: Any, path: str, operation: JSON, copied: list[int]) -> Any:
    source = _upstream_path(operation.get("from"))
    if not source or path == "":
        raise UnprocessablePatch("copy operation does not apply: doc is missing from or destination path")
    parent, key = jsonpointer.JsonPointer(source).to_last(doc)
    if type(parent) is dict and key not in parent:  # evanphx v4 copies a missing member as null
        value = None
    else:
        value = jsonpointer.JsonPointer(source).resolve(doc)
    copied[0] += len(json_text(value).encode())
    if copied[0] > MAX_COPY_BYTES:
        raise UnprocessablePatch(f"Unable to complete the copy, the accumulated size increase of copy is "
                                 f"{copied[0]}, exceeding the limit {MAX_COPY_BYTES}")
    return jsonpatch.AddOperation({"op": "add", "path": path, "value": value}).apply(doc)


def _test(doc: Any, path: str, operation: JSON, copied: list[int]) -> Any:
    expected = operation.get("value")
    if path == "":
        actual = doc
    else:
        parent, key = jsonpointer.JsonPointer(path).to_last(doc)
        # upstream reads a missing member as null; a bad array index fails the operation
        actual = parent.get(key) if type(parent) is dict else jsonpointer.JsonPointer(path).resolve(doc)
    if not _same_json(actual, expected):
        raise UnprocessablePatch(f"testing value {path} failed: test failed")
    return doc


def _same_json(left: Any, right: Any) -> bool:
    """JSON equality without Python's 1 == 1.0 == True."""
    if type(left) is not type(right):
        return False
    if type(left) is dict:
        return left.keys() == right.keys() and all(_same_json(left[key], right[key]) for key in left)
    if type(left) is list:
        return len(left) == len(right) and all(map(_same_json, left, right))
    return bool(left == right)


_OPERATIONS = {
    "add": _add, "remove": _remove, "replace": _replace, "move": _move, "copy": _copy, "test": _test,
}
