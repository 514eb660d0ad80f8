"""The strategy contract, after upstream's rest.RESTCreateStrategy / RESTUpdateStrategy.

A strategy keeps no request state; one that keeps memos gives each server its own (`for_server`).
The registry calls its hooks in this order:
create: default -> prepare_for_create -> validate -> warnings_on_create -> canonicalize;
update: default -> prepare_for_update -> validate_update -> warnings_on_update -> canonicalize.
A subresource (e.g. pods/status) is the same registry with another strategy that overrides
`prepare_for_update` and `validate_update`.
"""

from __future__ import annotations

from fakeapi.machinery.fielderrors import FieldError
from fakeapi.machinery.types import JSON
from fakeapi.machinery.users import UserInfo

# upstream's rest.GarbageCollectionPolicy: what a delete that names no propagation policy does to dependents
DELETE_DEPENDENTS = "DeleteDependents"  # the garbage collector deletes them in the background
ORPHAN_DEPENDENTS = "OrphanDependents"  # they are orphaned (the `orphan` finalizer)
UNSUPPORTED = "Unsupported"  # deletes of the kind never take a propagation finalizer


class Strategy:
    # True when `validate` runs the kind's own ObjectMeta checks, with a name rule at least as strict as a
    # path segment's (upstream's ValidateObjectMeta with a DNS name): rest.BeforeCreate's generic pass,
    # which runs only when `validate` found nothing, then cannot find anything and is skipped
    validation_covers_object_meta = False
    # upstream's DefaultGarbageCollectionPolicy for the kind's group version
    garbage_collection_policy = DELETE_DEPENDENTS
    # a Warning for deletes that name no propagation policy (upstream's batch/v1 Jobs, which orphan their pods)
    delete_without_policy_warning = ""

    def for_server(self) -> Strategy:
        """The strategy one server's registry uses: this one, or a copy with memos of its own."""
        return self

    def reset_fields(self) -> tuple[str, ...]:
        """The fields a write through this strategy's endpoint never sets, as dotted paths (upstream's
        GetResetFields): the main resource resets `status`; managedFields do not track them."""
        return ("status",)

    def default(self, obj: JSON) -> None:
        """Decode-time defaulting (upstream defaults.go), on create and update. May mutate."""

    def set_requesting_user(self, obj: JSON, user: UserInfo) -> None:
        """Record who asked, before prepare_for_create (upstream's PrepareForCreate reading the request's
        user: a CertificateSigningRequest's spec.username). May mutate."""

    def prepare_for_create(self, obj: JSON) -> None:
        """Set server-owned fields before validation. May mutate; must not remove fields whose
        presence would be a validation error."""

    def validate(self, obj: JSON) -> list[FieldError]:
        """Create validation. Must not mutate."""
        return []

    def warnings_on_create(self, obj: JSON) -> list[str]:
        return []

    def canonicalize(self, obj: JSON) -> None:
        """Last normalisation before storage. May mutate."""

    def prepare_for_update(self, new: JSON, old: JSON) -> None:
        """Copy over what this write may not change (e.g. status on the main resource). May mutate `new`."""

    def validate_update(self, new: JSON, old: JSON) -> list[FieldError]:
        """Update validation. Must not mutate."""
        return []

    def warnings_on_update(self, new: JSON, old: JSON) -> list[str]:
        return []

    def allow_unconditional_update(self) -> bool:
        """May a PUT without metadata.resourceVersion overwrite whatever is stored?"""
        return True

    def allow_create_on_update(self) -> bool:
        """Does a PUT to a missing object create it (upstream's AllowCreateOnUpdate; leases do)?"""
        return False

    def holds_deletion(self, obj: JSON) -> bool:
        """Whether the kind itself keeps a deleted object until something clears it, as finalizers do
        (a namespace's spec.finalizers)."""
        return False

    def prepare_for_delete(self, obj: JSON) -> None:
        """Mark an object whose deletion is pending (deletionTimestamp just set). May mutate."""

    def grace_period(self, obj: JSON, requested: int | None) -> int | None:
        """Graceful deletion (upstream's optional RESTGracefulDeleteStrategy): the grace period to use,
        or None when this resource is deleted at once."""
        return None
