"""The generic registry: the one place where a strategy meets the store (upstream's registry.Store).

Every verb is one pipeline function over wire-shaped dicts; HTTP is not spoken here.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import orjson

from fakeapi.kinds.kind import Kind
from fakeapi.machinery.clock import Clock, parse_rfc3339, rfc3339
from fakeapi.machinery.decode import decode
from fakeapi.machinery.errors import (
    AlreadyExists,
    BadRequest,
    Conflict,
    Forbidden,
    Invalid,
    NotFound,
    UnknownError,
    raise_if_invalid,
)
from fakeapi.machinery.fielderrors import invalid
from fakeapi.machinery.ids import IdSource
from fakeapi.machinery.jsonvalues import copy_json, json_type_name, parse_sharing, same_json
from fakeapi.machinery.managedfields.manager import FieldManager, FieldTracker
from fakeapi.machinery.types import JSON, ObjectKey
from fakeapi.machinery.validation.objectmeta import validate_common_update
from fakeapi.registry.options import DeleteOptions, WriteOptions
from fakeapi.storage.store import Store

GENERATE_NAME_ATTEMPTS = 8
MAX_GENERATE_NAME_PREFIX = 58  # 63 - 5 random characters
_TYPE_META = ("apiVersion", "kind")
_MISSING = object()
_SYSTEM_FIELDS = ("creationTimestamp", "uid", "deletionTimestamp", "deletionGracePeriodSeconds", "selfLink")


Patcher = Callable[[JSON, Any], JSON]
"""Computes a patched object from the current one and a parsed patch body."""


class Registry:
    def __init__(self, store: Store, kind: Kind, clock: Clock, ids: IdSource, subresource: str = "") -> None:
        self.store = store
        self.kind = kind
        self.info = kind.info
        self.schema = kind.schema
        self.strategy = kind.subresource_strategies[subresource] if subresource else kind.strategy
        self.clock = clock
        self.ids = ids
        # metadata.managedFields
        self.field_manager: FieldTracker = FieldManager(self.schema, clock, subresource, self.info.api_version)
        self._written: tuple[JSON, bytes] | None = None  # the last object this registry stored, encoded

    def subresource(self, name: str) -> Registry:
        """The same storage with the subresource's strategy: how pods/status is built (upstream's
        `statusStore := *store`), so there is one resourceVersion sequence and one watch stream."""
        return type(self)(self.store, self.kind, self.clock, self.ids, name)

    def key(self, namespace: str, name: str) -> ObjectKey:
        return ObjectKey(self.info.resource, namespace if self.info.namespaced else "", name)

    # ---- decoding

    def decode(self, body: Any, options: WriteOptions, stored: JSON | None = None) -> JSON:
        """Shape-check a request body; unknown fields per fieldValidation (never stored).

        Parts of the body equal to the `stored` object (already decoded when it was written, so
        decoding them again finds nothing) are taken from it instead: most updates resend an
        unchanged spec and managedFields.
        """
        if stored is not None and isinstance(body, dict):
            return self._decode_changes(body, options, stored)
        kind, version = self.info.kind, self.info.version
        if not isinstance(body, dict):
            raise BadRequest(f'{kind} in version "{version}" cannot be handled as a {kind}: json: cannot '
                             f"unmarshal {json_type_name(body)} into Go value of type {version}.{kind}")
        api_version = body.get("apiVersion")
        if api_version not in (None, "", self.info.api_version):
            raise BadRequest(f"the API version in the data ({api_version}) does not match the expected "
                             f"API version ({self.info.api_version})")
        sent_kind = body.get("kind")
        if sent_kind not in (None, "", kind):
            raise BadRequest(f"the kind in the data ({sent_kind}) does not match the expected kind ({kind})")
        decoded = decode(self.schema, body, kind, version)
        if decoded.unknown and options.field_validation == "Strict":
            raise BadRequest(f'{kind} in version "{version}" cannot be handled as a {kind}: strict decoding error: '
                             + ", ".join(decoded.unknown))
        if decoded.unknown and options.field_validation == "Warn":
            options.warnings.extend(decoded.unknown)
        obj = decoded.obj
        obj["apiVersion"] = self.info.api_version
        obj["kind"] = kind
        obj.setdefault("metadata", {})
        return obj

    def _decode_changes(self, body: JSON, options: WriteOptions, stored: JSON) -> JSON:
        """Decode only what differs from `stored`, two levels deep (e.g. status.message, not the
        unchanged conditions); the rest is taken from `stored`, in the body's key order.

        A part counts as unchanged only when it is the same JSON (`true` is not `1`): then the stored
        value, which was decoded when it was written, is taken instead of the body's."""
        rest: JSON = {}  # what is decoded: changed members, or the changed sub-members of an object
        reused: JSON = {}  # top-level key -> the stored value it is equal to, or partly equal to
        for key, value in body.items():
            old = stored.get(key, _MISSING)
            if old is _MISSING or key in _TYPE_META:
                rest[key] = value
            elif value is old:
                reused[key] = old
            elif type(value) is dict and type(old) is dict:
                changed = {sub: item for sub, item in value.items() if not same_json(item, old.get(sub, _MISSING))}
                if changed or len(value) != len(old):
                    rest[key] = changed
                reused[key] = old
            elif same_json(value, old):
                reused[key] = old
            else:
                rest[key] = value
        decoded = self.decode(rest, options)
        obj: JSON = {key: value for key, value in decoded.items() if key not in body}
        for key, value in body.items():
            if key not in reused:
                if key in decoded:
                    obj[key] = decoded[key]
            elif key not in rest:
                # metadata is a fresh dict (the pipeline edits it in place), the rest shared
                obj[key] = dict(reused[key]) if key == "metadata" else reused[key]
            else:
                changed, old, new_parts = rest[key], reused[key], decoded.get(key) or {}
                obj[key] = {sub: new_parts[sub] if sub in changed else old[sub]
                            for sub in value if sub in new_parts or sub not in changed}
        return obj

    def encoded(self, obj: JSON) -> JSON | bytes:
        """The stored bytes of `obj` if it is what this registry's last write stored (a response then
        needs no second encode), else `obj`. Call it right after the write, before any await."""
        if self._written is not None and self._written[0] is obj:
            return self._written[1]
        return obj

    # ---- reads

    def get(self, namespace: str, name: str) -> JSON:
        return self.store.get(self.key(namespace, name))

    def get_bytes(self, namespace: str, name: str) -> bytes:
        return self.store.get_bytes(self.key(namespace, name))

    # ---- create

    def create(self, namespace: str, body: Any, options: WriteOptions) -> JSON:
        obj = self.decode(body, options)
        meta: JSON = obj["metadata"]
        for system_field in _SYSTEM_FIELDS:
            meta.pop(system_field, None)
        self._bind_namespace(meta, namespace, "the namespace of the provided object does not match "
                                              "the namespace sent on the request")
        if self.info.namespaced:
            self._check_namespace_accepts(namespace, meta)
        self.strategy.default(obj)
        meta["uid"] = self.ids.uid()
        meta["creationTimestamp"] = self.clock.timestamp()
        self.field_manager.update(obj, None, options)  # as upstream: after defaulting, before the strategy
        generate = not meta.get("name") and bool(meta.get("generateName"))
        for _attempt in range(GENERATE_NAME_ATTEMPTS if generate else 1):
            if generate:
                meta["name"] = str(meta["generateName"])[:MAX_GENERATE_NAME_PREFIX] + self.ids.suffix()
            try:
                return self._create(obj, options)
            except AlreadyExists as exists:
                if not generate:
                    raise
                last = exists
        raise AlreadyExists(
            last.message + ", the server was not able to generate a unique name for the object",
            {**(last.details or {}), "retryAfterSeconds": 1},
        )

    def _create(self, obj: JSON, options: WriteOptions) -> JSON:
        meta: JSON = obj["metadata"]
        self.strategy.prepare_for_create(obj)
        raise_if_invalid(self.info.kind, str(meta.get("name") or meta.get("generateName") or ""),
                         self.strategy.validate(obj))
        options.warnings.extend(self.strategy.warnings_on_create(obj))
        self.strategy.canonicalize(obj)
        if meta.get("resourceVersion"):
            raise UnknownError("resourceVersion should not be set on objects to be created")
        key = self.key(meta.get("namespace", ""), meta["name"])
        if options.dry_run:
            if self.store.exists(key):
                raise AlreadyExists.for_object(key.resource, key.name, self._deleting_prefix(key))
            return obj
        if self.store.exists(key):
            raise AlreadyExists.for_object(key.resource, key.name, self._deleting_prefix(key))
        self._written = obj, self.store.create(key, obj)
        return obj

    def _deleting_prefix(self, key: ObjectKey) -> str:
        existing = self.store.get(key)
        return "object is being deleted: " if existing["metadata"].get("deletionTimestamp") else ""

    def _bind_namespace(self, meta: JSON, namespace: str, mismatch: str) -> None:
        if not self.info.namespaced:
            meta.pop("namespace", None)
            return
        sent = meta.get("namespace")
        if not sent:
            meta["namespace"] = namespace
        elif sent != namespace:
            raise BadRequest(mismatch)

    def _check_namespace_accepts(self, namespace: str, meta: JSON) -> None:
        """Upstream's NamespaceLifecycle admission: no new objects in missing or terminating namespaces."""
        key = ObjectKey("namespaces", "", namespace)
        if not self.store.exists(key):
            raise NotFound.for_object("namespaces", namespace)
        if b'"phase":"Terminating"' in self.store.get_bytes(key):
            raise Forbidden.for_object(
                self.info.resource, str(meta.get("name") or meta.get("generateName") or ""),
                f"unable to create new content in namespace {namespace} because it is being terminated",
            )

    # ---- update, patch

    def update(self, namespace: str, name: str, body: Any, options: WriteOptions) -> JSON:
        key = self.key(namespace, name)
        # one read serves both as the reusable decoding and as the old object (no await in between);
        # what the body resends unchanged is not parsed a second time
        stored = None
        if self.store.exists(key):
            data = self.store.get_bytes(key)
            stored = parse_sharing(data, body) if isinstance(body, dict) else orjson.loads(data)
        new = self.decode(body, options, stored)
        meta: JSON = new["metadata"]
        if meta.get("name") != name:
            raise BadRequest(f"the name of the object ({meta.get('name', '')}) does not match "
                             f"the name on the URL ({name})")
        if self.info.namespaced and meta.get("namespace") and meta["namespace"] != namespace:
            raise BadRequest(f"the namespace of the object ({meta['namespace']}) does not match "
                             f"the namespace on the request ({namespace})")
        if stored is None:
            raise NotFound.for_object(key.resource, key.name)
        return self._update(key, new, stored, options)

    def patch(self, namespace: str, name: str, patcher: Patcher, patch: Any, options: WriteOptions) -> JSON:
        """A patch computes the new object from the stored one, then runs the update pipeline."""
        current = self.get(namespace, name)
        patched = patcher(current, patch)
        new = self.decode(patched, options, current)
        meta: JSON = new["metadata"]
        if meta.get("name") != name:
            raise BadRequest(f"the name of the object ({meta.get('name', '')}) does not match "
                             f"the name on the URL ({name})")
        if not meta.get("resourceVersion"):
            meta["resourceVersion"] = current["metadata"]["resourceVersion"]
        return self._update(self.key(namespace, name), new, current, options)

    def _update(self, key: ObjectKey, new: JSON, old: JSON, options: WriteOptions) -> JSON:
        """The update pipeline. `new` may share unchanged parts with `old`: neither is mutated in place
        where they could be shared (strategies replace parts rather than edit them)."""
        namespace, name = key.namespace, key.name
        meta: JSON = new["metadata"]
        old_meta: JSON = old["metadata"]
        self._check_uid_precondition(key, meta.get("uid"), old_meta.get("uid"))
        sent_rv = meta.get("resourceVersion")
        if sent_rv and sent_rv != old_meta["resourceVersion"]:
            raise Conflict.modified(key.resource, key.name)
        if not sent_rv and not self.strategy.allow_unconditional_update():
            raise Invalid(self.info.kind, name, [
                invalid("metadata.resourceVersion", 0, "must be specified for an update")])
        meta["resourceVersion"] = old_meta["resourceVersion"]
        self._bind_namespace(meta, namespace, "the namespace of the provided object does not match "
                                              "the namespace sent on the request")
        self.strategy.default(new)
        # rest.BeforeUpdate: what a client may never change
        if "generation" in old_meta:
            meta["generation"] = old_meta["generation"]
        else:
            meta.pop("generation", None)
        self.strategy.prepare_for_update(new, old)
        if not meta.get("uid"):
            meta["uid"] = old_meta.get("uid")
        meta["creationTimestamp"] = old_meta.get("creationTimestamp")
        if old_meta.get("deletionTimestamp"):
            meta["deletionTimestamp"] = old_meta["deletionTimestamp"]
        if meta.get("deletionGracePeriodSeconds") is None and "deletionGracePeriodSeconds" in old_meta:
            meta["deletionGracePeriodSeconds"] = old_meta["deletionGracePeriodSeconds"]
        errors = validate_common_update(new, old, self.info.namespaced)
        raise_if_invalid(self.info.kind, name, errors + self.strategy.validate_update(new, old))
        options.warnings.extend(self.strategy.warnings_on_update(new, old))
        self.strategy.canonicalize(new)
        self.field_manager.update(new, old, options)
        if new == old:
            return old  # a no-op write stores nothing and keeps the resourceVersion
        if (old_meta.get("deletionTimestamp") and not old_meta.get("deletionGracePeriodSeconds")
                and not meta.get("finalizers")):
            # the last finalizer is gone from an object being deleted: the update completes the delete
            if options.dry_run:
                return new
            self.store.update(key, new, old_meta["resourceVersion"])
            self.store.delete(key)
            return new
        if options.dry_run:
            return new
        self._written = new, self.store.update(key, new, old_meta["resourceVersion"])
        return new

    def _check_uid_precondition(self, key: ObjectKey, sent: Any, stored: Any) -> None:
        if sent and sent != stored:
            raise Conflict.for_object(
                key.resource, key.name,
                f"Precondition failed: UID in precondition: {sent}, UID in object meta: {stored}",
            )

    # ---- delete

    def delete(self, namespace: str, name: str, options: DeleteOptions) -> tuple[JSON, bool]:
        """Delete (or start deleting) an object. Returns the object and whether it is gone now."""
        key = self.key(namespace, name)
        old = self.store.get(key)
        meta: JSON = old["metadata"]
        self._check_delete_preconditions(key, meta, options)
        grace = self.strategy.grace_period(old, options.grace_period_seconds)
        finalizers = bool(meta.get("finalizers"))
        if meta.get("deletionTimestamp"):
            return self._delete_pending(key, old, grace, options)
        if grace is None and not finalizers:
            if options.dry_run:
                return old, True
            return orjson.loads(self.store.delete(key, meta["resourceVersion"])), True
        new = copy_json(old)
        new_meta: JSON = new["metadata"]
        seconds = grace or 0
        new_meta["deletionTimestamp"] = rfc3339(self.clock.now() + timedelta(seconds=seconds))
        new_meta["deletionGracePeriodSeconds"] = seconds
        if new_meta.get("generation", 0) > 0:
            new_meta["generation"] += 1
        if options.dry_run:
            return new, seconds == 0 and not finalizers
        self.store.update(key, new, meta["resourceVersion"])
        if seconds == 0 and not finalizers:
            return orjson.loads(self.store.delete(key)), True
        return new, False

    def _delete_pending(self, key: ObjectKey, old: JSON, grace: int | None,
                        options: DeleteOptions) -> tuple[JSON, bool]:
        """A second delete while graceful deletion is pending: only a shorter grace period does anything."""
        meta: JSON = old["metadata"]
        current = meta.get("deletionGracePeriodSeconds")
        if grace is None or current is None or grace >= current:
            return old, False
        new = copy_json(old)
        new_meta: JSON = new["metadata"]
        now = self.clock.now()
        stamp = min(now + timedelta(seconds=grace), parse_rfc3339(meta["deletionTimestamp"]))
        new_meta["deletionTimestamp"] = rfc3339(max(stamp, now))
        new_meta["deletionGracePeriodSeconds"] = grace
        gone = grace == 0 and not meta.get("finalizers")
        if options.dry_run:
            return new, gone
        self.store.update(key, new, meta["resourceVersion"])
        if gone:
            return orjson.loads(self.store.delete(key)), True
        return new, False

    def _check_delete_preconditions(self, key: ObjectKey, meta: JSON, options: DeleteOptions) -> None:
        kind = self.info.kind
        if options.uid is not None and options.uid != meta.get("uid"):
            raise Conflict.for_object(
                kind, key.name,
                f"the UID in the precondition ({options.uid}) does not match the UID in record "
                f"({meta.get('uid')}). The object might have been deleted and then recreated",
            )
        if options.resource_version is not None and options.resource_version != meta.get("resourceVersion"):
            raise Conflict.for_object(
                kind, key.name,
                f"the ResourceVersion in the precondition ({options.resource_version}) does not match the "
                f"ResourceVersion in record ({meta.get('resourceVersion')}). The object might have been modified",
            )


