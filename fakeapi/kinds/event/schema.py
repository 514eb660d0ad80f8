"""core/v1 Event and EventList."""

from __future__ import annotations

from marshmallow import fields

from fakeapi.machinery.schemas.base import Int32, K8sSchema, MicroTime, Time, TypedSchema, doc
from fakeapi.machinery.schemas.meta import ListMetaSchema, ObjectMetaSchema, ObjectReferenceSchema


class EventSeriesSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.EventSeries"

    count = Int32(metadata=doc("Number of occurrences in this series up to the last heartbeat time"))
    lastObservedTime = MicroTime(metadata=doc("Time of the last occurrence observed"))


class EventSourceSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.EventSource"

    component = fields.String(metadata=doc("Component from which the event is generated."))
    host = fields.String(metadata=doc("Node name on which the event is generated."))


class EventSchema(TypedSchema):
    """A report of an event somewhere in the cluster (core/v1)."""

    openapi_name = "io.k8s.api.core.v1.Event"

    metadata = fields.Nested(
        ObjectMetaSchema,
        required=True,
        metadata=doc("Standard object's metadata.", pointer=False),
    )
    involvedObject = fields.Nested(
        ObjectReferenceSchema,
        required=True,
        metadata=doc("The object that this event is about.", pointer=False),
    )
    reason = fields.String(
        metadata=doc(
            "This should be a short, machine understandable string that gives the reason for the "
            "transition into the object's current status."
        ),
    )
    message = fields.String(metadata=doc("A human-readable description of the status of this operation."))
    source = fields.Nested(
        EventSourceSchema,
        metadata=doc(
            "The component reporting this event. Should be a short machine understandable string.",
            pointer=False,
        ),
    )
    firstTimestamp = Time(
        metadata=doc(
            "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)",
        ),
    )
    lastTimestamp = Time(
        metadata=doc("The time at which the most recent occurrence of this event was recorded."),
    )
    count = Int32(metadata=doc("The number of times this event has occurred."))
    type = fields.String(
        metadata=doc("Type of this event (Normal, Warning), new types could be added in the future"),
    )
    eventTime = MicroTime(metadata=doc("Time when this Event was first observed."))
    series = fields.Nested(
        EventSeriesSchema,
        metadata=doc("Data about the Event series this event represents or nil if it's a singleton Event."),
    )
    action = fields.String(metadata=doc("What action was taken/failed regarding to the Regarding object."))
    related = fields.Nested(
        ObjectReferenceSchema,
        metadata=doc("Optional secondary object for more complex actions."),
    )
    reportingComponent = fields.String(
        metadata=doc(
            "Name of the controller that emitted this Event, e.g. `kubernetes.io/kubelet`.",
            omitempty=False,
        ),
    )
    reportingInstance = fields.String(
        metadata=doc("ID of the controller instance, e.g. `kubelet-xyzf`.", omitempty=False),
    )


class EventListSchema(TypedSchema):
    """A list of Events."""

    openapi_name = "io.k8s.api.core.v1.EventList"

    metadata = fields.Nested(ListMetaSchema, metadata=doc("Standard list metadata.", pointer=False))
    items = fields.List(fields.Nested(EventSchema), required=True, metadata=doc("List of events"))
