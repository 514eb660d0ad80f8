"""The service accounts controller (upstream pkg/controller/serviceaccount): every active namespace has a
`default` ServiceAccount, made when the namespace is and made again when it is deleted.

The work runs right after the change that calls for it has reached every store listener (the store's
`after_delivery`), so a namespace's account exists by the time its creation is answered, and watchers see the
namespace before its account.
"""

from __future__ import annotations

from fakeapi.machinery.errors import StatusError
from fakeapi.registry.generic import Registry
from fakeapi.registry.options import WriteOptions
from fakeapi.storage.store import Event

MANAGER = "kube-controller-manager"
DEFAULT_SERVICE_ACCOUNT = "default"


def active(namespaces: Registry, name: str) -> bool:
    namespace = namespaces.find("", name)
    return namespace is not None and (namespace.get("status") or {}).get("phase") == "Active"


class ServiceAccountsController:
    def __init__(self, namespaces: Registry, service_accounts: Registry) -> None:
        self.namespaces = namespaces
        self.service_accounts = service_accounts

    def on_event(self, event: Event) -> None:
        """Store listener: a namespace came or changed, or a default account went."""
        key = event.key
        if key.resource == "namespaces" and event.type != "DELETED":
            namespace = key.name
        elif key.resource == "serviceaccounts" and event.type == "DELETED" and key.name == DEFAULT_SERVICE_ACCOUNT:
            namespace = key.namespace
        else:
            return
        self.service_accounts.store.after_delivery(lambda: self.sync(namespace))

    def sync(self, namespace: str) -> None:
        if not active(self.namespaces, namespace):
            return  # nothing is made in a namespace being deleted
        if self.service_accounts.find(namespace, DEFAULT_SERVICE_ACCOUNT) is not None:
            return
        try:
            self.service_accounts.create(namespace, {"metadata": {"name": DEFAULT_SERVICE_ACCOUNT}},
                                         WriteOptions(field_manager=MANAGER))
        except StatusError:
            pass  # as upstream's: a namespace that is going away is not retried
