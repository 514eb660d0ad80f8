"""Decode-time defaulting of Services (upstream core/v1 SetDefaults_Service)."""

from __future__ import annotations

from typing import Any

from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation.values import as_dict, as_list

CLIENT_IP_TIMEOUT = 10800  # seconds: DefaultClientIPServiceAffinitySeconds


def externally_accessible(spec: JSON) -> bool:
    """Reachable from outside the cluster: a NodePort or LoadBalancer, or a ClusterIP with external IPs."""
    kind = spec.get("type")
    return kind in ("LoadBalancer", "NodePort") or (kind == "ClusterIP" and bool(as_list(spec.get("externalIPs"))))


def default_service(service: JSON) -> None:
    spec = service.get("spec")
    if not isinstance(spec, dict):
        return
    if not spec.get("sessionAffinity"):
        spec["sessionAffinity"] = "None"
    if spec["sessionAffinity"] == "None":
        spec.pop("sessionAffinityConfig", None)
    if spec["sessionAffinity"] == "ClientIP":
        client_ip = as_dict(as_dict(spec.get("sessionAffinityConfig")).get("clientIP"))
        if client_ip.get("timeoutSeconds") is None:
            spec["sessionAffinityConfig"] = {"clientIP": {"timeoutSeconds": CLIENT_IP_TIMEOUT}}
    if not spec.get("type"):
        spec["type"] = "ClusterIP"
    for port in as_list(spec.get("ports")):
        if isinstance(port, dict):
            _default_port(port)
    if externally_accessible(spec) and not spec.get("externalTrafficPolicy"):
        spec["externalTrafficPolicy"] = "Cluster"
    if spec.get("internalTrafficPolicy") is None and spec["type"] in ("NodePort", "LoadBalancer", "ClusterIP"):
        spec["internalTrafficPolicy"] = "Cluster"
    if spec["type"] == "LoadBalancer":
        if spec.get("allocateLoadBalancerNodePorts") is None:
            spec["allocateLoadBalancerNodePorts"] = True
        # LoadBalancerIPMode (on since v1.30): an ingress IP is a VIP unless the status says otherwise
        for ingress in as_list(as_dict(as_dict(service.get("status")).get("loadBalancer")).get("ingress")):
            if isinstance(ingress, dict) and ingress.get("ip") and ingress.get("ipMode") is None:
                ingress["ipMode"] = "VIP"


def _default_port(port: JSON) -> None:
    if not port.get("protocol"):
        port["protocol"] = "TCP"
    target: Any = port.get("targetPort")
    if target in (None, 0, ""):
        port["targetPort"] = port.get("port", 0)
