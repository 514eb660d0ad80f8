"""Evicting a pod as upstream's EvictionREST does when no PodDisruptionBudget covers it (fakeapi has no
PodDisruptionBudgets): the eviction is a delete of the pod with the Eviction's deleteOptions, answered
with a `Status` of Success, code 201. What POST pods/{name}/eviction (kubectl drain) does."""

from __future__ import annotations

from typing import Any

from fakeapi.kinds.pod.schema.eviction import EvictionSchema
from fakeapi.machinery.decode import Decoder, decode_plan
from fakeapi.machinery.errors import BadRequest
from fakeapi.machinery.types import JSON
from fakeapi.registry.generic import Registry
from fakeapi.registry.options import DeleteOptions, WriteOptions

KIND = "Eviction"
# the endpoint takes an Eviction of either version policy has served
API_VERSIONS = ("policy/v1", "policy/v1beta1")
_DECODER = Decoder(decode_plan(EvictionSchema))


def decode_eviction(body: Any, options: WriteOptions) -> JSON:
    """An Eviction body shape-checked as the create handler does; unknown fields per fieldValidation."""
    if isinstance(body, dict):
        api_version = body.get("apiVersion")
        if api_version not in (None, "", *API_VERSIONS):
            raise BadRequest(f"the API version in the data ({api_version}) does not match the expected API "
                             "version (policy/v1)")
        sent_kind = body.get("kind")
        if sent_kind not in (None, "", KIND):
            raise BadRequest(f"the kind in the data ({sent_kind}) does not match the expected kind ({KIND})")
    decoded = _DECODER.decode(body, KIND)
    if decoded.unknown and options.field_validation == "Strict":
        raise BadRequest(f'{KIND} in version "v1" cannot be handled as a {KIND}: strict decoding error: '
                         + ", ".join(decoded.unknown))
    if decoded.unknown and options.field_validation == "Warn":
        options.warnings.extend(decoded.unknown)
    return decoded.obj


def evict_pod(pods: Registry, namespace: str, name: str, eviction: JSON, dry_run: bool) -> None:
    meta = eviction.get("metadata") or {}
    if meta.get("namespace") and meta["namespace"] != namespace:
        raise BadRequest("the namespace of the provided object does not match the namespace sent on the request")
    if meta.get("name") and meta["name"] != name:
        raise BadRequest("name in URL does not match name in Eviction object")
    # the create's dryRun carries over to the delete (upstream's propagateDryRun)
    options = DeleteOptions.parse(eviction.get("deleteOptions"), {"dryRun": "All"} if dry_run else {})
    pods.delete(namespace, name, options)
