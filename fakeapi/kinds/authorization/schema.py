"""authorization.k8s.io/v1 access reviews: SelfSubjectAccessReview, SubjectAccessReview and
SelfSubjectRulesReview (request bodies and answers; none is stored)."""

from __future__ import annotations

from marshmallow import fields

from fakeapi.machinery.schemas.base import K8sSchema, TypedSchema, doc
from fakeapi.machinery.schemas.meta import LabelSelectorRequirementSchema, ObjectMetaSchema

_PACKAGE = "io.k8s.api.authorization.v1."


def _strings(description: str) -> fields.List[str]:
    return fields.List(fields.String(), metadata=doc(description, list_type="atomic"))


class FieldSelectorRequirementSchema(K8sSchema):
    """A selector that contains values, a key, and an operator that relates the key and values."""

    # a meta/v1 type, used only by these reviews here
    openapi_name = "io.k8s.apimachinery.pkg.apis.meta.v1.FieldSelectorRequirement"

    key = fields.String(required=True, metadata=doc("key is the field selector key that the requirement applies to."))
    operator = fields.String(
        required=True,
        metadata=doc("operator represents a key's relationship to a set of values: In, NotIn, Exists or "
                     "DoesNotExist."),
    )
    values = _strings("values is an array of string values: non-empty for In and NotIn, empty for Exists and "
                      "DoesNotExist.")


class FieldSelectorAttributesSchema(K8sSchema):
    """A field limited access: a raw selector or its parsed requirements, not both."""

    openapi_name = _PACKAGE + "FieldSelectorAttributes"

    rawSelector = fields.String(
        metadata=doc("rawSelector is the serialization of a field selector that would be included in a query "
                     "parameter."),
    )
    requirements = fields.List(
        fields.Nested(FieldSelectorRequirementSchema),
        metadata=doc("requirements is the parsed interpretation of a field selector.", list_type="atomic"),
    )


class LabelSelectorAttributesSchema(K8sSchema):
    """A label limited access: a raw selector or its parsed requirements, not both."""

    openapi_name = _PACKAGE + "LabelSelectorAttributes"

    rawSelector = fields.String(
        metadata=doc("rawSelector is the serialization of a label selector that would be included in a query "
                     "parameter."),
    )
    requirements = fields.List(
        fields.Nested(LabelSelectorRequirementSchema),
        metadata=doc("requirements is the parsed interpretation of a label selector.", list_type="atomic"),
    )


class ResourceAttributesSchema(K8sSchema):
    """The authorization attributes of a resource request."""

    openapi_name = _PACKAGE + "ResourceAttributes"

    namespace = fields.String(
        metadata=doc('Namespace is the namespace of the action being requested; "" means all namespaces, or '
                     "none for a cluster-scoped resource."),
    )
    verb = fields.String(metadata=doc('Verb is a kubernetes resource API verb, like get, list or create. "*" '
                                      "means all."))
    group = fields.String(metadata=doc('Group is the API Group of the Resource. "*" means all.'))
    version = fields.String(metadata=doc('Version is the API Version of the Resource. "*" means all.'))
    resource = fields.String(metadata=doc('Resource is one of the existing resource types. "*" means all.'))
    subresource = fields.String(metadata=doc('Subresource is one of the existing resource types. "" means '
                                             "none."))
    name = fields.String(metadata=doc('Name is the name of the resource being requested; "" means all.'))
    fieldSelector = fields.Nested(
        FieldSelectorAttributesSchema,
        metadata=doc("fieldSelector describes the limitation on access based on field. It can only limit "
                     "access, not broaden it."),
    )
    labelSelector = fields.Nested(
        LabelSelectorAttributesSchema,
        metadata=doc("labelSelector describes the limitation on access based on labels. It can only limit "
                     "access, not broaden it."),
    )


class NonResourceAttributesSchema(K8sSchema):
    """The authorization attributes of a non-resource request."""

    openapi_name = _PACKAGE + "NonResourceAttributes"

    path = fields.String(metadata=doc("Path is the URL path of the request"))
    verb = fields.String(metadata=doc("Verb is the standard HTTP verb"))


class SubjectAccessReviewStatusSchema(K8sSchema):
    """Whether the request is allowed, as the authorizer decided it."""

    openapi_name = _PACKAGE + "SubjectAccessReviewStatus"

    allowed = fields.Boolean(
        required=True, metadata=doc("Allowed is required. True if the action would be allowed, false otherwise."),
    )
    denied = fields.Boolean(
        metadata=doc("Denied is optional. True if the action would be denied, otherwise false. Denied may not be "
                     "true if Allowed is true."),
    )
    reason = fields.String(metadata=doc("Reason is optional. It indicates why a request was allowed or denied."))
    evaluationError = fields.String(
        metadata=doc("EvaluationError is an indication that some error occurred during the authorization "
                     "check."),
    )


class SelfSubjectAccessReviewSpecSchema(K8sSchema):
    """The access request: exactly one of resourceAttributes and nonResourceAttributes."""

    openapi_name = _PACKAGE + "SelfSubjectAccessReviewSpec"

    resourceAttributes = fields.Nested(
        ResourceAttributesSchema,
        metadata=doc("ResourceAuthorizationAttributes describes information for a resource access request"),
    )
    nonResourceAttributes = fields.Nested(
        NonResourceAttributesSchema,
        metadata=doc("NonResourceAttributes describes information for a non-resource access request"),
    )


class SubjectAccessReviewSpecSchema(SelfSubjectAccessReviewSpecSchema):
    """The access request of a user or groups: exactly one of resourceAttributes and nonResourceAttributes."""

    openapi_name = _PACKAGE + "SubjectAccessReviewSpec"

    user = fields.String(metadata=doc("User is the user you're testing for."))
    groups = _strings("Groups is the groups you're testing for.")
    extra = fields.Dict(
        keys=fields.String(), values=fields.List(fields.String()),
        metadata=doc("Extra corresponds to the user.Info.GetExtra() method from the authenticator."),
    )
    uid = fields.String(metadata=doc("UID information about the requesting user."))


class SelfSubjectAccessReviewSchema(TypedSchema):
    """Checks whether the current user can perform an action. Not filling in a spec.namespace means "in all
    namespaces"."""

    openapi_name = _PACKAGE + "SelfSubjectAccessReview"

    metadata = fields.Nested(ObjectMetaSchema, metadata=doc("Standard list metadata.", pointer=False))
    spec = fields.Nested(
        SelfSubjectAccessReviewSpecSchema, required=True,
        metadata=doc(
            "Spec holds information about the request being evaluated. user and groups must be empty",
            pointer=False,
        ),
    )
    status = fields.Nested(
        SubjectAccessReviewStatusSchema,
        metadata=doc(
            "Status is filled in by the server and indicates whether the request is allowed or not",
            pointer=False,
        ),
    )


class SubjectAccessReviewSchema(TypedSchema):
    """Checks whether or not a user or group can perform an action."""

    openapi_name = _PACKAGE + "SubjectAccessReview"

    metadata = fields.Nested(ObjectMetaSchema, metadata=doc("Standard list metadata.", pointer=False))
    spec = fields.Nested(
        SubjectAccessReviewSpecSchema, required=True,
        metadata=doc("Spec holds information about the request being evaluated", pointer=False),
    )
    status = fields.Nested(
        SubjectAccessReviewStatusSchema,
        metadata=doc(
            "Status is filled in by the server and indicates whether the request is allowed or not",
            pointer=False,
        ),
    )


class ResourceRuleSchema(K8sSchema):
    """The actions the subject may perform on resources (unordered, may repeat, may be incomplete)."""

    openapi_name = _PACKAGE + "ResourceRule"

    verbs = fields.List(
        fields.String(), required=True,
        metadata=doc('Verb is a list of kubernetes resource API verbs, like get, list or create. "*" means all.',
                     list_type="atomic"),
    )
    apiGroups = _strings('APIGroups is the name of the APIGroup that contains the resources. "*" means all.')
    resources = _strings('Resources is a list of resources this rule applies to. "*" means all in the specified '
                         "apiGroups.")
    resourceNames = _strings('ResourceNames is an optional white list of names that the rule applies to. "*" '
                             "means all.")


class NonResourceRuleSchema(K8sSchema):
    """The non-resource actions the subject may perform."""

    openapi_name = _PACKAGE + "NonResourceRule"

    verbs = fields.List(
        fields.String(), required=True,
        metadata=doc('Verb is a list of kubernetes non-resource API verbs, like get, post or put. "*" means all.',
                     list_type="atomic"),
    )
    nonResourceURLs = _strings('NonResourceURLs is a set of partial urls that a user should have access to. "*" '
                               "means all.")


class SubjectRulesReviewStatusSchema(K8sSchema):
    """The rules of what the subject may do in a namespace."""

    openapi_name = _PACKAGE + "SubjectRulesReviewStatus"

    resourceRules = fields.List(
        fields.Nested(ResourceRuleSchema), required=True,
        metadata=doc("ResourceRules is the list of actions the subject is allowed to perform on resources.",
                     list_type="atomic"),
    )
    nonResourceRules = fields.List(
        fields.Nested(NonResourceRuleSchema), required=True,
        metadata=doc("NonResourceRules is the list of actions the subject is allowed to perform on "
                     "non-resources.", list_type="atomic"),
    )
    incomplete = fields.Boolean(
        required=True,
        metadata=doc("Incomplete is true when the rules returned by this call are incomplete."),
    )
    evaluationError = fields.String(
        metadata=doc("EvaluationError can appear in combination with Rules. It indicates an error occurred during "
                     "rule evaluation."),
    )


class SelfSubjectRulesReviewSpecSchema(K8sSchema):
    """What to evaluate the rules for."""

    openapi_name = _PACKAGE + "SelfSubjectRulesReviewSpec"

    namespace = fields.String(metadata=doc("Namespace to evaluate rules for. Required."))


class SelfSubjectRulesReviewSchema(TypedSchema):
    """Enumerates the set of actions the current user can perform within a namespace."""

    openapi_name = _PACKAGE + "SelfSubjectRulesReview"

    metadata = fields.Nested(ObjectMetaSchema, metadata=doc("Standard list metadata.", pointer=False))
    spec = fields.Nested(
        SelfSubjectRulesReviewSpecSchema, required=True,
        metadata=doc("Spec holds information about the request being evaluated.", pointer=False),
    )
    status = fields.Nested(
        SubjectRulesReviewStatusSchema,
        metadata=doc(
            "Status is filled in by the server and indicates the set of actions a user can perform.",
            pointer=False,
        ),
    )
