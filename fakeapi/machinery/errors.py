"""Upstream-shaped API errors: every non-2xx answer is one of these, rendered as a `Status`.

    StatusError                       code  reason
     ├── BadRequest                   400   BadRequest
     ├── Unauthorized                 401   Unauthorized
     ├── Forbidden                    403   Forbidden
     ├── NotFound                     404   NotFound
     ├── MethodNotAllowed             405   MethodNotAllowed
     ├── NotAcceptable                406   NotAcceptable
     ├── AlreadyExists                409   AlreadyExists
     ├── Conflict                     409   Conflict
     ├── Expired                      410   Expired
     ├── RequestEntityTooLarge        413   RequestEntityTooLarge
     ├── UnsupportedMediaType         415   UnsupportedMediaType
     ├── Invalid                      422   Invalid   (details.causes from FieldErrors)
     ├── TooManyRequests              429   TooManyRequests
     ├── InternalError                500   InternalError
     ├── UnknownError                 500   ""        (upstream's non-Status error: no reason key)
     ├── ServiceUnavailable           503   ServiceUnavailable
     └── Timeout                      504   Timeout
"""

from __future__ import annotations

from typing import Any, ClassVar

from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON


class StatusError(Exception):
    code: ClassVar[int] = 500
    reason: ClassVar[str] = "InternalError"

    def __init__(self, message: str, details: JSON | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details
        self.headers: dict[str, str] = {}

    def to_status(self) -> JSON:
        status: JSON = {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
        }
        if self.reason:
            status["reason"] = self.reason
        if self.details is not None:
            status["details"] = self.details
        status["code"] = self.code
        return status


def qualified(resource: str, group: str) -> str:
    """Upstream's GroupResource.String() (and GroupKind.String()): `leases.coordination.k8s.io`, or the bare
    name in the core group. Messages about an object name it so; its details carry the two apart."""
    return f"{resource}.{group}" if group else resource


def _details(resource: str, name: str, group: str = "") -> JSON:
    details: JSON = {"name": name}
    if group:
        details["group"] = group
    details["kind"] = resource
    return details


class BadRequest(StatusError):
    code = 400
    reason = "BadRequest"


class Unauthorized(StatusError):
    code = 401
    reason = "Unauthorized"


class Forbidden(StatusError):
    code = 403
    reason = "Forbidden"

    @classmethod
    def for_object(cls, resource: str, name: str, why: str, *, group: str = "") -> Forbidden:
        return cls(f'{qualified(resource, group)} "{name}" is forbidden: {why}', _details(resource, name, group))


class NotFound(StatusError):
    code = 404
    reason = "NotFound"

    @classmethod
    def for_object(cls, resource: str, name: str, *, group: str = "") -> NotFound:
        return cls(f'{qualified(resource, group)} "{name}" not found', _details(resource, name, group))

    @classmethod
    def path(cls) -> NotFound:
        return cls("the server could not find the requested resource", {})


class MethodNotAllowed(StatusError):
    code = 405
    reason = "MethodNotAllowed"

    @classmethod
    def on_path(cls) -> MethodNotAllowed:
        return cls("the server does not allow this method on the requested resource", {})

    @classmethod
    def verb(cls, verb: str, resource: str) -> MethodNotAllowed:
        return cls(f'{verb} is not supported on resources of kind "{resource}"', {"kind": resource})


class NotAcceptable(StatusError):
    code = 406
    reason = "NotAcceptable"


class AlreadyExists(StatusError):
    code = 409
    reason = "AlreadyExists"

    @classmethod
    def for_object(cls, resource: str, name: str, prefix: str = "", *, group: str = "") -> AlreadyExists:
        return cls(f'{prefix}{qualified(resource, group)} "{name}" already exists', _details(resource, name, group))


class Conflict(StatusError):
    code = 409
    reason = "Conflict"

    @classmethod
    def for_object(cls, resource: str, name: str, why: str, *, group: str = "") -> Conflict:
        return cls(f'Operation cannot be fulfilled on {qualified(resource, group)} "{name}": {why}',
                   _details(resource, name, group))

    @classmethod
    def modified(cls, resource: str, name: str, *, group: str = "") -> Conflict:
        return cls.for_object(
            resource,
            name,
            "the object has been modified; please apply your changes to the latest version and try again",
            group=group,
        )


class Expired(StatusError):
    code = 410
    reason = "Expired"


class RequestEntityTooLarge(StatusError):
    code = 413
    reason = "RequestEntityTooLarge"


class UnsupportedMediaType(StatusError):
    code = 415
    reason = "UnsupportedMediaType"


def aggregate_message(errors: list[FieldError]) -> str:
    """Upstream's utilerrors aggregate: duplicates collapsed, one bare, several in `[a, b]`."""
    seen: list[str] = []
    for error in errors:
        text = str(error)
        if text not in seen:
            seen.append(text)
    return seen[0] if len(seen) == 1 else "[" + ", ".join(seen) + "]"


class Invalid(StatusError):
    code = 422
    reason = "Invalid"

    def __init__(self, kind: str, name: str, errors: list[FieldError], group: str = "") -> None:
        details: JSON = {"name": name}
        if group:
            details["group"] = group
        details["kind"] = kind
        details["causes"] = [error.to_cause() for error in errors]
        super().__init__(f'{qualified(kind, group)} "{name}" is invalid: {aggregate_message(errors)}', details)
        self.errors = errors


class TooManyRequests(StatusError):
    code = 429
    reason = "TooManyRequests"


class InternalError(StatusError):
    code = 500
    reason = "InternalError"


class UnknownError(StatusError):
    """A plain (non-Status) error from upstream's storage layer: answered with no reason."""

    code = 500
    reason = ""


class ServiceUnavailable(StatusError):
    code = 503
    reason = "ServiceUnavailable"


class Timeout(StatusError):
    code = 504
    reason = "Timeout"


def raise_if_invalid(kind: str, name: str, errors: list[FieldError], group: str = "") -> None:
    if errors:
        raise Invalid(kind, name, errors, group)


def with_retry_after(error: StatusError, seconds: int) -> StatusError:
    details: dict[str, Any] = dict(error.details or {})
    details["retryAfterSeconds"] = seconds
    error.details = details
    error.headers["Retry-After"] = str(seconds)
    return error
