"""core/v1 Binding: the body of POST pods/{name}/binding."""

from __future__ import annotations

from marshmallow import fields

from fakeapi.schemas.base import K8sSchema, doc
from fakeapi.schemas.meta import ObjectMetaSchema, ObjectReferenceSchema


class BindingSchema(K8sSchema):
    """Ties one object to another; for example, a pod is bound to a node by a scheduler."""

    openapi_name = "io.k8s.api.core.v1.Binding"

    kind = fields.String(
        metadata=doc(
            "Kind is a string value representing the REST resource this object represents. Servers may "
            "infer this from the endpoint the client submits requests to. Cannot be updated.",
        ),
    )
    apiVersion = fields.String(
        metadata=doc("APIVersion defines the versioned schema of this representation of an object."),
    )
    metadata = fields.Nested(ObjectMetaSchema, metadata=doc("Standard object's metadata."))
    target = fields.Nested(
        ObjectReferenceSchema,
        required=True,
        metadata=doc("The target object that you want to bind to the standard object."),
    )
