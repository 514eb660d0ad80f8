"""Node and Lease manifests for tests: wire-shaped, each a fresh dict."""

from __future__ import annotations

from typing import Any


def kubelet_status(ready: str = "True", internal_ip: str = "172.18.0.2") -> dict[str, Any]:
    """A node status as a v1.32 kubelet registers it (trimmed)."""
    return {
        "capacity": {"cpu": "8", "memory": "32827576Ki", "pods": "110"},
        "conditions": [{"type": "Ready", "status": ready, "reason": "KubeletReady",
                        "lastHeartbeatTime": "2030-06-01T12:00:00Z", "lastTransitionTime": "2030-06-01T12:00:00Z"}],
        "addresses": [{"type": "InternalIP", "address": internal_ip}, {"type": "Hostname", "address": "node"}],
        "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
        "nodeInfo": {"machineID": "m", "systemUUID": "s", "bootID": "b", "kernelVersion": "6.8.0-49-generic",
                     "osImage": "Debian GNU/Linux 12 (bookworm)", "containerRuntimeVersion": "containerd://1.7.24",
                     "kubeletVersion": "v1.32.0", "kubeProxyVersion": "v1.32.0", "operatingSystem": "linux",
                     "architecture": "amd64"},
    }


def node(name: str = "node-1", *, labels: dict[str, str] | None = None, status: dict[str, Any] | None = None,
         **spec: Any) -> dict[str, Any]:
    manifest: dict[str, Any] = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}}
    if labels is not None:
        manifest["metadata"]["labels"] = labels
    if spec:
        manifest["spec"] = spec
    if status is not None:
        manifest["status"] = status
    return manifest


def lease(name: str = "leader", *, resource_version: str | None = None, **spec: Any) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name}
    if resource_version is not None:
        metadata["resourceVersion"] = resource_version
    return {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": metadata, "spec": spec}
