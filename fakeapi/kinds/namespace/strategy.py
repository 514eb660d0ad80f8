"""Namespace strategy: phase Active on create, status and spec.finalizers owned by the server."""

from __future__ import annotations

from fakeapi.kinds.namespace.defaults import default_namespace
from fakeapi.kinds.namespace.validation import validate_namespace, validate_namespace_update
from fakeapi.kinds.strategy import Strategy
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON

KUBERNETES_FINALIZER = "kubernetes"


class NamespaceStrategy(Strategy):
    validation_covers_object_meta = True  # validate_namespace checks ObjectMeta with DNS names

    def default(self, obj: JSON) -> None:
        default_namespace(obj)

    def prepare_for_create(self, obj: JSON) -> None:
        obj["status"] = {"phase": "Active"}
        spec: JSON = obj.setdefault("spec", {})
        finalizers = spec.setdefault("finalizers", [])
        if KUBERNETES_FINALIZER not in finalizers:
            finalizers.append(KUBERNETES_FINALIZER)

    def validate(self, obj: JSON) -> list[FieldError]:
        return validate_namespace(obj)

    def prepare_for_update(self, new: JSON, old: JSON) -> None:
        new["spec"] = old.get("spec", {})
        new["status"] = old.get("status", {})

    def validate_update(self, new: JSON, old: JSON) -> list[FieldError]:
        return validate_namespace_update(new, old)

    def holds_deletion(self, obj: JSON) -> bool:
        return bool((obj.get("spec") or {}).get("finalizers"))

    def prepare_for_delete(self, obj: JSON) -> None:
        obj.setdefault("status", {})["phase"] = "Terminating"


class NamespaceStatusStrategy(NamespaceStrategy):
    def reset_fields(self) -> tuple[str, ...]:
        return ("spec",)

    def prepare_for_update(self, new: JSON, old: JSON) -> None:
        new["spec"] = old.get("spec", {})


class NamespaceFinalizeStrategy(NamespaceStrategy):
    """namespaces/finalize: only spec.finalizers change (the namespace controller's last step)."""

    def reset_fields(self) -> tuple[str, ...]:
        return ()

    def prepare_for_update(self, new: JSON, old: JSON) -> None:
        new["status"] = old.get("status", {})
