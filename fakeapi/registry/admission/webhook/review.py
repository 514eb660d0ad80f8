"""The AdmissionReview a webhook is sent (admission.k8s.io/v1, upstream's CreateAdmissionObjects) and what its
answer means (VerifyAdmissionResponse, ToStatusErr), in upstream's words."""

from __future__ import annotations

import base64
import binascii
from typing import Any

from fakeapi.machinery.errors import StatusError
from fakeapi.machinery.types import JSON
from fakeapi.registry.admission import CREATE, Attributes
from fakeapi.registry.admission.request import RequestContext

REVIEW_API_VERSION = "admission.k8s.io/v1"
REVIEW_KIND = "AdmissionReview"
OPTIONS_KINDS = {"CREATE": "CreateOptions", "UPDATE": "UpdateOptions", "DELETE": "DeleteOptions"}  # (CONNECT: none)


class InvalidAnswer(Exception):
    """The answer broke the protocol (upstream's `received invalid webhook response: ...`)."""


def review_request(attributes: Attributes, context: RequestContext, uid: str, mutating: bool) -> JSON:
    """The AdmissionReview of a request (the object before its uid and creation time are set, on a mutating
    create, as upstream's create handler admits it before BeforeCreate)."""
    info = attributes.info
    group, version, kind = attributes.kind or (info.group, info.version, info.kind)
    gvk = {"group": group, "version": version, "kind": kind}
    gvr = {"group": info.group, "version": info.version, "resource": info.resource}
    request: JSON = {"uid": uid, "kind": gvk, "resource": gvr}
    if attributes.subresource:
        request["subResource"] = attributes.subresource
    request.update(requestKind=gvk, requestResource=gvr)
    if attributes.subresource:
        request["requestSubResource"] = attributes.subresource
    if attributes.name:
        request["name"] = attributes.name
    if attributes.namespace:
        request["namespace"] = attributes.namespace
    obj = attributes.shown(attributes.obj)
    if obj is not None and mutating and attributes.operation == CREATE:
        meta = {key: value for key, value in (obj.get("metadata") or {}).items()
                if key not in ("uid", "creationTimestamp")}
        obj = {**obj, "metadata": meta}
    options_kind = OPTIONS_KINDS.get(attributes.operation)
    request.update(operation=attributes.operation, userInfo=context.user.to_json(), object=obj,
                   oldObject=attributes.shown(attributes.old), dryRun=attributes.dry_run,
                   options={"kind": options_kind, "apiVersion": "meta.k8s.io/v1", **context.options}
                   if options_kind else None)
    return {"apiVersion": REVIEW_API_VERSION, "kind": REVIEW_KIND, "request": request}


def read_answer(answer: Any, uid: str, mutating: bool) -> JSON:
    """The review's `response`, checked; its patch decoded (`patch` as a list of operations, or absent)."""
    if not isinstance(answer, dict) or not isinstance(answer.get("response"), dict):
        raise InvalidAnswer("webhook response was absent")
    response: JSON = answer["response"]
    if response.get("uid") != uid:
        raise InvalidAnswer(f'expected response.uid="{uid}", got "{response.get("uid") or ""}"')
    group_version = str(answer.get("apiVersion") or "")
    if group_version != REVIEW_API_VERSION or answer.get("kind") != REVIEW_KIND:
        group, _, version = group_version.rpartition("/")
        raise InvalidAnswer(f"expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got "
                            f"{group}/{version}, Kind={answer.get('kind') or ''}")
    patch, patch_type = response.get("patch"), response.get("patchType")
    if mutating:
        if patch and not patch_type:
            raise InvalidAnswer("webhook returned response.patch but not response.patchType")
        if not patch and patch_type:
            raise InvalidAnswer("webhook returned response.patchType but not response.patch")
    elif patch or patch_type:
        raise InvalidAnswer("validating webhook may not return response.patch or response.patchType")
    checked = dict(response)
    if patch:
        try:
            checked["patch"] = base64.b64decode(str(patch), validate=True)
        except (binascii.Error, ValueError):
            raise InvalidAnswer("illegal base64 data in response.patch") from None
    return checked


def denial(webhook_name: str, result: Any) -> StatusError:
    """upstream's ToStatusErr: the webhook's Status, with at least 400, and its message prefixed."""
    result = dict(result) if isinstance(result, dict) else {}
    denied_by = f'admission webhook "{webhook_name}" denied the request'
    code = result.get("code") if isinstance(result.get("code"), int) else 0
    if code < 400:
        code = 400
    if result.get("message"):
        message = f"{denied_by}: {result['message']}"
    elif result.get("reason"):
        message = f"{denied_by}: {result['reason']}"
    else:
        message = f"{denied_by} without explanation"
    status: JSON = {"kind": "Status", "apiVersion": "v1", "metadata": {},
                    "status": "Failure" if result.get("status") in (None, "", "Success") else result["status"],
                    "message": message}
    if result.get("reason"):
        status["reason"] = result["reason"]
    if isinstance(result.get("details"), dict):
        status["details"] = result["details"]
    status["code"] = code
    return returned_status(status)


def returned_status(status: JSON) -> StatusError:
    """A StatusError answering exactly `status` (its code as the HTTP status)."""
    kind = type("ReturnedStatus", (StatusError,),
                {"code": int(status["code"]), "reason": str(status.get("reason", ""))})
    error: StatusError = kind(str(status["message"]), status.get("details"))
    error.to_status = lambda: status  # type: ignore[method-assign]
    return error
