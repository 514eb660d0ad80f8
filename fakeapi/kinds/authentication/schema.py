"""authentication.k8s.io/v1 SelfSubjectReview (the body of `kubectl auth whoami` and its answer) and
TokenReview (a token to authenticate, and who it names)."""

from __future__ import annotations

from marshmallow import fields

from fakeapi.machinery.schemas.base import K8sSchema, TypedSchema, doc
from fakeapi.machinery.schemas.meta import ObjectMetaSchema


class UserInfoSchema(K8sSchema):
    """The information about the user needed to implement the user.Info interface."""

    openapi_name = "io.k8s.api.authentication.v1.UserInfo"

    username = fields.String(metadata=doc("The name that uniquely identifies this user among all active users."))
    uid = fields.String(metadata=doc("A unique value that identifies this user across time."))
    groups = fields.List(
        fields.String(), metadata=doc("The names of groups this user is a part of.", list_type="atomic"),
    )
    extra = fields.Dict(
        keys=fields.String(), values=fields.List(fields.String()),
        metadata=doc("Any additional information provided by the authenticator."),
    )


class SelfSubjectReviewStatusSchema(K8sSchema):
    """Filled in by the server with the user attributes."""

    openapi_name = "io.k8s.api.authentication.v1.SelfSubjectReviewStatus"

    userInfo = fields.Nested(
        UserInfoSchema,
        metadata=doc("User attributes of the user making this request.", pointer=False),
    )


class SelfSubjectReviewSchema(TypedSchema):
    """Contains the user information that the kube-apiserver has about the user making this request."""

    openapi_name = "io.k8s.api.authentication.v1.SelfSubjectReview"

    metadata = fields.Nested(ObjectMetaSchema, metadata=doc("Standard object's metadata.", pointer=False))
    status = fields.Nested(
        SelfSubjectReviewStatusSchema,
        metadata=doc("Status is filled in by the server with the user attributes.", pointer=False),
    )


class TokenReviewSpecSchema(K8sSchema):
    """The token to authenticate."""

    openapi_name = "io.k8s.api.authentication.v1.TokenReviewSpec"

    token = fields.String(metadata=doc("The bearer token, as a client would present it."))
    audiences = fields.List(
        fields.String(),
        metadata=doc("The audiences the token is presented for: an audience-aware authenticator accepts the "
                     "token only if it was issued for one of them (none given: the API server's own).",
                     list_type="atomic"),
    )


class TokenReviewStatusSchema(K8sSchema):
    """What the server found: the token's user, or why it names none."""

    openapi_name = "io.k8s.api.authentication.v1.TokenReviewStatus"

    authenticated = fields.Boolean(metadata=doc("Whether the token names a known user."))
    user = fields.Nested(UserInfoSchema, metadata=doc("The user the token names.", pointer=False))
    audiences = fields.List(
        fields.String(),
        metadata=doc("The audiences, chosen by the authenticator, that suit both the review and the token.",
                     list_type="atomic"),
    )
    error = fields.String(metadata=doc("Why the token could not be checked."))


class TokenReviewSchema(TypedSchema):
    """Asks the server to authenticate a token, as it would one a request presents."""

    openapi_name = "io.k8s.api.authentication.v1.TokenReview"

    metadata = fields.Nested(ObjectMetaSchema, metadata=doc("Standard object's metadata.", pointer=False))
    spec = fields.Nested(TokenReviewSpecSchema, required=True,
                         metadata=doc("The token to authenticate.", pointer=False))
    status = fields.Nested(TokenReviewStatusSchema,
                           metadata=doc("Filled in by the server: whether the token authenticates, and whom.",
                                        pointer=False))
