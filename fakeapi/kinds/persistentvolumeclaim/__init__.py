"""core/v1 PersistentVolumeClaim: defaults, strategies (the claim, its status), validation and Table columns.
Nothing binds claims to volumes here: they stay Pending unless a client writes their status."""

from __future__ import annotations

from fakeapi.kinds.kind import STATUS_VERBS, Kind, ResourceInfo, SubresourceInfo
from fakeapi.kinds.persistentvolumeclaim.defaults import default_claim
from fakeapi.kinds.persistentvolumeclaim.table import CLAIM_PRINTER
from fakeapi.kinds.persistentvolumeclaim.validation import (
    validate_claim,
    validate_claim_status_update,
    validate_claim_update,
)
from fakeapi.kinds.strategy import Strategy
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation.values import as_dict

DEFINITION = "io.k8s.api.core.v1.PersistentVolumeClaim"


class PersistentVolumeClaimStrategy(Strategy):
    """Upstream pkg/registry/core/persistentvolumeclaim: the status starts empty (Pending once defaulted, as
    upstream's read from storage shows it) and is kept on update; volumeAttributesClassName (its feature is
    off in v1.32) is dropped unless the stored claim has one."""

    validation_covers_object_meta = True

    def default(self, obj: JSON) -> None:
        default_claim(obj)

    def prepare_for_create(self, obj: JSON) -> None:
        obj["status"] = {"phase": "Pending"}
        as_dict(obj.get("spec")).pop("volumeAttributesClassName", None)

    def prepare_for_update(self, new: JSON, old: JSON) -> None:
        new["status"] = old.get("status") or {}
        if not as_dict(old.get("spec")).get("volumeAttributesClassName"):
            as_dict(new.get("spec")).pop("volumeAttributesClassName", None)

    def validate(self, obj: JSON) -> list[FieldError]:
        return validate_claim(obj)

    def validate_update(self, new: JSON, old: JSON) -> list[FieldError]:
        return validate_claim_update(new, old)


class PersistentVolumeClaimStatusStrategy(PersistentVolumeClaimStrategy):
    def reset_fields(self) -> tuple[str, ...]:
        return ("spec",)

    def prepare_for_update(self, new: JSON, old: JSON) -> None:
        new["spec"] = old.get("spec") or {}

    def validate_update(self, new: JSON, old: JSON) -> list[FieldError]:
        return validate_claim_status_update(new, old)


PERSISTENT_VOLUME_CLAIM = Kind(
    ResourceInfo("persistentvolumeclaims", "PersistentVolumeClaim", namespaced=True, singular="persistentvolumeclaim",
                 short_names=("pvc",),
                 subresources=(SubresourceInfo("status", "PersistentVolumeClaim", STATUS_VERBS),),
                 definition=DEFINITION),
    PersistentVolumeClaimStrategy(),
    {"status": PersistentVolumeClaimStatusStrategy()},
    CLAIM_PRINTER,
)
