"""ObjectMeta, ListMeta, Status, DeleteOptions and the other meta/v1 shapes every kind shares."""

from __future__ import annotations

from typing import Any, ClassVar

from marshmallow import fields

from fakeapi.machinery.schemas.base import FreeForm, Int32, Int64, K8sSchema, StringMap, Time, TypedSchema, doc


class ManagedFieldsEntrySchema(K8sSchema):
    openapi_name = "io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry"

    manager = fields.String(metadata=doc("Manager is an identifier of the workflow managing these fields."))
    operation = fields.String(
        metadata=doc(
            "Operation is the type of operation which lead to this ManagedFieldsEntry being created. "
            "The only valid values for this field are 'Apply' and 'Update'.",
        ),
    )
    apiVersion = fields.String(
        metadata=doc(
            "APIVersion defines the version of this resource that this field set applies to. The format"
            ' is "group/version" just like the top-level APIVersion field.',
        ),
    )
    time = Time(metadata=doc("Time is the timestamp of when the ManagedFields entry was added.", pointer=True))
    fieldsType = fields.String(
        metadata=doc(
            "FieldsType is the discriminator for the different fields format and version. There is "
            'currently only one possible value: "FieldsV1"'
        ),
    )
    fieldsV1 = FreeForm(
        metadata=doc('FieldsV1 holds the first JSON version format as described in the "FieldsV1" type.', pointer=True),
    )
    subresource = fields.String(
        metadata=doc(
            "Subresource is the name of the subresource used to update that object, or empty string if "
            "the object was updated through the main resource.",
        ),
    )


class OwnerReferenceSchema(K8sSchema):
    openapi_name = "io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference"
    openapi_extensions: ClassVar[dict[str, Any]] = {"x-kubernetes-map-type": "atomic"}

    apiVersion = fields.String(required=True, metadata=doc("API version of the referent."))
    kind = fields.String(required=True, metadata=doc("Kind of the referent."))
    name = fields.String(required=True, metadata=doc("Name of the referent."))
    uid = fields.String(required=True, metadata=doc("UID of the referent."))
    controller = fields.Boolean(
        metadata=doc("If true, this reference points to the managing controller.", pointer=True),
    )
    blockOwnerDeletion = fields.Boolean(
        metadata=doc(
            'If true, AND if the owner has the "foregroundDeletion" finalizer, then the owner cannot be'
            " deleted from the key-value store until this reference is removed.",
            pointer=True,
        ),
    )


class ObjectMetaSchema(K8sSchema):
    """Metadata that all persisted resources must have."""

    openapi_name = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"

    name = fields.String(metadata=doc("Name must be unique within a namespace."))
    generateName = fields.String(
        metadata=doc(
            "GenerateName is an optional prefix, used by the server, to generate a unique name ONLY IF "
            "the Name field has not been provided.",
        ),
    )
    namespace = fields.String(
        metadata=doc("Namespace defines the space within which each name must be unique."),
    )
    selfLink = fields.String(
        metadata=doc(
            "Deprecated: selfLink is a legacy read-only field that is no longer populated by the system."
        ),
    )
    uid = fields.String(metadata=doc("UID is the unique in time and space value for this object."))
    resourceVersion = fields.String(
        metadata=doc(
            "An opaque value that represents the internal version of this object that can be used by "
            "clients to determine when objects have changed.",
        ),
    )
    generation = Int64(
        metadata=doc(
            "A sequence number representing a specific generation of the desired state. Populated by "
            "the system. Read-only.",
        ),
    )
    creationTimestamp = Time(
        metadata=doc(
            "CreationTimestamp is a timestamp representing the server time when this object was created."
        ),
    )
    deletionTimestamp = Time(
        metadata=doc(
            "DeletionTimestamp is RFC 3339 date and time at which this resource will be deleted.",
            pointer=True,
        ),
    )
    deletionGracePeriodSeconds = Int64(
        metadata=doc(
            "Number of seconds allowed for this object to gracefully terminate before it will be "
            "removed from the system. Only set when deletionTimestamp is also set.",
            pointer=True,
        ),
    )
    labels = StringMap(
        metadata=doc(
            "Map of string keys and values that can be used to organize and categorize (scope and "
            "select) objects. May match selectors of replication controllers and services."
        ),
    )
    annotations = StringMap(
        metadata=doc(
            "Annotations is an unstructured key value map stored with a resource that may be set by "
            "external tools to store and retrieve arbitrary metadata."
        ),
    )
    ownerReferences = fields.List(
        fields.Nested(OwnerReferenceSchema),
        metadata=doc(
            "List of objects depended by this object. If ALL objects in the list have been deleted, "
            "this object will be garbage collected.",
            merge_key="uid",
            strategy="merge",
            list_type="map",
            map_keys=["uid"],
        ),
    )
    finalizers = fields.List(
        fields.String(),
        metadata=doc(
            "Must be empty before the object is deleted from the registry. Each entry is an identifier "
            "for the responsible component that will remove the entry from the list.",
            strategy="merge",
            list_type="set",
        ),
    )
    managedFields = fields.List(
        fields.Nested(ManagedFieldsEntrySchema),
        metadata=doc(
            "ManagedFields maps workflow-id and version to the set of fields that are managed by that "
            "workflow.",
            list_type="atomic",
        ),
    )


class ListMetaSchema(K8sSchema):
    """Metadata that synthetic resources (lists, Status) must have."""

    openapi_name = "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta"

    selfLink = fields.String(
        metadata=doc(
            "Deprecated: selfLink is a legacy read-only field that is no longer populated by the system."
        ),
    )
    resourceVersion = fields.String(
        metadata=doc(
            "String that identifies the server's internal version of this object that can be used by "
            "clients to determine when objects have changed.",
        ),
    )
    continue_ = fields.String(
        data_key="continue",
        metadata=doc(
            "continue may be set if the user set a limit on the number of items returned, and indicates"
            " that the server has more data available.",
        ),
    )
    remainingItemCount = Int64(
        metadata=doc(
            "remainingItemCount is the number of subsequent items in the list which are not included in"
            " this list response.",
            pointer=True,
        ),
    )


class StatusCauseSchema(K8sSchema):
    openapi_name = "io.k8s.apimachinery.pkg.apis.meta.v1.StatusCause"

    reason = fields.String(
        metadata=doc(
            "A machine-readable description of the cause of the error. If this value is empty there is "
            "no information available.",
        ),
    )
    message = fields.String(
        metadata=doc(
            "A human-readable description of the cause of the error. This field may be presented as-is "
            "to a reader.",
        ),
    )
    field = fields.String(
        metadata=doc(
            "The field of the resource that has caused this error, as named by its JSON serialization. "
            "May include dot and postfix notation for nested attributes.",
        ),
    )


class StatusDetailsSchema(K8sSchema):
    openapi_name = "io.k8s.apimachinery.pkg.apis.meta.v1.StatusDetails"

    name = fields.String(
        metadata=doc(
            "The name attribute of the resource associated with the status StatusReason (when there is "
            "a single name which can be described).",
        ),
    )
    group = fields.String(
        metadata=doc("The group attribute of the resource associated with the status StatusReason."),
    )
    kind = fields.String(
        metadata=doc(
            "The kind attribute of the resource associated with the status StatusReason. On some "
            "operations may differ from the requested resource Kind."
        ),
    )
    uid = fields.String(
        metadata=doc("UID of the resource. (when there is a single resource which can be described)."),
    )
    causes = fields.List(
        fields.Nested(StatusCauseSchema),
        metadata=doc(
            "The Causes array includes more details associated with the StatusReason failure. Not all "
            "StatusReasons may provide detailed causes.",
            list_type="atomic",
        ),
    )
    retryAfterSeconds = Int32(
        metadata=doc("If specified, the time in seconds before the operation should be retried."),
    )


class StatusSchema(TypedSchema):
    """The return value for calls that don't return other objects; every error body."""

    openapi_name = "io.k8s.apimachinery.pkg.apis.meta.v1.Status"

    metadata = fields.Nested(ListMetaSchema, metadata=doc("Standard list metadata.", pointer=False))
    status = fields.String(metadata=doc('Status of the operation. One of: "Success" or "Failure".'))
    message = fields.String(metadata=doc("A human-readable description of the status of this operation."))
    reason = fields.String(
        metadata=doc(
            'A machine-readable description of why this operation is in the "Failure" status. If this '
            "value is empty there is no information available.",
        ),
    )
    details = fields.Nested(
        StatusDetailsSchema,
        metadata=doc(
            "Extended data associated with the reason. Each reason may define its own extended details."
            " This field is optional and the data returned is not guaranteed to conform to any schema "
            "except that defined by the reason type.",
        ),
    )
    code = Int32(metadata=doc("Suggested HTTP return code for this status, 0 if not set."))


class PreconditionsSchema(K8sSchema):
    openapi_name = "io.k8s.apimachinery.pkg.apis.meta.v1.Preconditions"

    uid = fields.String(metadata=doc("Specifies the target UID.", pointer=True))
    resourceVersion = fields.String(metadata=doc("Specifies the target ResourceVersion", pointer=True))


class DeleteOptionsSchema(TypedSchema):
    """Options for a delete request."""

    openapi_name = "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions"

    gracePeriodSeconds = Int64(
        metadata=doc(
            "The duration in seconds before the object should be deleted. Value must be non-negative "
            "integer. The value zero indicates delete immediately.",
            pointer=True,
        ),
    )
    preconditions = fields.Nested(
        PreconditionsSchema,
        metadata=doc(
            "Must be fulfilled before a deletion is carried out. If not possible, a 409 Conflict status"
            " will be returned.",
        ),
    )
    orphanDependents = fields.Boolean(
        metadata=doc(
            "Deprecated: please use the PropagationPolicy, this field will be deprecated in 1.7. Should"
            " the dependent objects be orphaned.",
            pointer=True,
        ),
    )
    propagationPolicy = fields.String(
        metadata=doc(
            "Whether and how garbage collection will be performed. Either this field or "
            "OrphanDependents may be set, but not both.",
            pointer=True,
        ),
    )
    dryRun = fields.List(
        fields.String(),
        metadata=doc(
            "When present, indicates that modifications should not be persisted.",
            list_type="atomic",
        ),
    )
    ignoreStoreReadErrorWithClusterBreakingPotential = fields.Boolean(
        metadata=doc(
            "if set to true, it will trigger an unsafe deletion of the resource in case the normal "
            "deletion flow fails with a corrupt object error.",
            pointer=True,
        ),
    )


class LabelSelectorRequirementSchema(K8sSchema):
    openapi_name = "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement"

    key = fields.String(required=True, metadata=doc("key is the label key that the selector applies to."))
    operator = fields.String(
        required=True,
        metadata=doc(
            "operator represents a key's relationship to a set of values. Valid operators are In, "
            "NotIn, Exists and DoesNotExist."
        ),
    )
    values = fields.List(
        fields.String(),
        metadata=doc(
            "values is an array of string values. If the operator is In or NotIn, the values array must"
            " be non-empty.",
            list_type="atomic",
        ),
    )


class LabelSelectorSchema(K8sSchema):
    openapi_name = "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"
    openapi_extensions: ClassVar[dict[str, Any]] = {"x-kubernetes-map-type": "atomic"}

    matchLabels = StringMap(metadata=doc("matchLabels is a map of {key,value} pairs."))
    matchExpressions = fields.List(
        fields.Nested(LabelSelectorRequirementSchema),
        metadata=doc(
            "matchExpressions is a list of label selector requirements. The requirements are ANDed.",
            list_type="atomic",
        ),
    )


class ObjectReferenceSchema(K8sSchema):
    openapi_name = "io.k8s.api.core.v1.ObjectReference"
    openapi_extensions: ClassVar[dict[str, Any]] = {"x-kubernetes-map-type": "atomic"}

    kind = fields.String(metadata=doc("Kind of the referent."))
    namespace = fields.String(metadata=doc("Namespace of the referent."))
    name = fields.String(metadata=doc("Name of the referent."))
    uid = fields.String(metadata=doc("UID of the referent."))
    apiVersion = fields.String(metadata=doc("API version of the referent."))
    resourceVersion = fields.String(
        metadata=doc("Specific resourceVersion to which this reference is made, if any."),
    )
    fieldPath = fields.String(
        metadata=doc(
            "If referring to a piece of an object instead of an entire object, this string should "
            "contain a valid JSON/Go field access statement, such as "
            "desiredState.manifest.containers[2].",
        ),
    )
