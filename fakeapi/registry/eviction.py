"""Evicting a pod as upstream's EvictionREST does when no PodDisruptionBudget covers it (fakeapi has no
PodDisruptionBudgets): the eviction is a delete of the pod with the Eviction's deleteOptions, answered
with a `Status` of Success, code 201. What POST pods/{name}/eviction (kubectl drain) does."""

from __future__ import annotations

from typing import Any

from fakeapi.machinery.errors import BadRequest
from fakeapi.machinery.schema.definitions import KUBERNETES_1_32
from fakeapi.machinery.types import JSON
from fakeapi.registry.decoding import decode_body
from fakeapi.registry.generic import Registry
from fakeapi.registry.options import DeleteOptions, WriteOptions

KIND = "Eviction"
# the endpoint takes an Eviction of either version policy has served
API_VERSIONS = ("policy/v1", "policy/v1beta1")
DEFINITION = "io.k8s.api.policy.v1.Eviction"


def decode_eviction(body: Any, options: WriteOptions) -> JSON:
    """An Eviction body shape-checked as the create handler does; unknown fields per fieldValidation."""
    return decode_body(KUBERNETES_1_32.compiled(DEFINITION).decoder(), body, KIND, API_VERSIONS, options)


def evict_pod(pods: Registry, namespace: str, name: str, eviction: JSON, dry_run: bool) -> None:
    meta = eviction.get("metadata") or {}
    if meta.get("namespace") and meta["namespace"] != namespace:
        raise BadRequest("the namespace of the provided object does not match the namespace sent on the request")
    if meta.get("name") and meta["name"] != name:
        raise BadRequest("name in URL does not match name in Eviction object")
    # the create's dryRun carries over to the delete (upstream's propagateDryRun)
    options = DeleteOptions.parse(eviction.get("deleteOptions"), {"dryRun": "All"} if dry_run else {})
    pods.delete(namespace, name, options)
