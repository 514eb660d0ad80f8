"""Ephemeral volumes: the PersistentVolumeClaim template a pod volume can embed."""

from __future__ import annotations

from typing import Any, ClassVar

from marshmallow import fields

from fakeapi.machinery.schemas.base import K8sSchema, ResourceList, doc
from fakeapi.machinery.schemas.meta import LabelSelectorSchema, ObjectMetaSchema


class TypedLocalObjectReferenceSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.TypedLocalObjectReference"
    openapi_extensions: ClassVar[dict[str, Any]] = {"x-kubernetes-map-type": "atomic"}

    apiGroup = fields.String(
        metadata=doc(
            "APIGroup is the group for the resource being referenced. If APIGroup is not specified, the"
            " specified Kind must be in the core API group.",
            omitempty=False, pointer=True,
        ),
    )
    kind = fields.String(required=True, metadata=doc("Kind is the type of resource being referenced"))
    name = fields.String(required=True, metadata=doc("Name is the name of resource being referenced"))


class TypedObjectReferenceSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.TypedObjectReference"

    apiGroup = fields.String(
        metadata=doc(
            "APIGroup is the group for the resource being referenced. If APIGroup is not specified, the"
            " specified Kind must be in the core API group.",
            omitempty=False, pointer=True,
        ),
    )
    kind = fields.String(required=True, metadata=doc("Kind is the type of resource being referenced"))
    name = fields.String(required=True, metadata=doc("Name is the name of resource being referenced"))
    namespace = fields.String(
        metadata=doc(
            "Namespace is the namespace of resource being referenced Note that when a namespace is "
            "specified, a gateway.networking.k8s.io/ReferenceGrant object is required in the referent "
            "namespace to allow that namespace's owner to accept the reference.",
            pointer=True,
        ),
    )


class VolumeResourceRequirementsSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.VolumeResourceRequirements"

    limits = ResourceList(metadata=doc("Limits describes the maximum amount of compute resources allowed."))
    requests = ResourceList(
        metadata=doc("Requests describes the minimum amount of compute resources required."),
    )


class PersistentVolumeClaimSpecSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.PersistentVolumeClaimSpec"

    accessModes = fields.List(
        fields.String(),
        metadata=doc(
            "accessModes contains the desired access modes the volume should have.",
            list_type="atomic",
        ),
    )
    selector = fields.Nested(
        LabelSelectorSchema,
        metadata=doc("selector is a label query over volumes to consider for binding."),
    )
    resources = fields.Nested(
        VolumeResourceRequirementsSchema,
        metadata=doc("resources represents the minimum resources the volume should have.", pointer=False),
    )
    volumeName = fields.String(
        metadata=doc("volumeName is the binding reference to the PersistentVolume backing this claim."),
    )
    storageClassName = fields.String(
        metadata=doc("storageClassName is the name of the StorageClass required by the claim.", pointer=True),
    )
    volumeMode = fields.String(
        metadata=doc(
            "volumeMode defines what type of volume is required by the claim. Value of Filesystem is "
            "implied when not included in claim spec.",
            pointer=True,
        ),
    )
    dataSource = fields.Nested(
        TypedLocalObjectReferenceSchema,
        metadata=doc(
            "dataSource field can be used to specify either an existing VolumeSnapshot object or an "
            "existing PVC."
        ),
    )
    dataSourceRef = fields.Nested(
        TypedObjectReferenceSchema,
        metadata=doc(
            "dataSourceRef specifies the object from which to populate the volume with data, if a "
            "non-empty volume is desired."
        ),
    )
    volumeAttributesClassName = fields.String(
        metadata=doc(
            "volumeAttributesClassName may be used to set the VolumeAttributesClass used by this claim.",
            pointer=True,
        ),
    )


class PersistentVolumeClaimTemplateSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.PersistentVolumeClaimTemplate"

    metadata = fields.Nested(
        ObjectMetaSchema,
        metadata=doc(
            "May contain labels and annotations that will be copied into the PVC when creating it.",
            pointer=False,
        ),
    )
    spec = fields.Nested(
        PersistentVolumeClaimSpecSchema,
        required=True,
        metadata=doc(
            "The specification for the PersistentVolumeClaim. The entire content is copied unchanged "
            "into the PVC that gets created from this template.",
            pointer=False,
        ),
    )


class EphemeralVolumeSourceSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.EphemeralVolumeSource"

    volumeClaimTemplate = fields.Nested(
        PersistentVolumeClaimTemplateSchema,
        metadata=doc(
            "Will be used to create a stand-alone PVC to provision the volume. The pod in which this "
            "EphemeralVolumeSource is embedded will be the owner of the PVC.",
        ),
    )
