"""The access and identity reviews, answered as kube-apiserver answers them with the AlwaysAllow
authorizer (fakeapi allows every request of every user).

* SelfSubjectAccessReview / SubjectAccessReview: validated, then answered with the request itself plus
  `status.allowed: true` (AlwaysAllow's decision, with no reason). Like any create, the answer carries
  the managedFields of the request's fields, which upstream's create handler adds before the review runs.
* SelfSubjectRulesReview: a new object with AlwaysAllow's rules (`*` on every resource and URL); a
  missing spec.namespace is a 400.
* SelfSubjectReview: a new object naming the caller, as the server authenticated it.
* TokenReview: the request plus what the server's authenticators make of a request carrying only its
  token (`status.authenticated`, `user`, or `error`); a missing token is a 400.

Nothing is stored: there is no resourceVersion, no watch event, and dryRun changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from marshmallow import Schema, fields

from fakeapi.kinds.authentication import SELF_SUBJECT_REVIEWS, TOKEN_REVIEWS
from fakeapi.kinds.authentication.schema import SelfSubjectReviewSchema, TokenReviewSchema
from fakeapi.kinds.authorization import (
    GROUP,
    SELF_SUBJECT_ACCESS_REVIEWS,
    SELF_SUBJECT_RULES_REVIEWS,
    SUBJECT_ACCESS_REVIEWS,
)
from fakeapi.kinds.authorization.schema import (
    SelfSubjectAccessReviewSchema,
    SelfSubjectRulesReviewSchema,
    SubjectAccessReviewSchema,
)
from fakeapi.kinds.authorization.validation import validate_self_subject_access_review, validate_subject_access_review
from fakeapi.kinds.kind import ResourceInfo
from fakeapi.machinery.clock import Clock
from fakeapi.machinery.decode import Decoder, decode_plan
from fakeapi.machinery.errors import BadRequest, Invalid, StatusError, aggregate_message
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.managedfields.fieldpath import EMPTY
from fakeapi.machinery.managedfields.fieldsets import created_fields
from fakeapi.machinery.schemas.gofields import zero_struct
from fakeapi.machinery.schemas.patchtree import patch_tree
from fakeapi.machinery.types import JSON
from fakeapi.machinery.users import UserInfo
from fakeapi.registry.options import WriteOptions

# AlwaysAllow's RulesFor
ALL_RULES: JSON = {
    "resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}],
    "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}],
    "incomplete": False,
}


@dataclass(frozen=True)
class TokenResult:
    """What the server's authenticators make of a token: its user (None: not authenticated), or why not."""

    user: UserInfo | None
    error: str = ""


@dataclass(frozen=True)
class ReviewContext:
    """Who asks for a review, and what the server knows that the answers need."""

    field_manager: str | None
    clock: Clock
    user: UserInfo  # the caller, as the server authenticated it
    review_token: Callable[[str, list[str]], TokenResult]  # (token, audiences asked for) -> result


# (decoded request, its review, context) -> the answer's fields after apiVersion and kind
Answer = Callable[[JSON, "Review", ReviewContext], JSON]


@dataclass(frozen=True)
class Review:
    info: ResourceInfo
    schema: Schema
    answer: Answer
    # compiled from the schema, once: its decoder, and what managedFields are computed with (the patch
    # tree, and the Go zero value a create is compared against)
    decoder: Decoder = field(init=False, repr=False, compare=False)
    tree: JSON = field(init=False, repr=False, compare=False)
    zero: JSON = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:  # (frozen: set here only)
        object.__setattr__(self, "decoder", Decoder(decode_plan(self.schema)))
        object.__setattr__(self, "tree", patch_tree(self.schema))
        object.__setattr__(self, "zero", zero_struct(type(self.schema)))


def create_review(review: Review, body: Any, options: WriteOptions, context: ReviewContext) -> JSON:
    """The answer to a POST of `body` to the review's endpoint (201 Created)."""
    request = _decode(review, body, options)
    info = review.info
    return {"kind": info.kind, "apiVersion": info.api_version, **review.answer(request, review, context)}


def _decode(review: Review, body: Any, options: WriteOptions) -> JSON:
    """The body shape-checked as the create handler decodes it; unknown fields per fieldValidation."""
    info, kind = review.info, review.info.kind
    if isinstance(body, dict):
        api_version = body.get("apiVersion")
        if api_version not in (None, "", info.api_version):
            raise BadRequest(f"the API version in the data ({api_version}) does not match the expected API "
                             f"version ({info.api_version})")
        sent_kind = body.get("kind")
        if sent_kind not in (None, "", kind):
            raise BadRequest(f"the kind in the data ({sent_kind}) does not match the expected kind ({kind})")
    decoded = review.decoder.decode(body, kind, info.version)
    if decoded.unknown and options.field_validation == "Strict":
        raise BadRequest(f'{kind} in version "{info.version}" cannot be handled as a {kind}: strict decoding '
                         "error: " + ", ".join(decoded.unknown))
    if decoded.unknown and options.field_validation == "Warn":
        options.warnings.extend(decoded.unknown)
    return decoded.obj


class _InvalidReview(Invalid):
    """Upstream's NewInvalid for a review: the decoded object's Kind is empty, so the message names only the
    group, and the details have no name or kind."""

    def __init__(self, errors: list[FieldError]) -> None:
        StatusError.__init__(self, f'.{GROUP} "" is invalid: {aggregate_message(errors)}',
                             {"group": GROUP, "causes": [error.to_cause() for error in errors]})
        self.errors = errors


# ---- the answers


def _access_review(validate: Callable[[JSON], list[FieldError]]) -> Answer:
    def answer(request: JSON, review: Review, context: ReviewContext) -> JSON:
        errors = validate(request)
        if errors:
            raise _InvalidReview(errors)
        metadata, spec = _echoed(request, review, context)
        return {"metadata": metadata, "spec": spec, "status": {"allowed": True}}

    return answer


def _echoed(request: JSON, review: Review, context: ReviewContext) -> tuple[JSON, JSON]:
    """The metadata and spec of an answer that echoes the request: the spec as Go encodes it, and the
    managedFields of what upstream's field manager finds set in the request, against Go zero values."""
    schema = review.schema
    spec_field, status_field = schema.fields["spec"], schema.fields["status"]
    spec = go_json(spec_field, request.get("spec"))
    metadata: JSON = {"creationTimestamp": None}
    sent = {"spec": spec, "status": go_json(status_field, request.get("status"))}
    zero = {name: value for name, value in review.zero.items() if name in sent}
    owned = created_fields(sent, review.tree, zero, EMPTY)
    if owned:
        metadata["managedFields"] = [_update_entry(context.field_manager, review.info.api_version,
                                                   context.clock.timestamp(), owned)]
    return metadata, spec


def _rules_review(request: JSON, review: Review, context: ReviewContext) -> JSON:
    if not (request.get("spec") or {}).get("namespace"):
        raise BadRequest("no namespace on request")
    # a new object: the request's spec is not echoed
    return {"metadata": {"creationTimestamp": None}, "spec": {}, "status": ALL_RULES}


def _self_review(request: JSON, review: Review, context: ReviewContext) -> JSON:
    return {"metadata": {"creationTimestamp": context.clock.timestamp()},
            "status": {"userInfo": context.user.to_json()}}


def _token_review(request: JSON, review: Review, context: ReviewContext) -> JSON:
    spec = request.get("spec") or {}
    if not spec.get("token"):
        raise BadRequest("token is required for TokenReview in authentication")
    metadata, echoed = _echoed(request, review, context)
    result = context.review_token(spec["token"], list(spec.get("audiences") or ()))
    status: JSON = {"authenticated": True} if result.user is not None else {}
    status["user"] = result.user.to_json() if result.user is not None else {}
    if result.error:
        status["error"] = result.error
    return {"metadata": metadata, "spec": echoed, "status": status}


def _update_entry(manager: str | None, api_version: str, time: str, owned: JSON) -> JSON:
    entry: JSON = {"manager": manager} if manager else {}
    entry.update({"operation": "Update", "apiVersion": api_version, "time": time, "fieldsType": "FieldsV1",
                  "fieldsV1": owned})
    return entry


REVIEWS: tuple[Review, ...] = (
    Review(SELF_SUBJECT_ACCESS_REVIEWS, SelfSubjectAccessReviewSchema(),
           _access_review(validate_self_subject_access_review)),
    Review(SUBJECT_ACCESS_REVIEWS, SubjectAccessReviewSchema(), _access_review(validate_subject_access_review)),
    Review(SELF_SUBJECT_RULES_REVIEWS, SelfSubjectRulesReviewSchema(), _rules_review),
    Review(SELF_SUBJECT_REVIEWS, SelfSubjectReviewSchema(), _self_review),
    Review(TOKEN_REVIEWS, TokenReviewSchema(), _token_review),
)


# ---- Go's encoding of what was decoded


def go_json(declared: fields.Field[Any], value: Any) -> Any:
    """`value` as encoding/json writes the Go struct it decodes to: fields in struct order, empty ones of
    `omitempty` fields (all but the `required` ones) left out, a missing required one as its zero value."""
    if isinstance(declared, fields.Nested):
        schema = declared.schema
        sent = value if isinstance(value, dict) else {}
        out: JSON = {}
        for name, field in schema.fields.items():
            if name in sent and sent[name] is not None:
                encoded = go_json(field, sent[name])
                if field.required or encoded not in ("", False, [], {}) or isinstance(field, fields.Nested):
                    out[name] = encoded
            elif field.required:
                out[name] = _zero(field)
        return out
    if isinstance(declared, fields.List) and isinstance(value, list):
        return [go_json(declared.inner, item) for item in value]
    return value


def _zero(declared: fields.Field[Any]) -> Any:
    if isinstance(declared, fields.Boolean):
        return False
    if isinstance(declared, fields.String):
        return ""
    if isinstance(declared, fields.Nested):
        return {}
    return None  # a nil slice or map
