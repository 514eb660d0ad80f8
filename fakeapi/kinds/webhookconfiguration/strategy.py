"""Webhook configuration strategy (upstream pkg/registry/admissionregistration/*webhookconfiguration/strategy.go):
v1 defaulting, generation 1 on create and bumped when the webhooks change, updates that name a resourceVersion."""

from __future__ import annotations

from fakeapi.kinds.strategy import Strategy
from fakeapi.kinds.webhookconfiguration.validation import validate_configuration, validate_configuration_update
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON


def default_webhook(webhook: JSON, mutating: bool) -> None:
    """admissionregistration/v1 SetDefaults_*Webhook, SetDefaults_Rule and SetDefaults_ServiceReference."""
    webhook.setdefault("failurePolicy", "Fail")
    webhook.setdefault("matchPolicy", "Equivalent")
    if webhook.get("namespaceSelector") is None:
        webhook["namespaceSelector"] = {}
    if webhook.get("objectSelector") is None:
        webhook["objectSelector"] = {}
    webhook.setdefault("timeoutSeconds", 10)
    if mutating:
        webhook.setdefault("reinvocationPolicy", "Never")
    for rule in webhook.get("rules") or []:
        if isinstance(rule, dict) and rule.get("scope") is None:
            rule["scope"] = "*"
    service = (webhook.get("clientConfig") or {}).get("service")
    if isinstance(service, dict) and service.get("port") is None:
        service["port"] = 443


class WebhookConfigurationStrategy(Strategy):
    validation_covers_object_meta = True  # the configuration's ObjectMeta is checked with a DNS subdomain name

    def __init__(self, mutating: bool) -> None:
        self.mutating = mutating

    def reset_fields(self) -> tuple[str, ...]:
        return ()  # no status

    def default(self, obj: JSON) -> None:
        for webhook in obj.get("webhooks") or []:
            if isinstance(webhook, dict):
                default_webhook(webhook, self.mutating)

    def prepare_for_create(self, obj: JSON) -> None:
        obj["metadata"]["generation"] = 1

    def validate(self, obj: JSON) -> list[FieldError]:
        return validate_configuration(obj, self.mutating)

    def prepare_for_update(self, new: JSON, old: JSON) -> None:
        generation = old["metadata"].get("generation", 0)
        new["metadata"]["generation"] = generation + 1 if new.get("webhooks") != old.get("webhooks") else generation

    def validate_update(self, new: JSON, old: JSON) -> list[FieldError]:
        return validate_configuration_update(new, old, self.mutating)

    def allow_unconditional_update(self) -> bool:
        return False
