"""Lease strategy (upstream pkg/registry/coordination/lease/strategy.go): a PUT to a missing lease creates
it, an update must name the resourceVersion it replaces, and the alpha coordinated-leader-election fields
(`strategy`, `preferredHolder`) are dropped, their feature gate being off in v1.32."""

from __future__ import annotations

from fakeapi.kinds.lease.validation import validate_lease, validate_lease_update
from fakeapi.kinds.strategy import Strategy
from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON

GATED_FIELDS = ("strategy", "preferredHolder")


class LeaseStrategy(Strategy):
    validation_covers_object_meta = True  # validate_lease checks ObjectMeta with DNS names

    def prepare_for_create(self, obj: JSON) -> None:
        _drop_gated(obj, ())

    def validate(self, obj: JSON) -> list[FieldError]:
        return validate_lease(obj)

    def prepare_for_update(self, new: JSON, old: JSON) -> None:
        old_spec = old.get("spec") or {}
        _drop_gated(new, tuple(field for field in GATED_FIELDS if old_spec.get(field) is not None))

    def validate_update(self, new: JSON, old: JSON) -> list[FieldError]:
        return validate_lease_update(new, old)

    def allow_unconditional_update(self) -> bool:
        return False

    def allow_create_on_update(self) -> bool:
        return True


def _drop_gated(lease: JSON, in_use: tuple[str, ...]) -> None:
    """Remove the gated fields but those the stored lease already uses (a new spec dict: parts may be shared
    with the stored object)."""
    spec = lease.get("spec")
    if isinstance(spec, dict) and any(field in spec and field not in in_use for field in GATED_FIELDS):
        lease["spec"] = {key: value for key, value in spec.items() if key in in_use or key not in GATED_FIELDS}
