"""TaintNodesByCondition (upstream plugin/pkg/admission/nodetaint): every node is created with the
`node.kubernetes.io/not-ready:NoSchedule` taint, so that nothing is scheduled onto it before its kubelet
reports Ready. Upstream's node lifecycle controller removes the taint then; fakeapi runs none, so the
taint stays until a client removes it (or the plugin is disabled)."""

from __future__ import annotations

from fakeapi.registry.admission import CREATE, Attributes, ObjectReader

NAME = "TaintNodesByCondition"
NOT_READY = "node.kubernetes.io/not-ready"


class TaintNodesByCondition:
    def __init__(self, objects: ObjectReader) -> None:
        pass

    def admit(self, attributes: Attributes) -> None:
        info, node = attributes.info, attributes.obj
        if attributes.operation != CREATE or info.group or info.resource != "nodes" or attributes.subresource:
            return
        if node is None:
            return
        spec = node.setdefault("spec", {})
        if not isinstance(spec, dict):
            return
        taints = spec.get("taints")
        present = taints if isinstance(taints, list) else []
        if not any(isinstance(taint, dict) and taint.get("key") == NOT_READY and taint.get("effect") == "NoSchedule"
                   for taint in present):
            spec["taints"] = [*present, {"key": NOT_READY, "effect": "NoSchedule"}]
