"""coordination.k8s.io/v1 Lease and LeaseList."""

from __future__ import annotations

from marshmallow import fields

from fakeapi.machinery.schemas.base import Int32, K8sSchema, MicroTime, TypedSchema, doc
from fakeapi.machinery.schemas.meta import ListMetaSchema, ObjectMetaSchema


class LeaseSpecSchema(K8sSchema):
    openapi_name = "io.k8s.api.coordination.v1.LeaseSpec"

    holderIdentity = fields.String(
        metadata=doc(
            "Who holds the lease now. With coordinated leader election it is the name of the elected "
            "LeaseCandidate.",
            pointer=True,
        ),
    )
    leaseDurationSeconds = Int32(
        metadata=doc(
            "How long, after the last renewTime seen, other candidates wait before they may take the lease.",
            pointer=True,
        ),
    )
    acquireTime = MicroTime(metadata=doc("When the current holder acquired the lease.", pointer=True))
    renewTime = MicroTime(metadata=doc("When the current holder last renewed the lease.", pointer=True))
    leaseTransitions = Int32(metadata=doc("How many times the lease has changed holders.", pointer=True))
    strategy = fields.String(
        metadata=doc(
            "How coordinated leader election picks the leader; unset means no coordination. Alpha: needs the "
            "CoordinatedLeaderElection feature gate, which is off.",
            pointer=True,
        ),
    )
    preferredHolder = fields.String(
        metadata=doc(
            "A better holder the current one should hand the lease to. Only with `strategy` (same feature gate).",
            pointer=True,
        ),
    )


class LeaseSchema(TypedSchema):
    """A lease: who holds it, for how long, since when (leader election, node heartbeats)."""

    openapi_name = "io.k8s.api.coordination.v1.Lease"

    metadata = fields.Nested(ObjectMetaSchema, metadata=doc("Standard object's metadata.", pointer=False))
    spec = fields.Nested(LeaseSpecSchema, metadata=doc("The lease's holder and timing.", pointer=False))


class LeaseListSchema(TypedSchema):
    """A list of Leases."""

    openapi_name = "io.k8s.api.coordination.v1.LeaseList"

    metadata = fields.Nested(ListMetaSchema, metadata=doc("Standard list metadata.", pointer=False))
    items = fields.List(fields.Nested(LeaseSchema), required=True, metadata=doc("The leases."))
