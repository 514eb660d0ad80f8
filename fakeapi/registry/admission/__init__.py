"""Admission: the plugins every write passes after defaulting and before the strategy's validation, in
upstream's order (kube-apiserver's AllOrderedPlugins), each switchable by its upstream name; then, after
validation, the validating plugins (upstream's validating admission: policies and validating webhooks).

Each plugin is a small module of its own (as upstream's plugin/pkg/admission/<plugin>/). A plugin may
change the object (`attributes.obj`) or reject the request by raising a StatusError; a validating plugin
may only reject it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Protocol

from fakeapi.kinds.kind import ResourceInfo
from fakeapi.machinery.ids import IdSource
from fakeapi.machinery.types import JSON
from fakeapi.registry.admission.request import RequestContext

CREATE = "CREATE"
UPDATE = "UPDATE"
DELETE = "DELETE"
CONNECT = "CONNECT"


@dataclass
class Attributes:
    """What a plugin is told about a request (upstream's admission.Attributes)."""

    operation: str  # CREATE, UPDATE, DELETE or CONNECT
    info: ResourceInfo
    subresource: str
    namespace: str
    name: str
    obj: JSON | None  # the object being written (None for DELETE); plugins may change it
    old: JSON | None  # the stored object (UPDATE, DELETE)
    dry_run: bool = False
    # the client's request (None for the server's own writes, which call no webhooks)
    request: RequestContext | None = None
    # decodes and defaults an object a webhook patched, as a request body is
    decode: Callable[[JSON], JSON] | None = None
    # (group, version, kind) of `obj` when it is not the resource's kind (a CONNECT's PodExecOptions)
    kind: tuple[str, str, str] | None = None
    # an object as the request's version shows it, when it is stored as another kind's (events.k8s.io's
    # events); webhooks and policies see that form
    present: Callable[[JSON], JSON] | None = None

    def shown(self, obj: JSON | None) -> JSON | None:
        """`obj` (the object or the old one) as the request's version shows it."""
        return obj if obj is None or self.present is None else self.present(obj)

    def is_pod(self) -> bool:
        """A write of a pod itself, not of one of its subresources."""
        return self.info.group == "" and self.info.resource == "pods" and not self.subresource


class ObjectReader(Protocol):
    """What plugins see of the cluster: other objects (namespaces, service accounts...; None when there is
    none), and the server's id source for the names they generate (reproducible under a seed)."""

    ids: IdSource

    def find(self, resource: str, namespace: str, name: str) -> JSON | None: ...

    def list_stored(self, resource: str, group: str) -> list[bytes]:
        """Every stored object of a resource (the webhook configurations)."""
        ...

    def serves_other_versions(self, group: str, resource: str, version: str) -> bool:
        """Whether the resource is served in another version too (webhooks' matchPolicy Equivalent)."""
        ...

    def objects_of_kind(self, api_version: str, kind: str) -> tuple[bool, list[JSON]] | None:
        """Whether a served kind is namespaced, and its objects (None when it is not served): policies' params."""
        ...


class Plugin(Protocol):
    def admit(self, attributes: Attributes) -> None: ...


class Validator(Protocol):
    def validate(self, attributes: Attributes) -> None: ...


@dataclass
class Admission:
    """The enabled plugins in upstream's order: the mutating ones, then the validating ones."""

    plugins: list[Plugin]
    validators: list[Validator] = field(default_factory=list)

    def admit(self, attributes: Attributes) -> None:
        for plugin in self.plugins:
            plugin.admit(attributes)

    def validate(self, attributes: Attributes) -> None:
        """Validating admission, after the strategy's validation."""
        for validator in self.validators:
            validator.validate(attributes)


PluginFactory = Callable[[ObjectReader], Plugin]
ValidatorFactory = Callable[[ObjectReader], Validator]

# kube-apiserver v1.32's plugin names: any of them may be named in --disable-admission-plugins
UPSTREAM_PLUGINS = frozenset((
    "AlwaysAdmit", "NamespaceAutoProvision", "NamespaceLifecycle", "NamespaceExists",
    "LimitPodHardAntiAffinityTopology", "LimitRanger", "ServiceAccount", "NodeRestriction",
    "TaintNodesByCondition", "AlwaysPullImages", "ImagePolicyWebhook", "PodSecurity", "PodNodeSelector",
    "Priority", "DefaultTolerationSeconds", "PodTolerationRestriction", "EventRateLimit",
    "ExtendedResourceToleration", "DefaultStorageClass", "StorageObjectInUseProtection",
    "OwnerReferencesPermissionEnforcement", "PersistentVolumeClaimResize", "RuntimeClass",
    "CertificateApproval", "CertificateSigning", "ClusterTrustBundleAttest", "CertificateSubjectRestriction",
    "DefaultIngressClass", "DenyServiceExternalIPs", "MutatingAdmissionPolicy", "MutatingAdmissionWebhook",
    "ValidatingAdmissionPolicy", "ValidatingAdmissionWebhook", "ResourceQuota", "AlwaysDeny",
))


def build_admission(factories: Iterable[tuple[str, PluginFactory]], disabled: Iterable[str],
                    objects: ObjectReader, validators: Iterable[tuple[str, ValidatorFactory]] = ()) -> Admission:
    """The chain of every plugin not disabled, built in the order given. A name kube-apiserver does not
    know is an error, as there (a plugin fakeapi does not implement is simply off)."""
    off = set(disabled)
    for name in sorted(off - UPSTREAM_PLUGINS):
        raise ValueError(f'disable-admission-plugins plugin "{name}" is unknown')
    return Admission([factory(objects) for name, factory in factories if name not in off],
                     [factory(objects) for name, factory in validators if name not in off])
