"""The `kubernetes` Service of the `default` namespace and its Endpoints and EndpointSlice, as kube-apiserver's
bootstrap controller and master endpoints reconciler keep them: the Service at the first address of the
Service range, port 443 (`https`) to the server's port, the endpoints the server's advertised address. Made
at start, put back when deleted, brought up to date when the server learns its port.
"""

from __future__ import annotations

from fakeapi.machinery.errors import StatusError
from fakeapi.machinery.types import JSON
from fakeapi.registry.generic import Registry
from fakeapi.registry.options import WriteOptions
from fakeapi.storage.store import Event

MANAGER = "kube-apiserver"
NAME, NAMESPACE = "kubernetes", "default"
SERVICE_PORT = 443
DEFAULT_SECURE_PORT = 6443  # kube-apiserver's, until the server knows its own
# where the server is in the simulated cluster's network (the address of kind's control plane node, .2, is
# the first simulated node's): upstream refuses loopback addresses in endpoints
DEFAULT_ADVERTISE_ADDRESS = "172.18.0.1"


class KubernetesService:
    def __init__(self, services: Registry, endpoints: Registry, slices: Registry, cluster_ip: str,
                 address: str = DEFAULT_ADVERTISE_ADDRESS, port: int = DEFAULT_SECURE_PORT) -> None:
        self.services, self.endpoints, self.slices = services, endpoints, slices
        self.cluster_ip = cluster_ip
        self.address, self.port = address, self._stored_port() or port

    def _stored_port(self) -> int | None:
        """The port a restarted server's endpoints name: kept until the server publishes its new one."""
        stored = self.endpoints.find(NAMESPACE, NAME)
        for subset in (stored or {}).get("subsets") or []:
            for port in subset.get("ports") or []:
                if port.get("name") == "https" and isinstance(port.get("port"), int):
                    return int(port["port"])
        return None

    def on_event(self, event: Event) -> None:
        """Store listener: one of the three objects went or changed; it is made again (upstream's reconcile
        loop). Where several servers share the store, a change is another server's as often as a user's:
        each server names its own port, and putting back every change would have them rewrite the objects
        in turn without end; so there, only a deleted object is made again."""
        key = event.key
        reacts_to = ("DELETED",) if self.services.store.shared else ("DELETED", "MODIFIED")
        if event.type in reacts_to and (key.namespace, key.name) == (NAMESPACE, NAME) and \
                key.resource in (self.services.storage_resource, self.endpoints.storage_resource,
                                 self.slices.storage_resource):
            self.services.store.after_delivery(self.sync)

    def publish(self, address: str, port: int) -> None:
        """The server listens at `port` and is advertised at `address`: the objects say so."""
        self.address, self.port = address, port
        self.sync()

    def sync(self) -> None:
        service = self.service()
        self._ensure(self.services, service, {"spec": {**(self._stored_spec() or service["spec"]),
                                                       "ports": service["spec"]["ports"]}})
        endpoints = self.endpoints_object()
        self._ensure(self.endpoints, endpoints, {"subsets": endpoints["subsets"]})
        endpoint_slice = self.endpoint_slice()
        self._ensure(self.slices, endpoint_slice, {key: endpoint_slice[key]
                                                   for key in ("addressType", "endpoints", "ports")})

    def _stored_spec(self) -> JSON | None:
        stored = self.services.find(NAMESPACE, NAME)
        return stored.get("spec") if stored is not None else None

    def _ensure(self, registry: Registry, desired: JSON, parts: JSON) -> None:
        """Create the object, or bring the parts the server owns up to date."""
        current = registry.find(NAMESPACE, NAME)
        options = WriteOptions(field_manager=MANAGER)
        try:
            if current is None:
                registry.create(NAMESPACE, desired, options)
            elif any(current.get(key) != value for key, value in parts.items()):
                registry.update(NAMESPACE, NAME, {**current, **parts}, options)
        except StatusError:
            pass  # the default namespace is going away, or the address is not one endpoints take: as upstream

    def service(self) -> JSON:
        return {"apiVersion": "v1", "kind": "Service",
                "metadata": {"name": NAME, "labels": {"component": "apiserver", "provider": "kubernetes"}},
                "spec": {"type": "ClusterIP", "clusterIP": self.cluster_ip, "clusterIPs": [self.cluster_ip],
                         "sessionAffinity": "None",
                         "ports": [{"name": "https", "port": SERVICE_PORT, "protocol": "TCP",
                                    "targetPort": self.port}]}}

    def endpoints_object(self) -> JSON:
        return {"apiVersion": "v1", "kind": "Endpoints",
                "metadata": {"name": NAME, "labels": {"endpointslice.kubernetes.io/skip-mirror": "true"}},
                "subsets": [{"addresses": [{"ip": self.address}],
                             "ports": [{"name": "https", "port": self.port, "protocol": "TCP"}]}]}

    def endpoint_slice(self) -> JSON:
        family = "IPv6" if ":" in self.address else "IPv4"
        return {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
                "metadata": {"name": NAME, "labels": {"kubernetes.io/service-name": NAME}},
                "addressType": family,
                "endpoints": [{"addresses": [self.address], "conditions": {"ready": True}}],
                "ports": [{"name": "https", "port": self.port, "protocol": "TCP"}]}
