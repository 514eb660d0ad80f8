"""<resource>/scale: an object's replicas as an autoscaling/v1 Scale (upstream's ScaleREST, and the scale
subresource of custom resources), for `kubectl scale` and autoscalers.

A GET answers the Scale made from the object (the paths the kind declares); a PUT or PATCH of the Scale
sets the object's replicas and writes the object through its own update pipeline (its strategy bumps
the generation, validates, keeps the status), with the Scale's resourceVersion as precondition.
managedFields record the write with subresource `scale`.
"""

from __future__ import annotations

from typing import Any

import orjson

from fakeapi.kinds.kind import SCALE_SUBRESOURCE, Scale
from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.errors import BadRequest, Invalid
from fakeapi.machinery.jsonpath import JsonPath
from fakeapi.machinery.labels import selector_text
from fakeapi.machinery.schema.definitions import KUBERNETES_1_32
from fakeapi.machinery.types import JSON
from fakeapi.registry.decoding import decode_body
from fakeapi.registry.generic import Patcher, Registry
from fakeapi.registry.options import WriteOptions

KIND = "Scale"
API_VERSION = "autoscaling/v1"
GROUP = "autoscaling"


class ScaleRegistry:
    def __init__(self, objects: Registry, scale: Scale) -> None:
        """`objects`: the registry the object is written through (its `scale` endpoint)."""
        assert SCALE_SUBRESOURCE.definition is not None
        compiled = KUBERNETES_1_32.compiled(SCALE_SUBRESOURCE.definition)
        self.objects = objects
        self.info = objects.info
        self.decoder = compiled.decoder()
        self.patch_tree = compiled.patch_tree
        self._spec = JsonPath(scale.spec_replicas_path)
        self._status = JsonPath(scale.status_replicas_path)
        self._selector = JsonPath(scale.label_selector_path) if scale.label_selector_path else None
        self._selector_is_map = scale.label_selector_is_map

    def get(self, namespace: str, name: str) -> JSON:
        return self._scale_of(self.objects.get(namespace, name))

    def get_bytes(self, namespace: str, name: str) -> bytes:
        return orjson.dumps(self.get(namespace, name))

    def replace(self, namespace: str, name: str, body: Any, options: WriteOptions) -> tuple[JSON, bool]:
        """PUT of a Scale: the object with its replicas set, as a Scale (never a create)."""
        scale = decode_body(self.decoder, body, KIND, (API_VERSION,), options)
        meta: JSON = scale.get("metadata") or {}
        if meta.get("name") != name:
            raise BadRequest(f"the name of the object ({meta.get('name', '')}) does not match the name on the "
                             f"URL ({name})")
        replicas = (scale.get("spec") or {}).get("replicas", 0)
        if replicas < 0:
            raise Invalid(KIND, name, [fe.invalid("spec.replicas", replicas, "must be greater than or equal to 0")],
                          GROUP)
        obj = self.objects.get(namespace, name)
        if meta.get("resourceVersion"):
            obj["metadata"]["resourceVersion"] = meta["resourceVersion"]  # the precondition
        self._spec.set(obj, replicas)
        return self._scale_of(self.objects.update(namespace, name, obj, options)), False

    def patch(self, namespace: str, name: str, patcher: Patcher, patch: Any, options: WriteOptions) -> JSON:
        """A patch of the Scale; written as the PUT of the patched Scale."""
        current = self.get(namespace, name)
        patched = patcher(current, patch)
        if isinstance(patched, dict) and isinstance(patched.get("metadata"), dict) \
                and not patched["metadata"].get("resourceVersion"):
            patched["metadata"]["resourceVersion"] = current["metadata"]["resourceVersion"]
        return self.replace(namespace, name, patched, options)[0]

    def _scale_of(self, obj: JSON) -> JSON:
        meta: JSON = obj.get("metadata") or {}
        status: JSON = {"replicas": self._status.first(obj) or 0}
        if self._selector is not None:
            selector = self._selector.first(obj)
            if self._selector_is_map and isinstance(selector, dict):
                selector = {"matchLabels": selector}
            status["selector"] = selector_text(selector) if isinstance(selector, dict) else selector or ""
        scale = {
            "kind": KIND, "apiVersion": API_VERSION,
            "metadata": {key: meta[key] for key in ("name", "namespace", "uid", "resourceVersion",
                                                    "creationTimestamp") if key in meta},
            "spec": {"replicas": self._spec.first(obj) or 0},
            "status": status,
        }
        return self.decoder.decode(scale, KIND).obj  # as Go writes the struct: a zero spec.replicas left out
