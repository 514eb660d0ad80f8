"""The access and identity reviews, answered as kube-apiserver answers them, from the server's own
authorizers (`--authorization-mode`).

* SelfSubjectAccessReview / SubjectAccessReview / LocalSubjectAccessReview: validated, then answered with
  the request itself plus the authorizers' decision on the attributes it names (`allowed`, `denied`,
  `reason`), for the caller or for the user, groups and extra the spec names. Like any
  create, the answer carries the managedFields of the request's fields, which upstream's create handler
  adds before the review runs.
* SelfSubjectRulesReview: a new object with the caller's rules in the namespace asked about (AlwaysAllow:
  `*` on every resource and URL; RBAC: the rules of the roles bound to the caller); a missing
  spec.namespace is a 400.
* SelfSubjectReview: a new object naming the caller, as the server authenticated it.
* TokenReview: the request plus what the server's authenticators make of a request carrying only its
  token (`status.authenticated`, `user`, or `error`); a missing token is a 400.

Nothing is stored: there is no resourceVersion, no watch event, and dryRun changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fakeapi.kinds.authentication import SELF_SUBJECT_REVIEWS, TOKEN_REVIEWS
from fakeapi.kinds.authorization import (
    GROUP,
    LOCAL_SUBJECT_ACCESS_REVIEWS,
    SELF_SUBJECT_ACCESS_REVIEWS,
    SELF_SUBJECT_RULES_REVIEWS,
    SUBJECT_ACCESS_REVIEWS,
)
from fakeapi.kinds.authorization.validation import (
    validate_local_subject_access_review,
    validate_self_subject_access_review,
    validate_subject_access_review,
)
from fakeapi.kinds.kind import ResourceInfo
from fakeapi.machinery.clock import Clock
from fakeapi.machinery.errors import BadRequest, Invalid, StatusError, aggregate_message
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.managedfields.fieldpath import EMPTY
from fakeapi.machinery.managedfields.fieldsets import created_fields
from fakeapi.machinery.schema.compiled import CompiledSchema
from fakeapi.machinery.schema.definitions import KUBERNETES_1_32
from fakeapi.machinery.schema.structural import Structural
from fakeapi.machinery.types import JSON
from fakeapi.machinery.users import UserInfo
from fakeapi.registry.authorization.attributes import Attributes
from fakeapi.registry.authorization.decision import DENY
from fakeapi.registry.authorization.modes import ServerAuthorizer
from fakeapi.registry.decoding import decode_body
from fakeapi.registry.options import WriteOptions


@dataclass(frozen=True)
class TokenResult:
    """What the server's authenticators make of a token: its user (None: not authenticated), or why not."""

    user: UserInfo | None
    error: str = ""
    audiences: tuple[str, ...] = ()  # those asked for that the token is good for


@dataclass(frozen=True)
class ReviewContext:
    """Who asks for a review, and what the server knows that the answers need."""

    field_manager: str | None
    clock: Clock
    user: UserInfo  # the caller, as the server authenticated it
    review_token: Callable[[str, list[str]], TokenResult]  # (token, audiences asked for) -> result
    authorizer: ServerAuthorizer
    namespace: str = ""  # the path's, for a namespaced review (LocalSubjectAccessReview)


# (decoded request, its review, context) -> the answer's fields after apiVersion and kind
Answer = Callable[[JSON, "Review", ReviewContext], JSON]


@dataclass(frozen=True)
class Review:
    info: ResourceInfo
    answer: Answer

    @property
    def compiled(self) -> CompiledSchema:
        return KUBERNETES_1_32.compiled(self.info.definition)


def create_review(review: Review, body: Any, options: WriteOptions, context: ReviewContext) -> JSON:
    """The answer to a POST of `body` to the review's endpoint (201 Created)."""
    request = _decode(review, body, options)
    if review.info.namespaced:
        metadata = request.setdefault("metadata", {})
        if not metadata.get("namespace"):
            metadata["namespace"] = context.namespace
        elif metadata["namespace"] != context.namespace:
            raise BadRequest("the namespace of the provided object does not match the namespace sent on the request")
    info = review.info
    return {"kind": info.kind, "apiVersion": info.api_version, **review.answer(request, review, context)}


def _decode(review: Review, body: Any, options: WriteOptions) -> JSON:
    """The body shape-checked as the create handler decodes it; unknown fields per fieldValidation."""
    info, kind = review.info, review.info.kind
    return decode_body(review.compiled.decoder(), body, kind, (info.api_version,), options)


class _InvalidReview(Invalid):
    """Upstream's NewInvalid for a review: the decoded object's Kind is empty, so the message names only the
    group, and the details have no name or kind."""

    def __init__(self, errors: list[FieldError]) -> None:
        StatusError.__init__(self, f'.{GROUP} "" is invalid: {aggregate_message(errors)}',
                             {"group": GROUP, "causes": [error.to_cause() for error in errors]})
        self.errors = errors


# ---- the answers


def _access_review(validate: Callable[[JSON], list[FieldError]], self_review: bool = False) -> Answer:
    def answer(request: JSON, review: Review, context: ReviewContext) -> JSON:
        errors = validate(request)
        if errors:
            raise _InvalidReview(errors)
        metadata, spec = _echoed(request, review, context)
        if review.info.namespaced:
            metadata = {"namespace": context.namespace, **metadata}
        user = context.user if self_review else _spec_user(request.get("spec") or {})
        decision = context.authorizer.authorize(_attributes(user, request.get("spec") or {}))
        status: JSON = {"allowed": decision.allowed}
        if decision.verdict == DENY:
            status["denied"] = True
        if decision.reason:
            status["reason"] = decision.reason
        return {"metadata": metadata, "spec": spec, "status": status}

    return answer


def _spec_user(spec: JSON) -> UserInfo:
    """The user a SubjectAccessReview asks about."""
    extra = {key: tuple(values or ()) for key, values in (spec.get("extra") or {}).items()}
    return UserInfo(spec.get("user") or "", spec.get("uid") or "", tuple(spec.get("groups") or ()), extra)


def _attributes(user: UserInfo, spec: JSON) -> Attributes:
    resource = spec.get("resourceAttributes")
    if resource is not None:
        return Attributes(user, resource.get("verb") or "", True, resource.get("namespace") or "",
                          resource.get("group") or "", resource.get("resource") or "",
                          resource.get("subresource") or "", resource.get("name") or "")
    non_resource = spec.get("nonResourceAttributes") or {}
    return Attributes(user, non_resource.get("verb") or "", False, path=non_resource.get("path") or "")


def _echoed(request: JSON, review: Review, context: ReviewContext) -> tuple[JSON, JSON]:
    """The metadata and spec of an answer that echoes the request: the spec as Go encodes it, and the
    managedFields of what upstream's field manager finds set in the request, against Go zero values."""
    compiled = review.compiled
    fields = compiled.schema.properties
    spec = go_json(fields["spec"].schema, request.get("spec"))
    metadata: JSON = {"creationTimestamp": None}
    sent = {"spec": spec, "status": go_json(fields["status"].schema, request.get("status"))}
    zero = {name: value for name, value in compiled.zero.items() if name in sent}
    owned = created_fields(sent, compiled.patch_tree, zero, EMPTY)
    if owned:
        metadata["managedFields"] = [_update_entry(context.field_manager, review.info.api_version,
                                                   context.clock.timestamp(), owned)]
    return metadata, spec


def _rules_review(request: JSON, review: Review, context: ReviewContext) -> JSON:
    namespace = (request.get("spec") or {}).get("namespace")
    if not namespace:
        raise BadRequest("no namespace on request")
    found = context.authorizer.rules_for(context.user, namespace)
    status: JSON = {"resourceRules": [_resource_rule(rule) for rule in found.rules if rule.get("resources")],
                    "nonResourceRules": [{"verbs": list(rule.get("verbs") or []),
                                          "nonResourceURLs": list(rule["nonResourceURLs"])}
                                         for rule in found.rules if rule.get("nonResourceURLs")],
                    "incomplete": found.incomplete}
    if found.error:
        status["evaluationError"] = found.error
    # a new object: the request's spec is not echoed
    return {"metadata": {"creationTimestamp": None}, "spec": {}, "status": status}


def _resource_rule(rule: JSON) -> JSON:
    """A PolicyRule as the ResourceRule a rules review lists (empty lists left out)."""
    out: JSON = {"verbs": list(rule.get("verbs") or [])}
    for name in ("apiGroups", "resources", "resourceNames"):
        if rule.get(name):
            out[name] = list(rule[name])
    return out


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
    if result.audiences:
        status["audiences"] = list(result.audiences)
    if result.error:
        status["error"] = result.error
    return {"metadata": metadata, "spec": echoed, "status": status}


def _update_entry(manager: str | None, api_version: str, time: str, owned: JSON) -> JSON:
    entry: JSON = {"manager": manager} if manager else {}
    entry.update({"operation": "Update", "apiVersion": api_version, "time": time, "fieldsType": "FieldsV1",
                  "fieldsV1": owned})
    return entry


REVIEWS: tuple[Review, ...] = (
    Review(SELF_SUBJECT_ACCESS_REVIEWS,
           _access_review(validate_self_subject_access_review, self_review=True)),
    Review(SUBJECT_ACCESS_REVIEWS,
           _access_review(validate_subject_access_review)),
    Review(LOCAL_SUBJECT_ACCESS_REVIEWS,
           _access_review(validate_local_subject_access_review)),
    Review(SELF_SUBJECT_RULES_REVIEWS, _rules_review),
    Review(SELF_SUBJECT_REVIEWS, _self_review),
    Review(TOKEN_REVIEWS, _token_review),
)


# ---- Go's encoding of what was decoded


def go_json(schema: Structural, value: Any) -> Any:
    """`value` as encoding/json writes the Go struct it decodes to: fields in struct order, empty values
    of omitempty fields left out, a missing field without omitempty as its zero value."""
    if schema.type == "object" and schema.properties:
        sent = value if isinstance(value, dict) else {}
        out: JSON = {}
        for name, prop in schema.properties.items():
            go = prop.go
            if sent.get(name) is not None:
                encoded = go_json(prop.schema, sent[name])
                if go is None or not go.drops_empty or encoded not in ("", False, [], {}):
                    out[name] = encoded
            elif go is not None and not go.omitempty:
                out[name] = prop.zero_json()
        return out
    if schema.type == "array" and schema.items is not None and isinstance(value, list):
        return [go_json(schema.items, item) for item in value]
    return value
