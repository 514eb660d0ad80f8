"""The ValidatingAdmissionPolicy status controller (upstream's validatingadmissionpolicy type-checking
controller in kube-apiserver): each policy's status follows its generation, `observedGeneration` and
`typeChecking`. fakeapi does not type-check expressions against the matched kinds' schemas, so
`typeChecking` never holds warnings: `{}`."""

from __future__ import annotations

from fakeapi.machinery.errors import StatusError
from fakeapi.registry.generic import Registry
from fakeapi.registry.options import WriteOptions
from fakeapi.storage.store import Event

MANAGER = "validatingadmissionpolicy-status-controller"


class AdmissionPolicyStatusController:
    def __init__(self, status: Registry) -> None:
        self.status = status  # the policies' status subresource

    def on_event(self, event: Event) -> None:
        """Store listener: a policy came or changed."""
        key = event.key
        if key.resource != self.status.storage_resource or event.type == "DELETED":
            return
        self.status.store.after_delivery(lambda: self.sync(key.name))

    def sync(self, name: str) -> None:
        policy = self.status.find("", name)
        if policy is None:
            return
        generation = policy["metadata"].get("generation", 0)
        status = policy.get("status") or {}
        if status.get("observedGeneration") == generation and "typeChecking" in status:
            return
        policy["status"] = {**status, "observedGeneration": generation, "typeChecking": {}}
        try:
            self.status.update("", name, policy, WriteOptions(field_manager=MANAGER))
        except StatusError:
            pass  # changed or deleted meanwhile: its own event brings it back here
