"""The test object builders: small, wire-shaped manifests, each a fresh dict."""

from __future__ import annotations

import copy
from typing import Any

GUARANTEED = {"cpu": "500m", "memory": "128Mi"}
_METADATA_SHORTCUTS = ("labels", "annotations", "namespace")
_MERGED = ("metadata", "spec", "status")


def pod(name: str = "web", *, image: str = "nginx:1.27", container: str = "web",
        limits: dict[str, str] | None = None, requests: dict[str, str] | None = None,
        labels: dict[str, str] | None = None, **overrides: Any) -> dict[str, Any]:
    """A minimal valid Pod with one container (labelled app=web unless `labels` says otherwise).

    `limits=`/`requests=` are the container's resources; `annotations=` and `namespace=` go into metadata;
    `metadata=`, `spec=` and `status=` are merged in deeply; any other keyword is a spec field
    (`nodeName="node-1"`, `restartPolicy="Never"`).
    """
    main: dict[str, Any] = {"name": container, "image": image}
    resources: dict[str, Any] = {}
    if limits is not None:
        resources["limits"] = limits
    if requests is not None:
        resources["requests"] = requests
    if resources:
        main["resources"] = resources
    built: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": {"app": "web"} if labels is None else copy.deepcopy(labels)},
        "spec": {"containers": [main]},
    }
    if not built["metadata"]["labels"]:
        del built["metadata"]["labels"]
    for key, value in overrides.items():
        if key in _METADATA_SHORTCUTS:
            built["metadata"][key] = copy.deepcopy(value)
        elif key in _MERGED:
            _merge(built.setdefault(key, {}), value)
        else:
            built["spec"][key] = copy.deepcopy(value)
    return built


def status_body(name: str, **status: Any) -> dict[str, Any]:
    """The body of a status write: only name and status."""
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "status": status}


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


def _merge(base: dict[str, Any], extra: dict[str, Any]) -> None:
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            _merge(base[key], value)
        else:
            base[key] = copy.deepcopy(value)
