"""core/v1 Binding: the body of POST pods/{name}/binding."""

from __future__ import annotations

from marshmallow import fields

from fakeapi.machinery.schemas.base import TypedSchema, doc
from fakeapi.machinery.schemas.meta import ObjectMetaSchema, ObjectReferenceSchema


class BindingSchema(TypedSchema):
    """Ties one object to another; for example, a pod is bound to a node by a scheduler."""

    openapi_name = "io.k8s.api.core.v1.Binding"

    metadata = fields.Nested(ObjectMetaSchema, metadata=doc("Standard object's metadata.", pointer=False))
    target = fields.Nested(
        ObjectReferenceSchema,
        required=True,
        metadata=doc("The target object that you want to bind to the standard object.", pointer=False),
    )
