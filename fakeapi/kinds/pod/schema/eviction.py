"""policy/v1 Eviction: the body of POST pods/{name}/eviction."""

from __future__ import annotations

from marshmallow import fields

from fakeapi.machinery.schemas.base import TypedSchema, doc
from fakeapi.machinery.schemas.meta import DeleteOptionsSchema, ObjectMetaSchema


class EvictionSchema(TypedSchema):
    """Evicts a pod from its node subject to certain policies and safety constraints."""

    openapi_name = "io.k8s.api.policy.v1.Eviction"

    metadata = fields.Nested(
        ObjectMetaSchema,
        metadata=doc("ObjectMeta describes the pod that is being evicted.", pointer=False),
    )
    deleteOptions = fields.Nested(DeleteOptionsSchema, metadata=doc("DeleteOptions may be provided"))
