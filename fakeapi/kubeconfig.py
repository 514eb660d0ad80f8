"""Writing a kubeconfig that points kubectl and the Python clients at a fakeapi server (no auth)."""

from __future__ import annotations

from pathlib import Path

CONTEXT = "fakeapi"


def kubeconfig(url: str) -> dict[str, object]:
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": CONTEXT, "cluster": {"server": url}}],
        "users": [{"name": CONTEXT, "user": {}}],
        "contexts": [{"name": CONTEXT, "context": {"cluster": CONTEXT, "user": CONTEXT, "namespace": "default"}}],
        "current-context": CONTEXT,
        "preferences": {},
    }


def write_kubeconfig(path: Path, url: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    import yaml  # only when a kubeconfig is written

    path.write_text(yaml.safe_dump(kubeconfig(url), sort_keys=False))
