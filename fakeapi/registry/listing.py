"""Lists and watches as the registry serves them: list options decoded and validated as upstream does,
pages cut from a consistent snapshot at the resourceVersion asked for, and the spec of a watch."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

import orjson

from fakeapi.machinery import fielderrors as fe
from fakeapi.machinery.errors import BadRequest, Expired, Invalid, UnknownError
from fakeapi.machinery.labels import LabelSelector, go_quote
from fakeapi.machinery.selectors import FieldLabels, FieldSelector, parse_field_selector, parse_label_selector
from fakeapi.machinery.types import JSON, ObjectKey
from fakeapi.registry.generic import Registry
from fakeapi.registry.pagination import (
    LATEST,
    LIST_TOO_OLD,
    ContinueExpired,
    Page,
    cut_page,
    decode_continue,
    relative_key,
)
from fakeapi.storage.store import Store
from fakeapi.storage.watch import WatchHub, WatchSpec, default_timeout, object_filter, too_large_resource_version

EXACT: Final = "Exact"
NOT_OLDER_THAN: Final = "NotOlderThan"
_INT64: Final = re.compile(r"[+-]?[0-9]+")
_UINT64: Final = re.compile(r"[0-9]+")
_INT64_MAX: Final = (1 << 63) - 1
_SCOPE_FIELDS: Final = ("metadata.name", "metadata.namespace")


@dataclass(frozen=True)
class ListOptions:
    """The query of a list, watch or deletecollection, decoded and validated as upstream does."""

    labels: LabelSelector | None  # None: everything
    fields: FieldSelector | None
    watch: bool
    allow_bookmarks: bool
    resource_version: str
    match: str  # resourceVersionMatch
    timeout_seconds: int | None
    limit: int
    continue_token: str
    send_initial_events: bool | None

    def name(self) -> str | None:
        return self.fields.requires_exact_match("metadata.name") if self.fields is not None else None

    def matches(self) -> Callable[[JSON], bool] | None:
        return object_filter(self.labels, self.fields)


def parse_list_options(query: Mapping[str, str], field_labels: FieldLabels,
                       force_watch: bool = False) -> ListOptions:
    """Decode (400 on malformed values), validate (422 `ListOptions.meta.k8s.io "" is invalid`)."""
    labels = parse_label_selector(query.get("labelSelector", ""))
    fields = parse_field_selector(query.get("fieldSelector", ""), field_labels)
    options = ListOptions(
        labels=None if labels.empty() else labels,
        fields=None if fields.empty() else fields,
        watch=force_watch or _bool(query.get("watch")),
        allow_bookmarks=_bool(query.get("allowWatchBookmarks")),
        resource_version=query.get("resourceVersion", ""),
        match=query.get("resourceVersionMatch", ""),
        timeout_seconds=_int64(query["timeoutSeconds"]) if "timeoutSeconds" in query else None,
        limit=_int64(query["limit"]) if "limit" in query else 0,
        continue_token=query.get("continue", ""),
        send_initial_events=_bool(query["sendInitialEvents"]) if "sendInitialEvents" in query else None,
    )
    errors = _validate(options)
    if errors:
        invalid = Invalid("ListOptions", "", errors, group="meta.k8s.io")
        if invalid.details is not None:
            invalid.details.pop("name", None)  # an empty name is omitted from StatusDetails
        raise invalid
    return options


def _bool(value: str | None) -> bool:
    """Upstream's query bool: absent, "0" and "false" (any case) are false; anything else is true."""
    return value is not None and value != "0" and value.lower() != "false"


def _int64(text: str) -> int:
    if not _INT64.fullmatch(text):
        raise BadRequest(f"strconv.ParseInt: parsing {go_quote(text)}: invalid syntax")
    value = int(text)
    if not -_INT64_MAX - 1 <= value <= _INT64_MAX:
        raise BadRequest(f"strconv.ParseInt: parsing {go_quote(text)}: value out of range")
    return value


def _validate(options: ListOptions) -> list[fe.FieldError]:
    """metainternalversion validation.ValidateListOptions (WatchList enabled, as in 1.32)."""
    errors: list[fe.FieldError] = []
    match = options.match

    def forbid_match(detail: str) -> None:
        errors.append(fe.forbidden("resourceVersionMatch", detail))

    if options.watch:
        if options.send_initial_events is not None and match != NOT_OLDER_THAN:
            forbid_match("sendInitialEvents requires setting resourceVersionMatch to NotOlderThan")
        if match:
            if options.send_initial_events is None:
                forbid_match("resourceVersionMatch is forbidden for watch "
                             "unless sendInitialEvents is provided")
            if match != NOT_OLDER_THAN:
                errors.append(fe.not_supported("resourceVersionMatch", match, [NOT_OLDER_THAN]))
            if options.continue_token:
                forbid_match("resourceVersionMatch is forbidden when continue is provided")
        return errors
    if match:
        if not options.resource_version:
            forbid_match("resourceVersionMatch is forbidden unless resourceVersion is provided")
        if options.continue_token:
            forbid_match("resourceVersionMatch is forbidden when continue is provided")
        if match not in (EXACT, NOT_OLDER_THAN):
            errors.append(fe.not_supported("resourceVersionMatch", match, [EXACT, NOT_OLDER_THAN, ""]))
        if match == EXACT and options.resource_version == "0":
            forbid_match('resourceVersionMatch "exact" is forbidden for resourceVersion "0"')
    if options.send_initial_events is not None:
        errors.append(fe.forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list"))
    return errors


def parse_resource_version(text: str) -> int:
    """A resourceVersion query value as the storage versioner parses it; "" and "0" are 0.

    Raises the storage layer's plain error, which upstream answers with a reason-less 500.
    """
    if text in ("", "0"):
        return 0
    problem = "" if _UINT64.fullmatch(text) and int(text) < 1 << 64 else (
        "value out of range" if _UINT64.fullmatch(text) else "invalid syntax")
    if problem:
        detail = f"strconv.ParseUint: parsing {go_quote(text)}: {problem}"
        raise UnknownError(str(fe.invalid("resourceVersion", text, detail)))
    return int(text)


# ---- watch


def watch_spec(registry: Registry, namespace: str | None, name: str | None,
                options: ListOptions) -> WatchSpec:
    fields = options.fields
    if namespace is None and fields is not None and registry.info.namespaced:
        namespace = fields.requires_exact_match("metadata.namespace")
    name = name or options.name()
    # name and namespace never change, so a selector on nothing else needs no object parsed
    scope_only = options.labels is None and (fields is None or all(
        op == "=" and field in _SCOPE_FIELDS for field, op, _value in fields.requirements()))
    rv = parse_resource_version(options.resource_version)
    timeout = options.timeout_seconds or default_timeout()
    return WatchSpec(
        resource=registry.storage_resource,
        kind=registry.info.kind,
        api_version=registry.info.api_version,
        namespace=namespace,
        name=name,
        matches=None if scope_only else options.matches(),
        resource_version=rv or None,
        send_initial_events=options.send_initial_events,
        allow_bookmarks=options.allow_bookmarks,
        timeout=float(timeout),
        present=registry.present_bytes if registry.conversion is not None else None,
    )


# ---- list


async def list_page(hub: WatchHub, registry: Registry, namespace: str | None, options: ListOptions) -> Page:
    """The page a list answers with, at the resourceVersion the options ask for.

    Requests upstream serves from etcd (continue, a limit with a version other than "0", Exact) never
    wait; the others are served as the watch cache does, which waits briefly for a future version.
    """
    store = registry.store
    text = options.resource_version
    limit = options.limit
    from_storage = bool(options.continue_token) or (limit > 0 and text != "0") or options.match == EXACT
    try:
        requested = parse_resource_version(text)
    except UnknownError as error:
        if from_storage:
            raise BadRequest(f"invalid resource version: {error.message}") from None
        raise
    matches = _bytes_filter(options.matches())
    if options.continue_token:
        token = decode_continue(options.continue_token)
        if text not in ("", "0"):
            raise BadRequest("specifying resource version is not allowed when using continue")
        at = store.resource_version if token.resource_version == LATEST else token.resource_version
        if at > store.resource_version:
            raise too_large_resource_version(at, store.resource_version, retry_after=0)
        try:
            entries, data_of = _entries_at(store, registry.storage_resource, namespace, at)
        except Expired:
            raise ContinueExpired(token.start) from None
        return cut_page(entries, _presented(registry, data_of), at, limit, token.start, matches)
    if text == "0":
        limit = 0  # the watch cache serves resourceVersion=0 whole, whatever the limit (1.32)
    elif not text:
        await store.consistent_read()  # the latest: every write acknowledged by any server sharing the store
    at = store.resource_version
    if requested and (options.match == EXACT or (not options.match and limit > 0)):
        if requested > at:
            raise too_large_resource_version(requested, at, retry_after=0)
        at = requested
    elif requested > at:
        if from_storage:
            raise too_large_resource_version(requested, at, retry_after=0)
        if not await hub.wait_for(requested):
            raise too_large_resource_version(requested, store.resource_version)
        at = store.resource_version
    if at == store.resource_version and limit <= 0 and matches is None:
        return Page(registry.list_all(namespace), at, "", None)  # the fast path
    try:
        entries, data_of = _entries_at(store, registry.storage_resource, namespace, at)
    except Expired:
        raise Expired(LIST_TOO_OLD) from None
    return cut_page(entries, _presented(registry, data_of), at, limit, "", matches)


def _presented(registry: Registry, data_of: Callable[[ObjectKey], bytes]) -> Callable[[ObjectKey], bytes]:
    """How to read one listed object as the resource serves it (another kind's objects are converted)."""
    if registry.conversion is None:
        return data_of
    return lambda key: registry.present_bytes(data_of(key))


def _entries_at(store: Store, resource: str, namespace: str | None, resource_version: int
                ) -> tuple[Sequence[tuple[str, ObjectKey]], Callable[[ObjectKey], bytes]]:
    """(relative key, key) of every object at `resource_version` in key order, and how to read one."""
    if resource_version >= store.resource_version:
        return store.keys_in_order(resource, namespace), store.get_bytes
    snapshot = store.objects_at(resource, namespace, resource_version)
    entries = sorted(((relative_key(key.namespace, key.name, namespace is None), key) for key in snapshot),
                     key=lambda entry: entry[0])
    return entries, snapshot.__getitem__


def _bytes_filter(matches: Callable[[JSON], bool] | None) -> Callable[[bytes], bool] | None:
    if matches is None:
        return None
    return lambda data: matches(orjson.loads(data))


def list_body(list_kind: str, api_version: str, page: Page) -> bytes:
    """A `<Kind>List` built around the stored bytes, without decoding them."""
    meta: JSON = {"resourceVersion": str(page.resource_version)}
    if page.continue_token:
        meta["continue"] = page.continue_token
    if page.remaining is not None:
        meta["remainingItemCount"] = page.remaining
    head = b'{"kind":"' + list_kind.encode() + b'","apiVersion":"' + api_version.encode() + b'","metadata":' \
        + orjson.dumps(meta)
    return head + b',"items":[' + b",".join(page.items) + b"]}"


