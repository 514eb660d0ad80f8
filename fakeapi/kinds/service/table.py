"""Service Table cells: upstream v1.32 `printService` (wide form, as the server always prints)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fakeapi.kinds.podtemplate.cells import format_labels
from fakeapi.machinery.tables.columns import AGE_COLUMN, NAME_COLUMN, Column, Printer
from fakeapi.machinery.tables.timefmt import age
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation.values import as_dict, as_int, as_list, as_str


def external_ip(spec: JSON, status: JSON) -> str:
    """getServiceExternalIP (wide): external IPs, or the load balancer's ingress, `<pending>` until it has one."""
    kind, external = spec.get("type"), [as_str(ip) for ip in as_list(spec.get("externalIPs"))]
    if kind in ("ClusterIP", "NodePort"):
        return ",".join(external) or "<none>"
    if kind == "LoadBalancer":
        ingress = sorted({as_str(i.get("ip")) or as_str(i.get("hostname"))
                          for i in map(as_dict, as_list(as_dict(status.get("loadBalancer")).get("ingress")))
                          if i.get("ip") or i.get("hostname")})
        if external:
            return ",".join([*ingress, *external])
        return ",".join(ingress) or "<pending>"
    if kind == "ExternalName":
        return as_str(spec.get("externalName"))
    return "<unknown>"


def port_text(ports: Any) -> str:
    pieces = []
    for port in map(as_dict, as_list(ports)):
        node_port = as_int(port.get("nodePort"))
        number, protocol = as_int(port.get("port")), as_str(port.get("protocol"))
        pieces.append(f"{number}:{node_port}/{protocol}" if node_port > 0 else f"{number}/{protocol}")
    return ",".join(pieces) or "<none>"


def service_cells(service: JSON, now: datetime) -> list[Any]:
    meta, spec, status = (as_dict(service.get(part)) for part in ("metadata", "spec", "status"))
    ips = as_list(spec.get("clusterIPs"))
    return [meta.get("name", ""), as_str(spec.get("type")), as_str(ips[0]) if ips else "<none>",
            external_ip(spec, status), port_text(spec.get("ports")), age(meta.get("creationTimestamp"), now),
            format_labels(spec.get("selector"))]


# descriptions: the v1.32 swagger docs of core/v1 that upstream's printer reads
_COLUMNS = (
    NAME_COLUMN,
    Column("Type", "string", "", 0,
           'type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, '
           'ClusterIP, NodePort, and LoadBalancer. "ClusterIP" allocates a cluster-internal IP address for '
           "load-balancing to endpoints. Endpoints are determined by the selector or if that is not specified, by "
           'manual construction of an Endpoints object or EndpointSlice objects. If clusterIP is "None", no virtual '
           "IP is allocated and the endpoints are published as a set of endpoints rather than a virtual IP. "
           '"NodePort" builds on ClusterIP and allocates a port on every node which routes to the same endpoints as '
           'the clusterIP. "LoadBalancer" builds on NodePort and creates an external load-balancer (if supported in '
           'the current cloud) which routes to the same endpoints as the clusterIP. "ExternalName" aliases this '
           "service to the specified externalName. Several other fields do not apply to ExternalName services. More "
           "info: https://kubernetes.io/docs/concepts/services-networking/service/#publishing-services-service-types"),
    Column("Cluster-IP", "string", "", 0,
           "clusterIP is the IP address of the service and is usually assigned randomly. If an address is specified "
           "manually, is in-range (as per system configuration), and is not in use, it will be allocated to the "
           "service; otherwise creation of the service will fail. This field may not be changed through updates "
           "unless the type field is also being changed to ExternalName (which requires this field to be blank) or "
           "the type field is being changed from ExternalName (in which case this field may optionally be "
           'specified, as describe above).  Valid values are "None", empty string (""), or a valid IP address. '
           'Setting this to "None" makes a "headless service" (no virtual IP), which is useful when direct endpoint '
           "connections are preferred and proxying is not required.  Only applies to types ClusterIP, NodePort, and "
           "LoadBalancer. If this field is specified when creating a Service of type ExternalName, creation will "
           "fail. This field will be wiped when updating a Service to type ExternalName. More info: "
           "https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies"),
    Column("External-IP", "string", "", 0,
           "externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this "
           "service.  These IPs are not managed by Kubernetes.  The user is responsible for ensuring that traffic "
           "arrives at a node with this IP.  A common example is external load-balancers that are not part of the "
           "Kubernetes system."),
    Column("Port(s)", "string", "", 0,
           "The list of ports that are exposed by this service. More info: https://kubernetes.io/docs/concepts/"
           "services-networking/service/#virtual-ips-and-service-proxies"),
    AGE_COLUMN,
    Column("Selector", "string", "", 1,
           "Route service traffic to pods with label keys and values matching this selector. If empty or not "
           "present, the service is assumed to have an external process managing its endpoints, which Kubernetes "
           "will not modify. Only applies to types ClusterIP, NodePort, and LoadBalancer. Ignored if type is "
           "ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/"),
)

SERVICE_PRINTER = Printer(_COLUMNS, service_cells)
