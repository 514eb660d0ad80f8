"""MutatingAdmissionWebhook and ValidatingAdmissionWebhook: for each webhook a request matches, the answer
of its call, or a stop for the call (CallsPending) when the request has none yet.

Mutating webhooks run one after the other, each seeing what the one before made (their JSONPatch applied, the
object decoded and defaulted again); one with `reinvocationPolicy: IfNeeded` runs once more when a later one
changed the object. Validating webhooks are called together, after validation."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson

from fakeapi.machinery.errors import BadRequest, Forbidden, InternalError, StatusError
from fakeapi.machinery.jsonvalues import copy_json
from fakeapi.machinery.types import JSON
from fakeapi.registry.admission import Attributes, ObjectReader
from fakeapi.registry.admission.request import CallsPending, RequestContext
from fakeapi.registry.admission.webhook.matching import exempt, rules_match, selectors_match
from fakeapi.registry.admission.webhook.review import denial, review_request

if TYPE_CHECKING:
    from fakeapi.registry.admission.webhook.conditions import Compiler

MUTATING_NAME = "MutatingAdmissionWebhook"
VALIDATING_NAME = "ValidatingAdmissionWebhook"
DRY_RUN_SAFE = ("None", "NoneOnDryRun")


@dataclass(frozen=True)
class Hook:
    configuration: str
    webhook: JSON

    @property
    def name(self) -> str:
        return str(self.webhook.get("name") or "")


@dataclass(frozen=True)
class Call:
    """A call a run stopped for: where its answer goes, the webhook, the review to send."""

    key: str
    hook: Hook
    review: JSON
    mutating: bool


# the outcome of a call, kept in the request context under the call's key
@dataclass(frozen=True)
class Answered:
    response: JSON  # the review's checked `response` (its patch decoded)


@dataclass(frozen=True)
class Failed:
    reason: str  # `failed to call webhook: Post "...": ...`, `received invalid webhook response: ...`


Configurations = Callable[[], list[Hook]]  # the webhooks of every configuration of a kind, in upstream's order
ServesOtherVersions = Callable[[str, str, str], bool]  # (group, resource, version): another version is served


def internal_error(text: str) -> InternalError:
    """upstream's NewInternalError."""
    return InternalError(f"Internal error occurred: {text}", {"causes": [{"message": text}]})


class WebhookDispatcher:
    """What both plugins share: matching, the calls' keys, match conditions, failures."""

    mutating = False

    def __init__(self, objects: ObjectReader, configurations: Configurations,
                 serves_other_versions: ServesOtherVersions) -> None:
        self.objects = objects
        self.configurations = configurations
        self.serves_other_versions = serves_other_versions
        self._conditions: Compiler | None = None  # compiled match conditions (with the CEL runtime, on first use)

    def hooks_for(self, attributes: Attributes) -> tuple[RequestContext, list[Hook]] | None:
        context = attributes.request
        if context is None or exempt(attributes):
            return None
        hooks = self.configurations()
        return (context, hooks) if hooks else None

    def should_call(self, hook: Hook, attributes: Attributes, context: RequestContext) -> JSON | None:
        """The review to send when the webhook is called for this request, or None. (Its uid is drawn from the
        server's ids, so that a write run again draws it again.)"""
        info = attributes.info
        if not rules_match(hook.webhook, attributes,
                           lambda: self.serves_other_versions(info.group, info.resource, info.version)):
            return None
        namespace = None
        if info.namespaced and hook.webhook.get("namespaceSelector"):
            namespace = self.objects.find("namespaces", "", attributes.namespace)
        if not selectors_match(hook.webhook, attributes, namespace):
            return None
        review = review_request(attributes, context, self.objects.ids.uid(), self.mutating)
        conditions = hook.webhook.get("matchConditions") or []
        if conditions and not self._conditions_match(hook, conditions, attributes, review, namespace):
            return None
        if attributes.dry_run and hook.webhook.get("sideEffects") not in DRY_RUN_SAFE:
            raise BadRequest(f'admission webhook "{hook.name}" does not support dry run')
        return review

    def _conditions_match(self, hook: Hook, conditions: list[Any], attributes: Attributes, review: JSON,
                          namespace: JSON | None) -> bool:
        from fakeapi.registry.admission.webhook.conditions import compiler, evaluate_conditions

        if self._conditions is None:
            self._conditions = compiler()
        if attributes.info.namespaced and namespace is None:
            namespace = self.objects.find("namespaces", "", attributes.namespace)
        matches, errors = evaluate_conditions(self._conditions, conditions, review["request"], namespace)
        if not matches:
            return False
        if errors and hook.webhook.get("failurePolicy", "Fail") == "Fail":
            info = attributes.info
            raise Forbidden.for_object(info.resource, attributes.name, "; ".join(errors), group=info.group)
        return not errors

    def key(self, hook: Hook, attributes: Attributes, round_: int) -> str:
        old_version = ((attributes.old or {}).get("metadata") or {}).get("resourceVersion", "")
        stage = "mutating" if self.mutating else "validating"
        return f"{stage}/{hook.configuration}/{hook.name}/{round_}/{old_version}"

    def failure(self, hook: Hook, reason: str) -> StatusError | None:
        """The error a failed call is (None under `failurePolicy: Ignore`)."""
        if hook.webhook.get("failurePolicy", "Fail") == "Ignore":
            return None
        return internal_error(f'failed calling webhook "{hook.name}": {reason}')

    def record(self, response: JSON, hook: Hook, context: RequestContext) -> None:
        context.warnings.extend(str(warning) for warning in response.get("warnings") or [])
        for key, value in (response.get("auditAnnotations") or {}).items():
            context.audit_annotations[f"{hook.name}/{key}"] = str(value)


class MutatingWebhooks(WebhookDispatcher):
    mutating = True

    def admit(self, attributes: Attributes) -> None:
        found = self.hooks_for(attributes)
        if found is None:
            return
        context, hooks = found
        invoked_if_needed: list[str] = []
        reinvoke: set[str] = set()
        for hook in hooks:
            if self._invoke(hook, attributes, context, 0):
                reinvoke.update(invoked_if_needed)
            if hook.webhook.get("reinvocationPolicy") == "IfNeeded" and hook.name not in invoked_if_needed:
                invoked_if_needed.append(hook.name)
        for hook in hooks:
            if hook.name in reinvoke:
                self._invoke(hook, attributes, context, 1)

    def _invoke(self, hook: Hook, attributes: Attributes, context: RequestContext, round_: int) -> bool:
        """Apply the webhook's answer (or stop for its call); whether it changed the object."""
        review = self.should_call(hook, attributes, context)
        if review is None:
            return False
        key = self.key(hook, attributes, round_)
        outcome = context.answers.get(key)
        if outcome is None:
            context.pending = [Call(key, hook, review, True)]
            raise CallsPending(context)
        if isinstance(outcome, Failed):
            error = self.failure(hook, outcome.reason)
            if error is not None:
                raise error
            return False
        response: JSON = outcome.response
        self.record(response, hook, context)
        if not response.get("allowed"):
            raise denial(hook.name, response.get("status"))
        patch = response.get("patch")
        if not patch:
            return False
        return self._apply(hook, attributes, patch)

    def _apply(self, hook: Hook, attributes: Attributes, patch: bytes) -> bool:
        from fakeapi.machinery.patch import apply_json_patch

        obj = attributes.obj
        if obj is None:
            raise internal_error(f'admission webhook "{hook.name}" attempted to modify the object, which is not '
                                 "supported for this operation")
        try:
            operations = orjson.loads(patch)
        except ValueError as error:
            raise internal_error(f'failed calling webhook "{hook.name}": received undecodable patch in webhook '
                                 f"response: {error}") from None
        if not operations:
            return False
        try:
            patched = apply_json_patch(copy_json(attributes.shown(obj) or obj), operations)
            if attributes.decode is not None:
                patched = attributes.decode(patched)
        except StatusError as error:  # (a patch that does not apply: upstream answers jsonpatch's reason)
            raise internal_error(str(getattr(error, "cause", error.message))) from None
        if patched == obj:
            return False
        obj.clear()
        obj.update(patched)
        return True


class ValidatingWebhooks(WebhookDispatcher):
    def validate(self, attributes: Attributes) -> None:
        found = self.hooks_for(attributes)
        if found is None:
            return
        context, hooks = found
        calls: list[Call] = []
        invoked: list[tuple[Hook, Any]] = []
        for hook in hooks:
            review = self.should_call(hook, attributes, context)
            if review is None:
                continue
            key = self.key(hook, attributes, 0)
            outcome = context.answers.get(key)
            if outcome is None:
                calls.append(Call(key, hook, review, False))
            invoked.append((hook, outcome))
        if calls:
            context.pending = calls
            raise CallsPending(context)
        for hook, outcome in invoked:
            if isinstance(outcome, Failed):
                error = self.failure(hook, outcome.reason)
                if error is not None:
                    raise error
                continue
            self.record(outcome.response, hook, context)
        for hook, outcome in invoked:
            if isinstance(outcome, Answered) and not outcome.response.get("allowed"):
                raise denial(hook.name, outcome.response.get("status"))
