"""core/v1 ServiceAccount and ServiceAccountList."""

from __future__ import annotations

from marshmallow import fields

from fakeapi.kinds.pod.schema.container import LocalObjectReferenceSchema
from fakeapi.machinery.schemas.base import TypedSchema, doc
from fakeapi.machinery.schemas.meta import ListMetaSchema, ObjectMetaSchema, ObjectReferenceSchema


class ServiceAccountSchema(TypedSchema):
    """An identity for the processes of pods: a name that can be authenticated and authorized, and the
    secrets those pods may use."""

    openapi_name = "io.k8s.api.core.v1.ServiceAccount"

    metadata = fields.Nested(ObjectMetaSchema, metadata=doc("Standard object's metadata.", pointer=False))
    secrets = fields.List(
        fields.Nested(ObjectReferenceSchema),
        metadata=doc(
            "Secrets of this namespace that pods running as this account may use (only the name of each "
            "reference is kept). Pods are held to this list only while the account carries the "
            "kubernetes.io/enforce-mountable-secrets annotation set to \"true\", which is deprecated since "
            "v1.32. Not the place to look for token secrets: request tokens with the TokenRequest API.",
            merge_key="name",
            strategy="merge",
            list_type="map",
            map_keys=["name"],
        ),
    )
    imagePullSecrets = fields.List(
        fields.Nested(LocalObjectReferenceSchema),
        metadata=doc(
            "Secrets of this namespace the kubelet uses to pull the images of pods running as this account; "
            "they are copied into a pod that names none of its own when it is created.",
            list_type="atomic",
        ),
    )
    automountServiceAccountToken = fields.Boolean(
        metadata=doc(
            "Whether pods running as this account get an API token mounted automatically. A pod's own "
            "setting wins.",
            pointer=True,
        ),
    )


class ServiceAccountListSchema(TypedSchema):
    """A list of ServiceAccounts."""

    openapi_name = "io.k8s.api.core.v1.ServiceAccountList"

    metadata = fields.Nested(ListMetaSchema, metadata=doc("Standard list metadata.", pointer=False))
    items = fields.List(fields.Nested(ServiceAccountSchema), required=True, metadata=doc("The ServiceAccounts."))
