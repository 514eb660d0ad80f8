"""events.k8s.io/v1 Event <-> core/v1 Event: the same objects, stored as core events (upstream converts
both through its internal Event). Fields keep their values; these are the ones named differently."""

from __future__ import annotations

from fakeapi.machinery.schema.definitions import KUBERNETES_1_32
from fakeapi.machinery.types import JSON

EVENTS_V1 = "io.k8s.api.events.v1.Event"
CORE_V1 = "io.k8s.api.core.v1.Event"
# events.k8s.io/v1 name -> core/v1 name
_RENAMED = {
    "regarding": "involvedObject",
    "note": "message",
    "reportingController": "reportingComponent",
    "deprecatedSource": "source",
    "deprecatedFirstTimestamp": "firstTimestamp",
    "deprecatedLastTimestamp": "lastTimestamp",
    "deprecatedCount": "count",
}
_BACK = {core: v1 for v1, core in _RENAMED.items()}


class EventConversion:
    def to_stored(self, obj: JSON) -> JSON:
        core = {_RENAMED.get(key, key): value for key, value in obj.items()}
        core["apiVersion"] = "v1"
        return _as_go_writes_it(CORE_V1, core)

    def from_stored(self, obj: JSON) -> JSON:
        event = {_BACK.get(key, key): value for key, value in obj.items()}
        event["apiVersion"] = "events.k8s.io/v1"
        return _as_go_writes_it(EVENTS_V1, event)


def _as_go_writes_it(definition: str, obj: JSON) -> JSON:
    """The object as Go encodes the struct it converts to: empty omitempty fields left out, value fields
    written (a core event's `involvedObject: {}`, `reportingComponent: ""`)."""
    return KUBERNETES_1_32.compiled(definition).decoder().decode(obj, "Event").obj
