"""The steps every create and update takes around a kind's strategy, as upstream's rest package
(`rest.BeforeCreate`, `rest.BeforeUpdate`, `WipeObjectMetaSystemFields`, `FillObjectMetaSystemFields`)."""

from __future__ import annotations

from fakeapi.kinds.kind import ResourceInfo
from fakeapi.kinds.strategy import Strategy
from fakeapi.machinery.errors import BadRequest, raise_if_invalid
from fakeapi.machinery.types import JSON
from fakeapi.machinery.validation import names
from fakeapi.machinery.validation.objectmeta import validate_common_update, validate_object_meta
from fakeapi.registry.options import WriteOptions

NAMESPACE_MISMATCH = "the namespace of the provided object does not match the namespace sent on the request"
_SYSTEM_FIELDS = ("creationTimestamp", "uid", "deletionTimestamp", "deletionGracePeriodSeconds", "selfLink")


def wipe_system_fields(meta: JSON) -> None:
    """What a client may not set on create: the server fills these in."""
    for system_field in _SYSTEM_FIELDS:
        meta.pop(system_field, None)


def fill_system_fields(meta: JSON, uid: str, now: str) -> None:
    meta["uid"] = uid
    meta["creationTimestamp"] = now


def ensure_namespace(info: ResourceInfo, meta: JSON, namespace: str) -> None:
    """EnsureObjectNamespaceMatchesRequestNamespace: an empty namespace is the request's; cluster-scoped
    objects have none."""
    if not info.namespaced:
        meta.pop("namespace", None)
        return
    sent = meta.get("namespace")
    if not sent:
        meta["namespace"] = namespace
    elif sent != namespace:
        raise BadRequest(NAMESPACE_MISMATCH)


def before_create(strategy: Strategy, info: ResourceInfo, obj: JSON, options: WriteOptions) -> None:
    """rest.BeforeCreate, on an object whose system fields and namespace are set: the strategy prepares and
    validates it, then the generic ObjectMeta checks run (after, so the kind's own messages win; not at
    all when the kind's own checks cover them)."""
    meta: JSON = obj["metadata"]
    name = str(meta.get("name") or meta.get("generateName") or "")
    if options.user is not None:
        strategy.set_requesting_user(obj, options.user)
    strategy.prepare_for_create(obj)
    raise_if_invalid(info.kind, name, strategy.validate(obj), info.group)
    if not strategy.validation_covers_object_meta:
        raise_if_invalid(info.kind, name, validate_object_meta(
            meta, info.namespaced, "metadata", names.path_segment_name, kube_finalizers=False), info.group)
    options.warnings.extend(strategy.warnings_on_create(obj))
    strategy.canonicalize(obj)


def before_update(strategy: Strategy, info: ResourceInfo, new: JSON, old: JSON, options: WriteOptions) -> None:
    """rest.BeforeUpdate: what a client may never change is taken from the stored object, the strategy
    prepares the new object, then the generic ObjectMeta checks and the strategy's validate it."""
    meta: JSON = new["metadata"]
    old_meta: JSON = old["metadata"]
    if "generation" in old_meta:
        meta["generation"] = old_meta["generation"]
    else:
        meta.pop("generation", None)
    strategy.prepare_for_update(new, old)
    if not meta.get("uid"):
        meta["uid"] = old_meta.get("uid")
    meta["creationTimestamp"] = old_meta.get("creationTimestamp")
    if old_meta.get("deletionTimestamp"):
        meta["deletionTimestamp"] = old_meta["deletionTimestamp"]
    if meta.get("deletionGracePeriodSeconds") is None and "deletionGracePeriodSeconds" in old_meta:
        meta["deletionGracePeriodSeconds"] = old_meta["deletionGracePeriodSeconds"]
    found = validate_common_update(new, old, info.namespaced) + strategy.validate_update(new, old)
    raise_if_invalid(info.kind, str(meta.get("name") or ""), [error for error in found if not error.warning],
                     info.group)
    options.warnings.extend(str(error) for error in found if error.warning)
    options.warnings.extend(strategy.warnings_on_update(new, old))
    strategy.canonicalize(new)
