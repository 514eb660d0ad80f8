"""The generic registry: the one place where a strategy meets the store (upstream's registry.Store).

Every verb is one pipeline function over wire-shaped dicts; HTTP is not spoken here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import orjson

from fakeapi.kinds.kind import Kind
from fakeapi.machinery.clock import Clock, later, parse_rfc3339, rfc3339
from fakeapi.machinery.errors import AlreadyExists, BadRequest, Conflict, Invalid, NotFound, UnknownError
from fakeapi.machinery.fielderrors import invalid
from fakeapi.machinery.ids import IdSource
from fakeapi.machinery.jsonvalues import copy_json, json_type_name
from fakeapi.machinery.managedfields.manager import FieldManager, FieldTracker
from fakeapi.machinery.types import JSON, ObjectKey
from fakeapi.registry.admission import CREATE, DELETE, UPDATE, Admission, Attributes
from fakeapi.registry.decoding import decode_body
from fakeapi.registry.options import DeleteOptions, WriteOptions
from fakeapi.registry.propagation import deletion_finalizers
from fakeapi.registry.rest import before_create, before_update, ensure_namespace, fill_system_fields, wipe_system_fields
from fakeapi.storage.store import Store, encode

GENERATE_NAME_ATTEMPTS = 8
PATCH_ATTEMPTS = 5  # a patch computed again when the object changed under it (a store shared with other servers)
MAX_GENERATE_NAME_PREFIX = 58  # 63 - 5 random characters


Patcher = Callable[[JSON, Any], JSON]  # (object, patch) -> the patched object; neither input changed
"""Computes a patched object from the current one and a parsed patch body."""


class WriteHooks(Protocol):
    """What a resource's store does to an object before the strategy sees it (upstream's Store.BeginCreate and
    BeginUpdate: a Service's addresses and ports are given out there). May mutate, or raise a StatusError."""

    def begin_create(self, obj: JSON, options: WriteOptions) -> None: ...

    def begin_update(self, new: JSON, old: JSON, options: WriteOptions) -> None: ...


class Registry:
    """One resource (or subresource) of one kind: its verbs over the shared store."""

    def __init__(self, store: Store, kind: Kind, clock: Clock, ids: IdSource, admission: Admission,
                 subresource: str = "", hooks: WriteHooks | None = None) -> None:
        self.store = store
        self.kind = kind
        self.info = kind.info
        self.storage_resource = kind.storage_resource
        self.conversion = kind.conversion
        self.subresource_name = subresource
        # a subresource written as its object (status) has a strategy of its own; one that writes the object
        # through another kind (scale) writes it with the object's
        self.strategy = kind.subresource_strategies.get(subresource, kind.strategy).for_server()
        self.clock = clock
        self.ids = ids
        self.admission = admission
        self.hooks = hooks  # the main resource's only, as upstream's status stores have none
        self.decoder = kind.decoder(remember_parts=True)  # with this server's memo of parts
        # metadata.managedFields
        self.field_manager: FieldTracker = FieldManager(kind.compiled, clock, subresource,
                                                       self.info.api_version, self.strategy.reset_fields())

    @property
    def patch_tree(self) -> JSON:
        return self.kind.patch_tree

    def subresource(self, name: str) -> Registry:
        """The same storage with the subresource's strategy: how pods/status is built (upstream's
        `statusStore := *store`), so there is one resourceVersion sequence and one watch stream."""
        return Registry(self.store, self.kind, self.clock, self.ids, self.admission, name)

    def key(self, namespace: str, name: str) -> ObjectKey:
        return ObjectKey(self.storage_resource, namespace if self.info.namespaced else "", name)

    # ---- another kind's objects (events.k8s.io's events): stored in that kind's form

    def present(self, stored: JSON) -> JSON:
        """An object as this resource serves it, from its stored form."""
        return stored if self.conversion is None else self.conversion.from_stored(stored)

    def present_bytes(self, stored: bytes) -> bytes:
        if self.conversion is None:
            return stored
        return encode(self.conversion.from_stored(orjson.loads(stored)))

    # ---- decoding

    def decode(self, body: Any, options: WriteOptions, stored: JSON | None = None) -> JSON:
        """Shape-check a request body; unknown fields per fieldValidation (never stored). Then the
        decode-time defaulting (upstream's defaulters run as part of decoding). `stored`, the object the
        body replaces, spares decoding the parts the body resends unchanged."""
        kind, version = self.info.kind, self.info.version
        if not isinstance(body, dict):
            raise BadRequest(f'{kind} in version "{version}" cannot be handled as a {kind}: json: cannot '
                             f"unmarshal {json_type_name(body)} into Go value of type {version}.{kind}")
        obj = decode_body(self.decoder, body, kind, (self.info.api_version,), options,
                          stored if self.conversion is None else None)
        obj["apiVersion"] = self.info.api_version
        obj["kind"] = kind
        obj.setdefault("metadata", {})
        if self.conversion is not None:
            obj = self.conversion.to_stored(obj)
        self.strategy.default(obj)
        return obj

    def _presenter(self) -> Callable[[JSON], JSON] | None:
        """How admission sees this resource's objects, when they are stored as another kind's."""
        return None if self.conversion is None else self.present

    def _redecode(self, obj: JSON) -> JSON:
        """An object an admission webhook patched, decoded and defaulted again (what it added that the kind
        does not know is dropped)."""
        return self.decode(obj, WriteOptions(field_validation="Ignore"))

    # ---- reads

    def get(self, namespace: str, name: str) -> JSON:
        obj: JSON = orjson.loads(self.get_bytes(namespace, name))
        return obj

    def get_bytes(self, namespace: str, name: str) -> bytes:
        try:
            return self.present_bytes(self.store.get_bytes(self.key(namespace, name)))
        except NotFound:
            raise self._not_found(name) from None

    def _not_found(self, name: str) -> NotFound:
        """Upstream's storeerr: the store's NotFound, told with the resource's group (`leases.coordination.k8s.io`)."""
        return NotFound.for_object(self.info.resource, name, group=self.info.group)

    def find(self, namespace: str, name: str) -> JSON | None:
        """The object in its stored form, or None if there is none."""
        key = self.key(namespace, name)
        return self.store.get(key) if self.store.exists(key) else None

    def list_all(self, namespace: str | None = None) -> list[bytes]:
        """Every object (in one namespace, or all) as this resource serves it, in storage order."""
        stored = self.store.list_bytes(self.storage_resource, namespace if self.info.namespaced else None)
        return stored if self.conversion is None else [self.present_bytes(data) for data in stored]

    # ---- create

    def create(self, namespace: str, body: Any, options: WriteOptions) -> JSON:
        """Upstream's create handler and Store.Create: decode and default, admission, rest.BeforeCreate,
        then store (a generated name is retried on a clash)."""
        obj = self.decode(body, options)
        meta: JSON = obj["metadata"]
        wipe_system_fields(meta)
        ensure_namespace(self.info, meta, namespace)
        fill_system_fields(meta, self.ids.uid(), self.clock.timestamp())
        self._track_fields(obj, None, options.field_manager)
        name = str(meta.get("name") or meta.get("generateName") or "")
        attributes = Attributes(CREATE, self.info, "", namespace if self.info.namespaced else "", name, obj, None,
                                options.dry_run, options.admission, self._redecode, present=self._presenter())
        self.admission.admit(attributes)
        if self.hooks is not None:
            self.hooks.begin_create(obj, options)
        generate = not meta.get("name") and bool(meta.get("generateName"))
        for _attempt in range(GENERATE_NAME_ATTEMPTS if generate else 1):
            if generate:
                meta["name"] = str(meta["generateName"])[:MAX_GENERATE_NAME_PREFIX] + self.ids.suffix()
            before_create(self.strategy, self.info, obj, options)
            attributes.name = meta["name"]
            self.admission.validate(attributes)
            try:
                return self.present(self._store_new(obj, options))
            except AlreadyExists as exists:
                if not generate:
                    raise
                last = exists
        raise AlreadyExists(
            last.message + ", the server was not able to generate a unique name for the object",
            {**(last.details or {}), "retryAfterSeconds": 1},
        )

    def _store_new(self, obj: JSON, options: WriteOptions) -> JSON:
        meta: JSON = obj["metadata"]
        if meta.get("resourceVersion"):
            raise UnknownError("resourceVersion should not be set on objects to be created")
        key = self.key(meta.get("namespace", ""), meta["name"])
        if self.store.exists(key):
            raise AlreadyExists.for_object(self.info.resource, key.name, self._deleting_prefix(key),
                                           group=self.info.group)
        if options.dry_run:
            return obj
        self.store.create(key, obj)  # stamps obj with its resourceVersion; the store keeps only bytes
        return obj

    def _deleting_prefix(self, key: ObjectKey) -> str:
        existing = self.store.get(key)
        return "object is being deleted: " if existing["metadata"].get("deletionTimestamp") else ""

    # ---- update, patch

    def update(self, namespace: str, name: str, body: Any, options: WriteOptions) -> JSON:
        """PUT: the body replaces the stored object, through the update pipeline."""
        old = self.find(namespace, name)
        new = self.decode(body, options, old)
        self._check_put_target(new["metadata"], namespace, name)
        if old is None:
            raise self._not_found(name)
        return self.present(self._update(self.key(namespace, name), new, old, options))

    def replace(self, namespace: str, name: str, body: Any, options: WriteOptions) -> tuple[JSON, bool]:
        """PUT: `update`, or, for a missing object whose strategy allows it (leases), a create. Returns the
        object and whether it was created."""
        if not self.strategy.allow_create_on_update() or self.store.exists(self.key(namespace, name)):
            return self.update(namespace, name, body, options), False
        obj = self.decode(body, options)
        self._check_put_target(obj["metadata"], namespace, name)
        obj["metadata"].pop("resourceVersion", None)  # upstream's create-on-update ignores a version sent
        return self.create(namespace, obj, options), True

    def _check_put_target(self, meta: JSON, namespace: str, name: str) -> None:
        """A PUT body names the object of its URL."""
        if meta.get("name") != name:
            raise BadRequest(f"the name of the object ({meta.get('name', '')}) does not match "
                             f"the name on the URL ({name})")
        if self.info.namespaced and meta.get("namespace") and meta["namespace"] != namespace:
            raise BadRequest(f"the namespace of the object ({meta['namespace']}) does not match "
                             f"the namespace on the request ({namespace})")

    def patch(self, namespace: str, name: str, patcher: Patcher, patch: Any, options: WriteOptions) -> JSON:
        """A patch computes the new object from the stored one, then runs the update pipeline. When the store
        finds the object changed meanwhile (another server sharing it wrote first), the patch is computed again
        from the newer object, as upstream's GuaranteedUpdate does."""
        for _attempt in range(PATCH_ATTEMPTS - 1):
            current = self.find(namespace, name)
            try:
                return self._patch(namespace, name, current, patcher, patch, options)
            except Conflict:
                newer = self.find(namespace, name)
                if current is None or newer is None or _version(newer) == _version(current):
                    raise  # (a stale resourceVersion in the patch itself)
        return self._patch(namespace, name, self.find(namespace, name), patcher, patch, options)

    def _patch(self, namespace: str, name: str, current: JSON | None, patcher: Patcher, patch: Any,
               options: WriteOptions) -> JSON:
        if current is None:
            raise self._not_found(name)
        # (a patcher changes neither input)
        new = self.decode(patcher(self.present(current), patch), options, current)
        meta: JSON = new["metadata"]
        if meta.get("name") != name:
            raise BadRequest(f"the name of the object ({meta.get('name', '')}) does not match "
                             f"the name on the URL ({name})")
        if not meta.get("resourceVersion"):
            meta["resourceVersion"] = current["metadata"]["resourceVersion"]
        return self.present(self._update(self.key(namespace, name), new, current, options))

    def _update(self, key: ObjectKey, new: JSON, old: JSON, options: WriteOptions) -> JSON:
        """Upstream's Store.Update: preconditions, admission, rest.BeforeUpdate, managedFields, then store
        (nothing when nothing changed; the delete completes when the last finalizer went)."""
        meta: JSON = new["metadata"]
        old_meta: JSON = old["metadata"]
        self._check_uid_precondition(key, meta.get("uid"), old_meta.get("uid"))
        sent_rv = meta.get("resourceVersion")
        if sent_rv and sent_rv != old_meta["resourceVersion"]:
            raise Conflict.modified(self.info.resource, key.name, group=self.info.group)
        if not sent_rv and not self.strategy.allow_unconditional_update():
            raise Invalid(self.info.kind, key.name, [
                invalid("metadata.resourceVersion", 0, "must be specified for an update")], self.info.group)
        meta["resourceVersion"] = old_meta["resourceVersion"]
        ensure_namespace(self.info, meta, key.namespace)
        attributes = Attributes(UPDATE, self.info, self.subresource_name, key.namespace, key.name, new, old,
                                options.dry_run, options.admission, self._redecode, present=self._presenter())
        self.admission.admit(attributes)
        if self.hooks is not None:
            self.hooks.begin_update(new, old, options)
        before_update(self.strategy, self.info, new, old, options)
        self._track_fields(new, old, options.field_manager)
        self.admission.validate(attributes)
        if new == old:
            return old  # a no-op write stores nothing and keeps the resourceVersion
        if (old_meta.get("deletionTimestamp") and not old_meta.get("deletionGracePeriodSeconds")
                and not self._held(new)):
            # the last finalizer is gone from an object being deleted: the update completes the delete
            if options.dry_run:
                return new
            self.store.update(key, new, old_meta["resourceVersion"])
            self.store.delete(key)
            return new
        if options.dry_run:
            return new
        self.store.update(key, new, old_meta["resourceVersion"])
        return new

    def _track_fields(self, new: JSON, old: JSON | None, manager: str | None) -> None:
        """metadata.managedFields of a write, found in the objects as this resource serves them."""
        if self.conversion is None:
            self.field_manager.update(new, old, manager)
            return
        served = self.present(new)
        self.field_manager.update(served, None if old is None else self.present(old), manager)
        new["metadata"]["managedFields"] = served["metadata"]["managedFields"]

    def _held(self, obj: JSON) -> bool:
        """Whether something still holds the object's deletion: finalizers, or the kind's own (a namespace's
        spec.finalizers)."""
        return bool(obj["metadata"].get("finalizers")) or self.kind.strategy.holds_deletion(obj)

    def _check_uid_precondition(self, key: ObjectKey, sent: Any, stored: Any) -> None:
        if sent and sent != stored:
            raise Conflict.for_object(
                self.info.resource, key.name,
                f"Precondition failed: UID in precondition: {sent}, UID in object meta: {stored}",
                group=self.info.group,
            )

    # ---- delete

    def delete(self, namespace: str, name: str, options: DeleteOptions) -> tuple[JSON, bool]:
        """Delete (or start deleting) an object. Returns the object and whether it is gone now."""
        obj, gone = self._delete(namespace, name, options)
        return self.present(obj), gone

    def _delete(self, namespace: str, name: str, options: DeleteOptions) -> tuple[JSON, bool]:
        """Upstream's Store.Delete: a graceful deletion or one that finalizers hold marks the object (its
        deletionTimestamp); anything else removes it now."""
        key = self.key(namespace, name)
        old = self.find(namespace, name)
        if old is None:
            raise self._not_found(name)
        meta: JSON = old["metadata"]
        self._check_delete_preconditions(key, meta, options)
        attributes = Attributes(DELETE, self.info, "", key.namespace, name, None, old, options.dry_run,
                                options.admission, present=self._presenter())
        self.admission.admit(attributes)
        self.admission.validate(attributes)
        strategy = self.kind.strategy
        if (strategy.delete_without_policy_warning and options.propagation_policy is None
                and options.orphan_dependents is None):
            options.warnings.append(strategy.delete_without_policy_warning)
        grace = self.strategy.grace_period(old, options.grace_period_seconds)
        finalizers = deletion_finalizers(strategy.garbage_collection_policy, meta.get("finalizers") or [], options)
        if meta.get("deletionTimestamp"):
            if meta.get("deletionGracePeriodSeconds"):
                return self._delete_pending(key, old, grace, finalizers, options)
            return self._delete_held(key, old, finalizers, options)
        new = copy_json(old)
        new_meta: JSON = new["metadata"]
        _set_finalizers(new_meta, finalizers)
        held = self._held(new)
        if grace is None and not held:
            if options.dry_run:
                return old, True
            return orjson.loads(self.store.delete(key, meta["resourceVersion"])), True
        seconds = grace or 0
        new_meta["deletionTimestamp"] = rfc3339(later(self.clock.now(), seconds))
        new_meta["deletionGracePeriodSeconds"] = seconds
        if new_meta.get("generation", 0) > 0:
            new_meta["generation"] += 1
        self.strategy.prepare_for_delete(new)
        if options.dry_run:
            return new, seconds == 0 and not held
        self.store.update(key, new, meta["resourceVersion"])
        if seconds == 0 and not held:
            return orjson.loads(self.store.delete(key)), True
        return new, False

    def _delete_pending(self, key: ObjectKey, old: JSON, grace: int | None, finalizers: list[str],
                        options: DeleteOptions) -> tuple[JSON, bool]:
        """A second delete while graceful deletion is pending: only a shorter grace period does anything
        (and then the delete's propagation policy applies too)."""
        meta: JSON = old["metadata"]
        current = meta.get("deletionGracePeriodSeconds")
        if grace is None or current is None or grace >= current:
            return old, False
        new = copy_json(old)
        new_meta: JSON = new["metadata"]
        now = self.clock.now()
        stamp = min(later(now, grace), parse_rfc3339(meta["deletionTimestamp"]))
        new_meta["deletionTimestamp"] = rfc3339(max(stamp, now))
        new_meta["deletionGracePeriodSeconds"] = grace
        _set_finalizers(new_meta, finalizers)
        gone = grace == 0 and not self._held(new)
        if options.dry_run:
            return new, gone
        self.store.update(key, new, meta["resourceVersion"])
        if gone:
            return orjson.loads(self.store.delete(key)), True
        return new, False

    def _delete_held(self, key: ObjectKey, old: JSON, finalizers: list[str],
                     options: DeleteOptions) -> tuple[JSON, bool]:
        """A delete of an object that finalizers hold (its grace period over): the delete's propagation
        policy may still change the garbage collector's finalizers; with none left it goes now."""
        meta: JSON = old["metadata"]
        new = copy_json(old)
        _set_finalizers(new["metadata"], finalizers)
        held = self._held(new)
        if new == old and held:
            return old, False
        if options.dry_run:
            return new, not held
        if new != old:
            self.store.update(key, new, meta["resourceVersion"])
        if not held:
            return orjson.loads(self.store.delete(key)), True
        return new, False

    def _check_delete_preconditions(self, key: ObjectKey, meta: JSON, options: DeleteOptions) -> None:
        # upstream's rest.BeforeDelete names the object by its kind here (`Lease.coordination.k8s.io`)
        kind, group = self.info.kind, self.info.group
        if options.uid is not None and options.uid != meta.get("uid"):
            raise Conflict.for_object(
                kind, key.name,
                f"the UID in the precondition ({options.uid}) does not match the UID in record "
                f"({meta.get('uid')}). The object might have been deleted and then recreated",
                group=group,
            )
        if options.resource_version is not None and options.resource_version != meta.get("resourceVersion"):
            raise Conflict.for_object(
                kind, key.name,
                f"the ResourceVersion in the precondition ({options.resource_version}) does not match the "
                f"ResourceVersion in record ({meta.get('resourceVersion')}). The object might have been modified",
                group=group,
            )


def _version(obj: JSON) -> Any:
    return obj["metadata"].get("resourceVersion")


def _set_finalizers(meta: JSON, finalizers: list[str]) -> None:
    if finalizers:
        meta["finalizers"] = finalizers
    else:
        meta.pop("finalizers", None)
