"""The webhooks of the stored configurations of one kind, in upstream's order (configurations by name, then
their webhooks in order), read again only when the stored configurations changed."""

from __future__ import annotations

from collections.abc import Callable

import orjson

from fakeapi.registry.admission import ObjectReader
from fakeapi.registry.admission.webhook.plugins import (
    Hook,
    MutatingWebhooks,
    ValidatingWebhooks,
)

GROUP = "admissionregistration.k8s.io"


class StoredWebhooks:
    def __init__(self, list_stored: Callable[[], list[bytes]]) -> None:
        self.list_stored = list_stored
        self._seen: list[bytes] = []
        self._hooks: list[Hook] = []

    def __call__(self) -> list[Hook]:
        stored = self.list_stored()
        if len(stored) != len(self._seen) or any(a is not b and a != b for a, b in zip(stored, self._seen,
                                                                                        strict=True)):
            configurations = sorted((orjson.loads(data) for data in stored), key=lambda c: c["metadata"]["name"])
            self._hooks = [Hook(configuration["metadata"]["name"], webhook) for configuration in configurations
                           for webhook in configuration.get("webhooks") or [] if isinstance(webhook, dict)]
            self._seen = stored
        return self._hooks


def mutating_webhooks(objects: ObjectReader) -> MutatingWebhooks:
    hooks = StoredWebhooks(lambda: objects.list_stored("mutatingwebhookconfigurations", GROUP))
    return MutatingWebhooks(objects, hooks, objects.serves_other_versions)


def validating_webhooks(objects: ObjectReader) -> ValidatingWebhooks:
    hooks = StoredWebhooks(lambda: objects.list_stored("validatingwebhookconfigurations", GROUP))
    return ValidatingWebhooks(objects, hooks, objects.serves_other_versions)
