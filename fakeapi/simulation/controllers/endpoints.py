"""The endpoints controller (endpoints-controller, user endpoint-controller), after upstream's
pkg/controller/endpoint: every Service with a selector has an Endpoints object of its name, whose subsets list
its pods' IPs (ready ones in `addresses`, the others in `notReadyAddresses`, all of them ready with
publishNotReadyAddresses; pods being deleted left out unless it is set), with their node, target reference and
hostname, and the ports each resolves to; pods sharing the same ports share a subset. The Service's labels
are copied (with `service.kubernetes.io/headless` for a headless Service); past 1,000 addresses the list is
cut and annotated `endpoints.kubernetes.io/over-capacity: truncated`. A Service deleted takes its Endpoints
with it (and at start, Endpoints without a Service are deleted); those of a Service without a selector are
left to their user."""

from __future__ import annotations

from fakeapi.machinery.errors import AlreadyExists, NotFound
from fakeapi.machinery.types import JSON
from fakeapi.simulation.controllers.context import Context
from fakeapi.simulation.controllers.informers import Informer
from fakeapi.simulation.controllers.serviceendpoints import (
    HEADLESS_LABEL,
    TRIGGER_TIME,
    ServiceWatch,
    headless,
    pod_reference,
    selected,
    service_pods,
    targets,
    trigger_time,
)

SERVICE_ACCOUNT = "endpoint-controller"
COMPONENT = "endpoints-controller"
MAX_ADDRESSES = 1000
OVER_CAPACITY = "endpoints.kubernetes.io/over-capacity"


class EndpointsController:
    def __init__(self, context: Context) -> None:
        self.context = context
        self.client = context.client(SERVICE_ACCOUNT)
        self.watch = ServiceWatch(context, COMPONENT, self.sync)
        self.endpoints: Informer[JSON] = context.informers.objects("endpoints")

    def start(self) -> None:
        self.watch.queue_all()
        for endpoints in self.endpoints.items():  # those of Services deleted while the server was down
            meta: JSON = endpoints["metadata"]
            if self.watch.services.get(meta.get("namespace", ""), meta["name"]) is None:
                self.watch.queue((meta.get("namespace", ""), meta["name"]))

    def stop(self) -> None:
        pass

    def sync(self, namespace: str, name: str) -> None:
        service = self.watch.services.get(namespace, name)
        current = self.endpoints.get(namespace, name)
        if service is None:
            if current is not None:  # the Service went: its Endpoints go too
                try:
                    self.client.delete("endpoints", namespace, name)
                except NotFound:
                    pass
            return
        if not selected(service):
            return
        publish_not_ready = bool((service.get("spec") or {}).get("publishNotReadyAddresses"))
        subsets: dict[tuple[tuple[str, int, str], ...], JSON] = {}
        total = 0
        for pod in service_pods(self.watch.pods, service):
            if pod.deleting and not publish_not_ready:
                continue
            ports = targets(service, pod)
            if not ports and (service.get("spec") or {}).get("ports"):
                continue
            address: JSON = {"ip": pod.ip}
            if pod.hostname and pod.subdomain == name:
                address["hostname"] = pod.hostname
            if pod.node:
                address["nodeName"] = pod.node
            address["targetRef"] = pod_reference(pod)
            identity = tuple((port.name, port.port, port.protocol) for port in ports)
            subset = subsets.setdefault(identity, {"ports": [port.json() for port in ports]})
            ready = pod.ready or publish_not_ready
            subset.setdefault("addresses" if ready else "notReadyAddresses", []).append(address)
            total += 1
        packed = _sorted(list(subsets.values()))
        truncated = total > MAX_ADDRESSES
        if truncated:
            packed = _truncate(packed)
        endpoints = self._desired(service, packed, truncated, current)
        if current is not None and _same(current, endpoints):
            return
        if current is None:
            try:
                self.client.create("endpoints", namespace, endpoints)
            except AlreadyExists:
                pass
        else:
            endpoints["metadata"]["resourceVersion"] = current["metadata"]["resourceVersion"]
            self.client.update("endpoints", namespace, name, endpoints)

    def _desired(self, service: JSON, subsets: list[JSON], truncated: bool, current: JSON | None) -> JSON:
        meta: JSON = service["metadata"]
        labels = dict(meta.get("labels") or {})
        if headless(service):
            labels[HEADLESS_LABEL] = ""
        else:
            labels.pop(HEADLESS_LABEL, None)
        annotations = dict(((current or {}).get("metadata") or {}).get("annotations") or {})
        annotations[TRIGGER_TIME] = trigger_time(self.context)
        if truncated:
            annotations[OVER_CAPACITY] = "truncated"
        else:
            annotations.pop(OVER_CAPACITY, None)
        endpoints: JSON = {"apiVersion": "v1", "kind": "Endpoints",
                           "metadata": {"name": meta["name"], "annotations": annotations}}
        if labels:
            endpoints["metadata"]["labels"] = labels
        if subsets:
            endpoints["subsets"] = subsets
        return endpoints


def _sorted(subsets: list[JSON]) -> list[JSON]:
    """SortSubsets: addresses by IP (then target uid), subsets in a stable order."""
    for subset in subsets:
        for field in ("addresses", "notReadyAddresses"):
            if field in subset:
                subset[field].sort(key=lambda address: (_ip_key(address["ip"]), address["targetRef"]["uid"]))
    return sorted(subsets, key=lambda subset: [(p.get("name", ""), p["port"]) for p in subset["ports"]])


def _ip_key(ip: str) -> tuple[int, ...]:
    try:
        return tuple(int(part) for part in ip.split("."))
    except ValueError:
        return (0,)


def _truncate(subsets: list[JSON]) -> list[JSON]:
    """Keep the first 1,000 addresses, ready ones first, spread over the subsets as upstream does (each subset
    keeps its share)."""
    remaining = MAX_ADDRESSES
    total = sum(len(s.get("addresses", [])) + len(s.get("notReadyAddresses", [])) for s in subsets)
    for subset in subsets:
        size = len(subset.get("addresses", [])) + len(subset.get("notReadyAddresses", []))
        share = min(remaining, round(size * MAX_ADDRESSES / total)) if total else 0
        ready = subset.get("addresses", [])[:share]
        not_ready = subset.get("notReadyAddresses", [])[:max(0, share - len(ready))]
        for field, kept in (("addresses", ready), ("notReadyAddresses", not_ready)):
            if kept:
                subset[field] = kept
            else:
                subset.pop(field, None)
        remaining -= len(ready) + len(not_ready)
    return subsets


def _same(current: JSON, desired: JSON) -> bool:
    """Nothing to write: the same subsets and labels (the trigger time alone is no change)."""
    meta: JSON = current.get("metadata") or {}
    annotations = {k: v for k, v in (meta.get("annotations") or {}).items() if k != TRIGGER_TIME}
    wanted = {k: v for k, v in desired["metadata"]["annotations"].items() if k != TRIGGER_TIME}
    return (current.get("subsets") or []) == (desired.get("subsets") or []) and \
        (meta.get("labels") or {}) == (desired["metadata"].get("labels") or {}) and annotations == wanted
