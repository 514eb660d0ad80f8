"""admissionregistration.k8s.io/v1 MutatingWebhookConfiguration and ValidatingWebhookConfiguration: defaults,
strategy, validation and Table columns (upstream pkg/registry/admissionregistration/*webhookconfiguration)."""

from __future__ import annotations

from fakeapi.kinds.kind import Kind, ResourceInfo
from fakeapi.kinds.webhookconfiguration.strategy import WebhookConfigurationStrategy
from fakeapi.kinds.webhookconfiguration.table import WEBHOOK_CONFIGURATION_PRINTER

ADMISSION_GROUP = "admissionregistration.k8s.io"
CATEGORIES = ("api-extensions",)

MUTATING_WEBHOOK_CONFIGURATION = Kind(
    ResourceInfo("mutatingwebhookconfigurations", "MutatingWebhookConfiguration", namespaced=False,
                 singular="mutatingwebhookconfiguration", group=ADMISSION_GROUP, categories=CATEGORIES,
                 returns_deleted_object=False,
                 definition="io.k8s.api.admissionregistration.v1.MutatingWebhookConfiguration"),
    WebhookConfigurationStrategy(mutating=True),
    printer=WEBHOOK_CONFIGURATION_PRINTER,
)
VALIDATING_WEBHOOK_CONFIGURATION = Kind(
    ResourceInfo("validatingwebhookconfigurations", "ValidatingWebhookConfiguration", namespaced=False,
                 singular="validatingwebhookconfiguration", group=ADMISSION_GROUP, categories=CATEGORIES,
                 returns_deleted_object=False,
                 definition="io.k8s.api.admissionregistration.v1.ValidatingWebhookConfiguration"),
    WebhookConfigurationStrategy(mutating=False),
    printer=WEBHOOK_CONFIGURATION_PRINTER,
)
