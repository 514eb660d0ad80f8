"""POST serviceaccounts/{name}/token: a TokenRequest answered with a signed token, as upstream's TokenREST
answers it (`kubectl create token`). Nothing is stored."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from fakeapi.machinery.clock import Clock, rfc3339
from fakeapi.machinery.errors import BadRequest, Conflict, Invalid, StatusError, aggregate_message
from fakeapi.machinery.fielderrors import FieldError, invalid
from fakeapi.machinery.schema.definitions import KUBERNETES_1_32
from fakeapi.machinery.types import JSON
from fakeapi.registry.decoding import decode_body
from fakeapi.registry.generic import Registry
from fakeapi.registry.options import WriteOptions
from fakeapi.registry.rest import NAMESPACE_MISMATCH
from fakeapi.registry.reviews import go_json
from fakeapi.registry.tokens.claims import EXTENDED_EXPIRATION, WARN_ONLY_EXPIRATION, bound_claims
from fakeapi.registry.tokens.issuer import Issuer

KIND, GROUP, API_VERSION = "TokenRequest", "authentication.k8s.io", "authentication.k8s.io/v1"
DEFINITION = "io.k8s.api.authentication.v1.TokenRequest"
DEFAULT_EXPIRATION = 3600
MIN_EXPIRATION = 10 * 60
MAX_EXPIRATION = 1 << 32


@dataclass(frozen=True)
class TokenRequests:
    """What a TokenRequest reads: the objects a token may be bound to, the issuer, the clock, and jti's."""

    service_accounts: Registry
    pods: Registry
    secrets: Registry
    nodes: Registry
    issuer: Issuer
    clock: Clock
    new_id: Callable[[], str]

    def create(self, namespace: str, name: str, body: Any, options: WriteOptions) -> JSON:
        """The answered TokenRequest (201), or upstream's error."""
        request = decode_body(KUBERNETES_1_32.compiled(DEFINITION).decoder(), body, KIND, (API_VERSION,), options)
        metadata = request.get("metadata") or {}
        if metadata.get("namespace") and metadata["namespace"] != namespace:  # the create handler's check
            raise BadRequest(NAMESPACE_MISMATCH)
        if metadata.get("name") and metadata["name"] != name:
            raise _invalid(name, [invalid("metadata.name", metadata["name"],
                                          "must match the service account name if specified")])
        service_account = self.service_accounts.get(namespace, name)
        spec = request.setdefault("spec", {})
        if not spec.get("audiences"):
            spec["audiences"] = list(self.issuer.audiences)
        if spec.get("expirationSeconds") is None:
            spec["expirationSeconds"] = DEFAULT_EXPIRATION
        now = self.clock.now().replace(microsecond=0)
        metadata = {"name": name, "namespace": namespace, "creationTimestamp": rfc3339(now)}
        expiration = spec["expirationSeconds"]
        errors = _validate(expiration)
        if errors:
            raise _TokenRequestInvalid(errors)
        pod, secret, node = self._bound(namespace, name, spec.get("boundObjectRef"))
        max_expiration = self.issuer.settings.max_expiration
        if 0 < max_expiration < expiration:
            options.warnings.append(f"requested expiration of {expiration} seconds shortened to "
                                    f"{max_expiration} seconds")
            expiration = spec["expirationSeconds"] = max_expiration
        lifetime, warn_after = expiration, 0
        if (self.issuer.settings.extend_expiration and pod is not None and expiration == WARN_ONLY_EXPIRATION
                and all(audience in self.issuer.audiences for audience in spec["audiences"])):
            lifetime, warn_after = EXTENDED_EXPIRATION, expiration
        claims = bound_claims(self.issuer.name, service_account, spec["audiences"], int(now.timestamp()), lifetime,
                              self.new_id(), pod=pod, secret=secret, node=node, warn_after=warn_after)
        token = self.issuer.sign(claims)
        schema = KUBERNETES_1_32.compiled(DEFINITION).schema.properties
        return {"kind": KIND, "apiVersion": API_VERSION, "metadata": metadata,
                "spec": go_json(schema["spec"].schema, spec),
                "status": {"token": token, "expirationTimestamp": rfc3339(now + timedelta(seconds=expiration))}}

    def _bound(self, namespace: str, name: str, ref: Any) -> tuple[JSON | None, JSON | None, JSON | None]:
        """The pod, secret or node the token is bound to (a pod's node too, when it has one)."""
        if not isinstance(ref, dict):
            return None, None, None
        kind, ref_name = ref.get("kind") or "", ref.get("name") or ""
        group, version = _group_version(ref.get("apiVersion") or "")
        pod = secret = node = None
        if group == "" and kind in ("Pod", "Secret", "Node") and not ref_name:
            raise BadRequest("Name parameter required.")  # what the registry's Get says to an empty name
        if group == "" and kind == "Pod":
            pod = self.pods.get(namespace, ref_name)
            account = pod.get("spec", {}).get("serviceAccountName", "")
            if name != account:
                raise BadRequest(f'cannot bind token for serviceaccount "{name}" to pod running with '
                                 f'serviceaccount "{account}"')
            bound = pod
            node_name = pod.get("spec", {}).get("nodeName")
            if node_name:
                node = self.nodes.find("", node_name)
        elif group == "" and kind == "Secret":
            secret = bound = self.secrets.get(namespace, ref_name)
        elif group == "" and kind == "Node":
            node = bound = self.nodes.get("", ref_name)
        else:
            raise BadRequest(f"cannot bind token to object of type {group}/{version}, Kind={kind}")
        uid = bound["metadata"].get("uid", "")
        if ref.get("uid") and ref["uid"] != uid:
            raise Conflict(f'Operation cannot be fulfilled on {kind} "{ref_name}": the UID in the bound object '
                           f"reference ({ref['uid']}) does not match the UID in record ({uid}). The object might "
                           "have been deleted and then recreated",
                           {"name": ref_name, "kind": kind})
        return pod, secret, node


def _group_version(api_version: str) -> tuple[str, str]:
    """schema.FromAPIVersionAndKind's group and version: an apiVersion it cannot parse names none."""
    parts = api_version.split("/")
    if len(parts) == 1:
        return "", parts[0]
    if len(parts) == 2 and parts[0] and parts[1]:
        return parts[0], parts[1]
    return "", ""


def _validate(expiration: Any) -> list[FieldError]:
    if expiration < MIN_EXPIRATION:
        return [invalid("spec.expirationSeconds", expiration, "may not specify a duration less than 10 minutes")]
    if expiration > MAX_EXPIRATION:
        return [invalid("spec.expirationSeconds", expiration, "may not specify a duration larger than 2^32 seconds")]
    return []


def _invalid(name: str, errors: list[FieldError]) -> Invalid:
    return Invalid(KIND, name, errors, GROUP)


class _TokenRequestInvalid(Invalid):
    """Upstream validates the request under an empty name: the details have none."""

    def __init__(self, errors: list[FieldError]) -> None:
        StatusError.__init__(self, f'{KIND}.{GROUP} "" is invalid: {aggregate_message(errors)}',
                             {"group": GROUP, "kind": KIND, "causes": [error.to_cause() for error in errors]})
        self.errors = errors
