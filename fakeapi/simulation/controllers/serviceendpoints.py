"""What the endpoints and endpointslice controllers share: a Service's pods (its selector, in its namespace,
with an IP and not finished), each port's target on a pod (a number, or a container port's name), and what
wakes a Service up (its own changes, its pods' changes)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from fakeapi.machinery.clock import rfc3339_micro
from fakeapi.machinery.types import JSON
from fakeapi.simulation.controllers.context import Context
from fakeapi.simulation.controllers.informers import Informer, Key
from fakeapi.simulation.controllers.podcontrol import map_selector
from fakeapi.simulation.controllers.pods import Pod

TRIGGER_TIME = "endpoints.kubernetes.io/last-change-trigger-time"
HEADLESS_LABEL = "service.kubernetes.io/headless"


@dataclass(frozen=True)
class Target:
    """One endpoint port of one pod: the service port's name, the pod's port number, protocol, appProtocol."""

    name: str
    port: int
    protocol: str
    app_protocol: str | None

    def json(self) -> JSON:
        port: JSON = {"name": self.name, "port": self.port, "protocol": self.protocol}
        if not self.name:
            del port["name"]
        if self.app_protocol:
            port["appProtocol"] = self.app_protocol
        return port


def selected(service: JSON) -> bool:
    """Whether the controllers manage the Service's endpoints (it has a selector)."""
    return bool((service.get("spec") or {}).get("selector"))


def headless(service: JSON) -> bool:
    return (service.get("spec") or {}).get("clusterIP") == "None"


def service_pods(pods: Informer[Pod], service: JSON) -> list[Pod]:
    """The pods a Service's selector matches in its namespace that have an IP and have not finished."""
    match = map_selector((service.get("spec") or {}).get("selector"))
    if match is None:
        return []
    namespace = service["metadata"].get("namespace", "")
    return sorted((pod for pod in pods.items(namespace) if match.matches(pod.labels) and pod.ip and not pod.terminal),
                  key=lambda pod: pod.name)


def targets(service: JSON, pod: Pod) -> list[Target]:
    """Each service port's target on the pod (FindPort): a named target port the pod lacks is left out."""
    found: list[Target] = []
    container_ports: list[JSON] | None = None
    for port in (service.get("spec") or {}).get("ports") or []:
        protocol = str(port.get("protocol") or "TCP")
        target = port.get("targetPort", port.get("port"))
        number: int | None = None
        if isinstance(target, int):
            number = target
        elif isinstance(target, str) and target.isdigit():
            number = int(target)
        else:
            if container_ports is None:
                container_ports = [p for c in (pod.obj().get("spec") or {}).get("containers") or []
                                   for p in c.get("ports") or []]
            number = next((int(p["containerPort"]) for p in container_ports
                           if p.get("name") == target and str(p.get("protocol") or "TCP") == protocol), None)
        if number is not None:
            found.append(Target(str(port.get("name") or ""), number, protocol, port.get("appProtocol")))
    return found


def pod_reference(pod: Pod) -> JSON:
    return {"kind": "Pod", "namespace": pod.namespace, "name": pod.name, "uid": pod.uid}


class ServiceWatch:
    """Queue a Service's sync when it changes or when a pod its selector matches (before or after) does."""

    def __init__(self, context: Context, name: str, sync: Callable[[str, str], None]) -> None:
        self.work = context.work
        self.name = name
        self.sync = sync
        self.services: Informer[JSON] = context.informers.objects("services")
        self.pods: Informer[Pod] = context.informers.pods()
        self.services.add_handler(self._service_changed)
        self.pods.add_handler(self._pod_changed)

    def queue(self, key: Key) -> None:
        self.work.soon((self.name, key), lambda: self.sync(*key))

    def queue_all(self) -> None:
        for service in self.services.items():
            self.queue((service["metadata"].get("namespace", ""), service["metadata"]["name"]))

    def _service_changed(self, old: JSON | None, new: JSON | None) -> None:
        service = new if new is not None else old
        assert service is not None
        self.queue((service["metadata"].get("namespace", ""), service["metadata"]["name"]))

    def _pod_changed(self, old: Pod | None, new: Pod | None) -> None:
        if old is not None and new is not None and not _endpoint_changed(old, new):
            return
        pod = new if new is not None else old
        assert pod is not None
        for service in self.services.items(pod.namespace):
            match = map_selector((service.get("spec") or {}).get("selector"))
            if match is None:
                continue
            if match.matches(pod.labels) or (old is not None and match.matches(old.labels)):
                self.queue((pod.namespace, service["metadata"]["name"]))


def _endpoint_changed(old: Pod, new: Pod) -> bool:
    """Whether a pod's change can change its endpoints (upstream's podEndpointsChanged)."""
    return (old.ip, old.ips, old.ready, old.deleting, old.node, old.labels, old.hostname, old.subdomain,
            old.phase) != (new.ip, new.ips, new.ready, new.deleting, new.node, new.labels, new.hostname,
                           new.subdomain, new.phase)


def trigger_time(context: Context) -> str:
    """The last-change-trigger-time annotation's value: Go's RFC3339Nano (trailing zeros of the fraction
    dropped)."""
    seconds, _, fraction = rfc3339_micro(context.now()).rstrip("Z").partition(".")
    fraction = fraction.rstrip("0")
    return f"{seconds}.{fraction}Z" if fraction else f"{seconds}Z"
