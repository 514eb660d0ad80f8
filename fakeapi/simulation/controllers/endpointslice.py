"""The endpointslice controller (endpointslice-controller), after upstream's pkg/controller/endpointslice and
its reconciler: every Service with a selector has EndpointSlices `<service>-<5 random>` (owned by it, labelled
`kubernetes.io/service-name` and `endpointslice.kubernetes.io/managed-by: endpointslice-controller.k8s.io`,
with the Service's labels), of at most 100 endpoints each: one per pod with an IP, with its conditions (ready:
Ready and not terminating, or publishNotReadyAddresses; serving: Ready; terminating: being deleted), node,
zone, hostname and target reference; pods with different ports go to different slices. Slices are changed as
little as possible: kept endpoints stay where they are, new ones fill slices with room first. A Service whose
selector matches nothing has one empty slice."""

from __future__ import annotations

import copy

from fakeapi.machinery.errors import NotFound
from fakeapi.machinery.types import JSON
from fakeapi.simulation.controllers.context import Context
from fakeapi.simulation.controllers.informers import Informer
from fakeapi.simulation.controllers.podcontrol import controller_ref
from fakeapi.simulation.controllers.pods import Pod
from fakeapi.simulation.controllers.serviceendpoints import (
    HEADLESS_LABEL,
    TRIGGER_TIME,
    ServiceWatch,
    Target,
    headless,
    pod_reference,
    selected,
    service_pods,
    targets,
    trigger_time,
)

SERVICE_ACCOUNT = "endpointslice-controller"
COMPONENT = "endpointslice-controller"
MANAGED_BY = "endpointslice.kubernetes.io/managed-by"
MANAGER = "endpointslice-controller.k8s.io"
SERVICE_NAME = "kubernetes.io/service-name"
ZONE_LABEL = "topology.kubernetes.io/zone"
MAX_ENDPOINTS = 100  # --max-endpoints-per-slice
PortSet = tuple[tuple[str, int, str, str], ...]


class EndpointSliceController:
    def __init__(self, context: Context) -> None:
        self.context = context
        self.client = context.client(SERVICE_ACCOUNT)
        self.watch = ServiceWatch(context, COMPONENT, self.sync)
        self.slices: Informer[JSON] = context.informers.objects("endpointslices.discovery.k8s.io")
        self.nodes: Informer[JSON] = context.informers.objects("nodes")

    def start(self) -> None:
        self.watch.queue_all()

    def stop(self) -> None:
        pass

    def sync(self, namespace: str, name: str) -> None:
        service = self.watch.services.get(namespace, name)
        if service is None or not selected(service):
            return  # (the garbage collector deletes the slices of a deleted Service)
        owned = [s for s in self.slices.controlled_by(service["metadata"]["uid"])
                 if (s["metadata"].get("labels") or {}).get(MANAGED_BY) == MANAGER]
        desired: dict[PortSet, dict[str, JSON]] = {}
        ports_of: dict[PortSet, list[Target]] = {}
        for pod in service_pods(self.watch.pods, service):
            ports = targets(service, pod)
            key = tuple((t.name, t.port, t.protocol, t.app_protocol or "") for t in ports)
            ports_of[key] = ports
            desired.setdefault(key, {})[pod.uid] = self._endpoint(service, pod)
        remaining = list(owned)
        writes: list[tuple[str, JSON]] = []
        for key, endpoints in desired.items():
            matching = [s for s in remaining if _port_set(s) == key]
            remaining = [s for s in remaining if _port_set(s) != key]
            writes += self._reconcile(service, matching, endpoints, [t.json() for t in ports_of[key]])
        if not desired:
            placeholder = next((s for s in remaining if not s.get("endpoints")), None)
            if placeholder is None:
                writes.append(("create", self._slice(service, [], [])))
            else:
                remaining.remove(placeholder)
        writes += [("delete", s) for s in remaining]
        for verb, obj in writes:
            self._write(verb, namespace, obj)

    def _reconcile(self, service: JSON, slices: list[JSON], endpoints: dict[str, JSON],
                   ports: list[JSON]) -> list[tuple[str, JSON]]:
        """The writes that make these slices hold exactly `endpoints`: each kept endpoint stays in its slice
        (updated if it changed), the new ones fill the slices with room, then new slices."""
        writes: list[tuple[str, JSON]] = []
        placed: set[str] = set()
        kept: list[tuple[JSON, list[JSON]]] = []
        for existing in slices:
            contents = []
            for endpoint in existing.get("endpoints") or []:
                uid = (endpoint.get("targetRef") or {}).get("uid", "")
                if uid in endpoints and uid not in placed:
                    contents.append(endpoints[uid])
                    placed.add(uid)
            kept.append((existing, contents))
        new = [endpoint for uid, endpoint in endpoints.items() if uid not in placed]
        for existing, contents in kept:
            while new and len(contents) < MAX_ENDPOINTS:
                contents.append(new.pop(0))
            if not contents:
                writes.append(("delete", existing))
            elif contents != (existing.get("endpoints") or []) or _labels_stale(existing, self._slice(service,
                                                                                                      [], ports)):
                updated = copy.deepcopy(existing)
                fresh = self._slice(service, contents, ports)
                updated["metadata"]["labels"] = fresh["metadata"]["labels"]
                updated["metadata"]["annotations"] = fresh["metadata"]["annotations"]
                updated["endpoints"] = contents
                updated["ports"] = ports
                writes.append(("update", updated))
        while new:
            batch, new = new[:MAX_ENDPOINTS], new[MAX_ENDPOINTS:]
            writes.append(("create", self._slice(service, batch, ports)))
        return writes

    def _endpoint(self, service: JSON, pod: Pod) -> JSON:
        """podToEndpoint."""
        serving = pod.ready
        terminating = pod.deleting
        ready = bool((service.get("spec") or {}).get("publishNotReadyAddresses")) or (serving and not terminating)
        endpoint: JSON = {"addresses": [pod.ip],
                          "conditions": {"ready": ready, "serving": serving, "terminating": terminating}}
        if pod.hostname and pod.subdomain == service["metadata"]["name"]:
            endpoint["hostname"] = pod.hostname
        endpoint["targetRef"] = pod_reference(pod)
        if pod.node:
            endpoint["nodeName"] = pod.node
            node = self.nodes.get("", pod.node)
            zone = ((node or {}).get("metadata", {}).get("labels") or {}).get(ZONE_LABEL)
            if zone:
                endpoint["zone"] = zone
        return endpoint

    def _slice(self, service: JSON, endpoints: list[JSON], ports: list[JSON]) -> JSON:
        meta: JSON = service["metadata"]
        labels = {key: value for key, value in (meta.get("labels") or {}).items()
                  if key not in (SERVICE_NAME, MANAGED_BY, HEADLESS_LABEL)}
        labels.update({SERVICE_NAME: meta["name"], MANAGED_BY: MANAGER})
        if headless(service):
            labels[HEADLESS_LABEL] = ""
        obj: JSON = {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
                     "metadata": {"generateName": f"{meta['name'][:57]}-", "labels": labels,
                                  "annotations": {TRIGGER_TIME: trigger_time(self.context)},
                                  "ownerReferences": [controller_ref(service)]},
                     "addressType": "IPv4", "endpoints": endpoints}
        if ports:
            obj["ports"] = ports
        return obj

    def _write(self, verb: str, namespace: str, obj: JSON) -> None:
        group, version = "discovery.k8s.io", "v1"
        try:
            if verb == "create":
                self.client.create("endpointslices", namespace, obj, group=group, version=version)
            elif verb == "update":
                self.client.update("endpointslices", namespace, obj["metadata"]["name"], obj, group=group,
                                   version=version)
            else:
                self.client.delete("endpointslices", namespace, obj["metadata"]["name"], group=group,
                                   version=version)
        except NotFound:
            pass


def _port_set(endpoint_slice: JSON) -> PortSet:
    return tuple((str(p.get("name") or ""), int(p.get("port") or 0), str(p.get("protocol") or "TCP"),
                  str(p.get("appProtocol") or "")) for p in endpoint_slice.get("ports") or [])


def _labels_stale(existing: JSON, fresh: JSON) -> bool:
    return bool((existing["metadata"].get("labels") or {}) != fresh["metadata"]["labels"])
