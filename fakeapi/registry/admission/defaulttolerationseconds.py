"""DefaultTolerationSeconds (upstream plugin/pkg/admission/defaulttolerationseconds): every pod tolerates a
node that is not ready or unreachable for 300 seconds, unless it says otherwise, so the taint manager
evicts it five minutes after its node goes away."""

from __future__ import annotations

from typing import Any

from fakeapi.machinery.types import JSON
from fakeapi.registry.admission import CREATE, UPDATE, Attributes, ObjectReader

NAME = "DefaultTolerationSeconds"
NOT_READY = "node.kubernetes.io/not-ready"
UNREACHABLE = "node.kubernetes.io/unreachable"
DEFAULT_SECONDS = 300  # upstream's --default-not-ready-toleration-seconds and --default-unreachable-...


class DefaultTolerationSeconds:
    def __init__(self, objects: ObjectReader) -> None:
        pass

    def admit(self, attributes: Attributes) -> None:
        if attributes.operation not in (CREATE, UPDATE) or not attributes.is_pod() or attributes.obj is None:
            return
        spec = attributes.obj.get("spec")
        if not isinstance(spec, dict):
            return
        tolerations = spec.get("tolerations")
        present = [t for t in tolerations if isinstance(t, dict)] if isinstance(tolerations, list) else []
        added = [_toleration(key) for key in (NOT_READY, UNREACHABLE)
                 if not any(_tolerates_no_execute(toleration, key) for toleration in present)]
        if added:
            spec["tolerations"] = [*(tolerations if isinstance(tolerations, list) else []), *added]


def _tolerates_no_execute(toleration: JSON, key: str) -> bool:
    """Upstream's check: the key is the taint's or empty, and the effect NoExecute or empty."""
    return toleration.get("key") in (key, "", None) and toleration.get("effect") in ("NoExecute", "", None)


def _toleration(key: str) -> dict[str, Any]:
    return {"key": key, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": DEFAULT_SECONDS}
