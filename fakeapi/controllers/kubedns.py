"""The `kube-dns` Service of `kube-system`, as kubeadm's CoreDNS add-on makes it on a kind cluster: the tenth
address of the Service range (10.96.0.10), ports 53 (UDP `dns`, TCP `dns-tcp`) and 9153 (`metrics`), labelled
so that `kubectl cluster-info` lists it (`kubernetes.io/cluster-service`, `kubernetes.io/name: CoreDNS`). Made
once when a new store starts (and on a reset); like kubeadm, nothing puts it back once deleted. No CoreDNS
pods run behind it.
"""

from __future__ import annotations

from fakeapi.machinery.errors import StatusError
from fakeapi.machinery.types import JSON
from fakeapi.registry.generic import Registry
from fakeapi.registry.options import WriteOptions

MANAGER = "kubeadm"
NAME, NAMESPACE = "kube-dns", "kube-system"
DNS_IP_INDEX = 9  # kubeadm's GetDNSIP: the range's tenth address (.10); ip_at(0) is .1


def kube_dns_service(cluster_ip: str) -> JSON:
    labels = {"k8s-app": "kube-dns", "kubernetes.io/cluster-service": "true", "kubernetes.io/name": "CoreDNS"}
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": NAME, "namespace": NAMESPACE, "labels": labels,
                         "annotations": {"prometheus.io/port": "9153", "prometheus.io/scrape": "true"}},
            "spec": {"type": "ClusterIP", "clusterIP": cluster_ip, "clusterIPs": [cluster_ip],
                     "selector": {"k8s-app": "kube-dns"},
                     "ports": [{"name": "dns", "port": 53, "protocol": "UDP", "targetPort": 53},
                               {"name": "dns-tcp", "port": 53, "protocol": "TCP", "targetPort": 53},
                               {"name": "metrics", "port": 9153, "protocol": "TCP", "targetPort": 9153}]}}


def create_kube_dns(services: Registry, cluster_ip: str) -> None:
    """Create the Service unless it is there (or its address is taken: kubeadm would fail the same way)."""
    if services.find(NAMESPACE, NAME) is not None:
        return
    try:
        services.create(NAMESPACE, kube_dns_service(cluster_ip), WriteOptions(field_manager=MANAGER))
    except StatusError:
        pass
