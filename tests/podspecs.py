"""Pod manifests for tests: small, wire-shaped, each a fresh dict."""

from __future__ import annotations

from typing import Any


def pod(name: str = "web", *, image: str = "nginx:1.27", limits: dict[str, str] | None = None,
        requests: dict[str, str] | None = None, **spec: Any) -> dict[str, Any]:
    container: dict[str, Any] = {"name": "web", "image": image}
    resources: dict[str, Any] = {}
    if limits is not None:
        resources["limits"] = limits
    if requests is not None:
        resources["requests"] = requests
    if resources:
        container["resources"] = resources
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": {"app": "web"}},
        "spec": {"containers": [container], **spec},
    }


GUARANTEED = {"cpu": "500m", "memory": "128Mi"}


def status_body(name: str, **status: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "status": status}
