"""Event strategy (upstream pkg/registry/core/event): core/v1 events get upstream's legacy validation only."""

from __future__ import annotations

from fakeapi.kinds.strategy import UNSUPPORTED, Strategy
from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation import names
from fakeapi.machinery.validation.values import as_dict, as_str

REPORTING_INSTANCE_LIMIT = 128
ACTION_LIMIT = 128
REASON_LIMIT = 128
NOTE_LIMIT = 1024
_NAMESPACES_FOR_CLUSTER_OBJECTS = ("default", "kube-system")


class EventStrategy(Strategy):
    """Events are written as sent: no defaulting, no server-owned fields, unconditional updates."""

    garbage_collection_policy = UNSUPPORTED

    def validate(self, obj: JSON) -> list[FieldError]:
        return validate_event(obj)  # ObjectMeta gets the registry's generic checks only, as upstream

    def validate_update(self, new: JSON, old: JSON) -> list[FieldError]:
        return validate_event(new)  # the registry runs the generic ObjectMeta update checks first


def _length(text: str) -> int:
    """Go's len(string): bytes, not characters."""
    return len(text.encode())


def validate_event(event: JSON) -> list[FieldError]:
    """Upstream's legacyValidateEvent, all that ValidateEventCreate/Update check for core/v1 requests.

    An event without eventTime is an old-style event: only its namespace must agree with the involved
    object's. An event with eventTime must also name its reporting controller, instance, action and reason.
    """
    errs: list[FieldError] = []
    namespace = as_str(as_dict(event.get("metadata")).get("namespace"))
    involved_namespace = as_str(as_dict(event.get("involvedObject")).get("namespace"))
    mismatch = fe.invalid("involvedObject.namespace", involved_namespace, "does not match event.namespace")
    if not event.get("eventTime"):
        if not involved_namespace:
            if namespace not in ("", "default"):
                errs.append(mismatch)
        elif namespace != involved_namespace:
            errs.append(mismatch)
    else:
        if not involved_namespace and namespace not in _NAMESPACES_FOR_CLUSTER_OBJECTS:
            errs.append(mismatch)
        errs += _validate_reporting(event)
    errs += [fe.invalid("namespace", namespace, msg) for msg in names.is_dns1123_subdomain(namespace)]
    return errs


def _validate_reporting(event: JSON) -> list[FieldError]:
    errs: list[FieldError] = []
    controller = as_str(event.get("reportingComponent"))  # v1 wire name of reportingController
    if not controller:
        errs.append(fe.required("reportingController"))
    errs += [
        fe.invalid("reportingController", controller, msg) for msg in names.is_qualified_name(controller)
    ]
    for wire, field_name, limit, required in (
        ("reportingInstance", "reportingInstance", REPORTING_INSTANCE_LIMIT, True),
        ("action", "action", ACTION_LIMIT, True),
        ("reason", "reason", REASON_LIMIT, True),
        ("message", "message", NOTE_LIMIT, False),
    ):
        value = as_str(event.get(wire))
        if required and not value:
            errs.append(fe.required(field_name))
        if _length(value) > limit:
            errs.append(fe.invalid(field_name, "", f"can have at most {limit} characters"))
    return errs
