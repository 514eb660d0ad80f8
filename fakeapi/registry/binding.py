"""Binding a pod to a node as upstream's BindingREST does (a storage update, no strategy): what POST
pods/{name}/binding and POST bindings do.

The pod gets `spec.nodeName` only while it has none, the Binding's annotations are merged into its
own, and its PodScheduled condition becomes True. The answer is a `Status` of Success, code 201.
"""

from __future__ import annotations

from typing import Any

from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.errors import BadRequest, Conflict, UnknownError, aggregate_message
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.schema.definitions import KUBERNETES_1_32
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation.values import as_dict, as_str, go_quote
from fakeapi.registry.decoding import decode_body
from fakeapi.registry.generic import Registry
from fakeapi.registry.options import WriteOptions

KIND = "Binding"
DEFINITION = "io.k8s.api.core.v1.Binding"
SUCCESS: JSON = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}


def decode_binding(body: Any, options: WriteOptions) -> JSON:
    """A Binding body shape-checked as the create handler does; unknown fields per fieldValidation."""
    binding = decode_body(KUBERNETES_1_32.compiled(DEFINITION).decoder(), body, KIND, ("v1",), options)
    binding.setdefault("metadata", {})
    return binding


def validate_binding(binding: JSON) -> list[FieldError]:
    """Upstream's ValidatePodBinding."""
    errs: list[FieldError] = []
    target = as_dict(binding.get("target"))
    kind = as_str(target.get("kind"))
    if kind and kind != "Node":
        errs.append(fe.not_supported("target.kind", kind, ["Node", "<empty>"]))
    if not as_str(target.get("name")):
        errs.append(fe.required("target.name"))
    return errs


def bind_pod(pods: Registry, namespace: str, name: str, binding: JSON, dry_run: bool = False) -> JSON:
    """Assign pod `name` to the Binding's target node; returns the pod as stored (or as it would be)."""
    meta: JSON = binding["metadata"]
    if meta.get("namespace") and meta["namespace"] != namespace:
        raise BadRequest(
            "the namespace of the provided object does not match the namespace sent on the request"
        )
    if meta.get("name") != name:
        raise BadRequest("name in URL does not match name in Binding object")
    errors = validate_binding(binding)
    if errors:
        # upstream returns the bare aggregate, not a StatusError: a 500 without a reason
        raise UnknownError(aggregate_message(errors))
    key = pods.key(namespace, name)
    pod = pods.store.get(key)
    pod_meta: JSON = pod["metadata"]
    _check_preconditions(key.resource, key.namespace, name, meta, pod_meta)
    spec: JSON = pod.setdefault("spec", {})
    why = _why_not_bindable(name, pod_meta, spec)
    if why:
        raise Conflict.for_object("pods/binding", name, why)
    spec["nodeName"] = binding["target"]["name"]
    if meta.get("annotations"):
        pod_meta["annotations"] = {**(pod_meta.get("annotations") or {}), **meta["annotations"]}
    _set_scheduled(pod.setdefault("status", {}), pods.clock.timestamp())
    if not dry_run:
        pods.store.update(key, pod, pod_meta["resourceVersion"])
    return pod


def _why_not_bindable(name: str, meta: JSON, spec: JSON) -> str:
    if meta.get("deletionTimestamp"):
        return f"pod {name} is being deleted, cannot be assigned to a host"
    if spec.get("nodeName"):
        return f"pod {name} is already assigned to node {go_quote(spec['nodeName'])}"
    if spec.get("schedulingGates"):
        return f"pod {name} has non-empty .spec.schedulingGates"
    return ""


def _check_preconditions(resource: str, namespace: str, name: str, sent: JSON, stored: JSON) -> None:
    """The Binding's uid / resourceVersion are storage preconditions on the pod; a miss reads as upstream's
    storage error wrapped in a Conflict."""
    checks = (("UID", "uid"), ("ResourceVersion", "resourceVersion"))
    for label, attribute in checks:
        wanted = as_str(sent.get(attribute))
        actual = as_str(stored.get(attribute))
        if wanted and wanted != actual:
            raise Conflict.for_object(
                resource,
                name,
                f"StorageError: invalid object, Code: 4, Key: /registry/{resource}/{namespace}/{name}, "
                f"ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: {label} in precondition: "
                f"{wanted}, {label} in object meta: {actual}",
            )


def _set_scheduled(status: JSON, now: str) -> None:
    """Upstream's UpdatePodCondition with PodScheduled=True: the condition is replaced whole; its
    lastTransitionTime moves only when the status changes."""
    conditions: list[Any] = status.setdefault("conditions", [])
    condition: JSON = {
        "type": "PodScheduled",
        "status": "True",
        "lastProbeTime": None,
        "lastTransitionTime": now,
    }
    for index, old in enumerate(conditions):
        if isinstance(old, dict) and old.get("type") == "PodScheduled":
            if old.get("status") == "True":
                condition["lastTransitionTime"] = old.get("lastTransitionTime")
            conditions[index] = condition
            return
    conditions.append(condition)
