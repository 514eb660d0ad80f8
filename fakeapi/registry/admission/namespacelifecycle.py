"""NamespaceLifecycle (upstream plugin/pkg/admission/namespace/lifecycle): nothing new in a namespace that
is missing or being terminated, and the namespaces a cluster cannot live without are never deleted."""

from __future__ import annotations

from fakeapi.machinery.errors import Forbidden, NotFound
from fakeapi.registry.admission import CREATE, DELETE, Attributes, ObjectReader

NAME = "NamespaceLifecycle"
IMMORTAL_NAMESPACES = frozenset(("default", "kube-system", "kube-public"))


class NamespaceLifecycle:
    def __init__(self, objects: ObjectReader) -> None:
        self.objects = objects

    def admit(self, attributes: Attributes) -> None:
        info = attributes.info
        if info.resource == "namespaces" and not info.group:
            if attributes.operation == DELETE and attributes.name in IMMORTAL_NAMESPACES:
                raise Forbidden.for_object("namespaces", attributes.name, "this namespace may not be deleted")
            return
        if attributes.operation != CREATE or not info.namespaced or attributes.subresource:
            return
        namespace = self.objects.find("namespaces", "", attributes.namespace)
        if namespace is None:
            raise NotFound.for_object("namespaces", attributes.namespace)
        if (namespace.get("status") or {}).get("phase") == "Terminating":
            error = Forbidden.for_object(
                info.resource, attributes.name,
                f"unable to create new content in namespace {attributes.namespace} because it is being "
                "terminated",
                group=info.group,
            )
            # the cause controllers look for, to make nothing more there (and record no failure)
            (error.details or {}).setdefault("causes", []).append({
                "reason": "NamespaceTerminating", "message": f"namespace {attributes.namespace} is being terminated",
                "field": "metadata.namespace"})
            raise error
