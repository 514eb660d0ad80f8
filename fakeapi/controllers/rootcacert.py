"""The root CA certificate publisher (upstream pkg/controller/certificates/rootcacertpublisher): every active
namespace has the `kube-root-ca.crt` ConfigMap with the cluster's CA bundle under `ca.crt`, made when the
namespace is, made again when deleted, and put back when changed.

Like the service accounts controller, it works right after the change it reacts to has reached every store
listener, so the ConfigMap exists by the time the namespace's creation is answered.
"""

from __future__ import annotations

from fakeapi.controllers.rootca import FAKE_CA_CERTIFICATE
from fakeapi.controllers.serviceaccounts import MANAGER, active
from fakeapi.machinery.errors import StatusError
from fakeapi.machinery.types import JSON
from fakeapi.registry.generic import Registry
from fakeapi.registry.options import WriteOptions
from fakeapi.storage.store import Event

CONFIG_MAP_NAME = "kube-root-ca.crt"
DESCRIPTION_ANNOTATION = "kubernetes.io/description"
DESCRIPTION = (
    "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as "
    "the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of "
    "Kubernetes clusters."
)


class RootCACertPublisher:
    def __init__(self, namespaces: Registry, config_maps: Registry, ca_bundle: str = FAKE_CA_CERTIFICATE) -> None:
        self.namespaces = namespaces
        self.config_maps = config_maps
        self.data = {"ca.crt": ca_bundle}

    def on_event(self, event: Event) -> None:
        """Store listener: a namespace came or changed, or the ConfigMap was changed or deleted."""
        key = event.key
        if key.resource == "namespaces" and event.type != "DELETED":
            namespace = key.name
        elif key.resource == "configmaps" and key.name == CONFIG_MAP_NAME and event.type != "ADDED":
            namespace = key.namespace
        else:
            return
        self.config_maps.store.after_delivery(lambda: self.sync(namespace))

    def sync(self, namespace: str) -> None:
        if not active(self.namespaces, namespace):
            return
        config_map = self.config_maps.find(namespace, CONFIG_MAP_NAME)
        try:
            if config_map is None:
                self.config_maps.create(namespace, self._config_map(), WriteOptions(field_manager=MANAGER))
            elif config_map.get("data") != self.data or not _description(config_map):
                config_map["data"] = dict(self.data)
                config_map["metadata"].setdefault("annotations", {})[DESCRIPTION_ANNOTATION] = DESCRIPTION
                self.config_maps.update(namespace, CONFIG_MAP_NAME, config_map, WriteOptions(field_manager=MANAGER))
        except StatusError:
            pass  # as upstream's: a namespace that is going away is not retried

    def _config_map(self) -> JSON:
        return {"metadata": {"name": CONFIG_MAP_NAME, "annotations": {DESCRIPTION_ANNOTATION: DESCRIPTION}},
                "data": dict(self.data)}


def _description(config_map: JSON) -> str:
    return str(((config_map.get("metadata") or {}).get("annotations") or {}).get(DESCRIPTION_ANNOTATION) or "")
