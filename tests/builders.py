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


def _merge(base: dict[str, Any], extra: dict[str, Any]) -> None:
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            _merge(base[key], value)
        else:
            base[key] = copy.deepcopy(value)
