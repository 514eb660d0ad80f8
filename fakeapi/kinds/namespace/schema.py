"""core/v1 Namespace and NamespaceList."""

from __future__ import annotations

from marshmallow import fields

from fakeapi.machinery.schemas.base import K8sSchema, Time, TypedSchema, doc
from fakeapi.machinery.schemas.meta import ListMetaSchema, ObjectMetaSchema


class NamespaceSpecSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.NamespaceSpec"

    finalizers = fields.List(
        fields.String(),
        metadata=doc(
            "Finalizers is an opaque list of values that must be empty to permanently remove object "
            "from storage.",
            list_type="atomic",
        ),
    )


class NamespaceConditionSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.NamespaceCondition"

    type = fields.String(required=True, metadata=doc("Type of namespace controller condition."))
    status = fields.String(
        required=True,
        metadata=doc("Status of the condition, one of True, False, Unknown."),
    )
    lastTransitionTime = Time(
        metadata=doc("Last time the condition transitioned from one status to another."),
    )
    reason = fields.String(
        metadata=doc("Unique, one-word, CamelCase reason for the condition's last transition."),
    )
    message = fields.String(metadata=doc("Human-readable message indicating details about last transition."))


class NamespaceStatusSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.NamespaceStatus"

    phase = fields.String(metadata=doc("Phase is the current lifecycle phase of the namespace."))
    conditions = fields.List(
        fields.Nested(NamespaceConditionSchema),
        metadata=doc(
            "Represents the latest available observations of a namespace's current state.",
            merge_key="type",
            strategy="merge",
            list_type="map",
            map_keys=["type"],
        ),
    )


class NamespaceSchema(TypedSchema):
    """A scope for names."""

    openapi_name = "io.k8s.api.core.v1.Namespace"

    metadata = fields.Nested(ObjectMetaSchema, metadata=doc("Standard object's metadata.", pointer=False))
    spec = fields.Nested(
        NamespaceSpecSchema,
        metadata=doc("Spec defines the behavior of the Namespace.", pointer=False),
    )
    status = fields.Nested(
        NamespaceStatusSchema,
        metadata=doc("Status describes the current status of a Namespace.", pointer=False),
    )


class NamespaceListSchema(TypedSchema):
    """A list of Namespaces."""

    openapi_name = "io.k8s.api.core.v1.NamespaceList"

    metadata = fields.Nested(ListMetaSchema, metadata=doc("Standard list metadata.", pointer=False))
    items = fields.List(
        fields.Nested(NamespaceSchema),
        required=True,
        metadata=doc("Items is the list of Namespace objects in the list."),
    )
