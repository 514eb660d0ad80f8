"""Serving the OpenAPI documents of what the server serves as kube-openapi's handlers do (handler3 for v3,
handler for v2).

* `/openapi/v3` lists each group version with a `serverRelativeURL` whose `hash` is the document's ETag
  (sha512, upper-case hex, of what the document is built from), so a changed document gets a new URL;
* `/openapi/v3/api/v1?hash=H`: the document with `Cache-Control: public, immutable` and an `Expires` a year
  out; a stale hash is redirected (301) to the current URL; without a hash, no cache headers;
* `/openapi/v2`: the swagger document in JSON, or (for kubectl) a stand-in for its protobuf form, see
  `V2_PROTOBUF`;
* every answer carries an `Etag` and honours `If-None-Match` / `If-Modified-Since` (304); an Accept no
  form satisfies gets 406 with an empty body.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from email.utils import format_datetime, parsedate_to_datetime
from pathlib import Path

import orjson
from aiohttp import web

from fakeapi.http.accept import parse_accept
from fakeapi.http.guard import GuardedRouter
from fakeapi.http.keys import api_key
from fakeapi.http.served import served_resources
from fakeapi.kinds.kind import ResourceInfo
from fakeapi.machinery.schema.definitions import KUBERNETES_1_32, Definitions
from fakeapi.machinery.types import JSON
from fakeapi.openapi import V2_DOCUMENT, v3_document, v3_group_version
from fakeapi.openapi.build import Memo, PathsMemo, build_documents

JSON_TYPE = "application/json"
# kube-openapi's protobuf forms of /openapi/v2: both are answered with the second as Content-Type
V2_PROTOBUF_TYPES = ("com.github.proto-openapi.spec.v2@v1.0+protobuf", "com.github.proto-openapi.spec.v2.v1.0+protobuf")
V2_PROTOBUF_TYPE = "application/" + V2_PROTOBUF_TYPES[1]
# The protobuf form of /openapi/v2 is a gnostic openapi_v2.Document. fakeapi answers one that holds only
# `swagger: "2.0"` (field 1) rather than the whole document encoded. Its one reader is kubectl, which asks
# for it only to validate, on the client, a manifest whose kind /openapi/v3 does not list: with no
# definitions there it skips validation, and the apply or create then fails with upstream's
# `no matches for kind "Deployment" in version "apps/v1"`, as on a cluster without that kind. The kinds
# fakeapi serves are in /openapi/v3, which makes kubectl validate them on the server instead; only
# `kubectl explain --output=plaintext-openapiv2` would read more of this document.
V2_PROTOBUF = b"\x0a\x03" + b"2.0"
_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


@dataclass(frozen=True)
class Document:
    body: bytes
    etag: str  # unquoted
    modified: datetime

    @classmethod
    def of(cls, body: bytes, modified: datetime) -> Document:
        return cls(body, hashlib.sha512(body).hexdigest().upper(), modified.replace(microsecond=0))


class OpenApiDocuments:
    """The documents of one server, built from what it serves when first asked for, and built again
    after the served kinds change.

    A v3 document's ETag is the hash of what it is built from (its resources and the definitions they
    publish, with the Kubernetes version), not of its bytes: `/openapi/v3` names every group version's
    document by it without building any, and a document is built when first asked for. The v2 document
    is built from each resource's paths and definitions, kept while the resource stays as it was.
    """

    def __init__(self, served: Callable[[], list[ResourceInfo]], definitions: Definitions,
                 published: Callable[[str], JSON | None] = lambda name: None) -> None:
        self._served = served
        self._definitions = definitions
        self._published = published
        self._documents: dict[Path, Document] = {}
        # what each v3 document was last built (or named) from, and its ETag and time then
        self._named: dict[Path, tuple[bytes, str, datetime]] = {}
        self._bodies: dict[Path, tuple[bytes, bytes]] = {}  # a v3 document's source and bytes
        self._memo: Memo = {}  # definitions as published, built once
        self._paths_memo: PathsMemo = {}  # each resource's v2 paths, built once
        self._index: Document | None = None

    def forget(self) -> None:
        """What is served changed: build the documents anew when next asked for (those whose source
        did not change are kept)."""
        self._documents.clear()
        self._index = None
        served = set(self._served())
        for info in [info for info in self._paths_memo if info not in served]:
            del self._paths_memo[info]

    def _fixed(self, name: str) -> bool:
        """Whether a definition is upstream's (never changes) rather than one a served kind publishes."""
        return self._published(name) is None

    def _lookup(self, name: str) -> JSON:
        """A definition: one a served kind publishes (a custom resource's), else upstream's."""
        published = self._published(name)
        return published if published is not None else self._definitions.raw(name)

    @property
    def group_versions(self) -> list[str]:
        return sorted({v3_group_version(info.group, info.version) for info in self._served()})

    def get(self, relative: Path, now: datetime) -> Document:
        document = self._documents.get(relative)
        if document is not None:
            return document
        if relative == V2_DOCUMENT:
            built = build_documents(self._served(), self._lookup, self._definitions.kubernetes_version,
                                    only=relative, memo=self._memo, fixed=self._fixed,
                                    paths_memo=self._paths_memo)
            document = Document.of(orjson.dumps(built[relative]), now)
        else:
            source, etag, modified = self._name(relative, now)
            kept = self._bodies.get(relative)
            if kept is not None and kept[0] == source:
                body = kept[1]
            else:
                built = build_documents(self._served(), self._lookup, self._definitions.kubernetes_version,
                                        only=relative, memo=self._memo, fixed=self._fixed)
                body = orjson.dumps(built[relative])
                self._bodies[relative] = (source, body)
            document = Document(body, etag, modified)
        self._documents[relative] = document
        return document

    def _name(self, relative: Path, now: datetime) -> tuple[bytes, str, datetime]:
        """(source, ETag, last modified) of a v3 document: a new ETag when its source changed."""
        source = self._source(relative)
        named = self._named.get(relative)
        if named is None or named[0] != source:
            digest = hashlib.sha512(self._definitions.kubernetes_version.encode() + b"\0" + source)
            named = (source, digest.hexdigest().upper(), now.replace(microsecond=0))
            self._named[relative] = named
        return named

    def _source(self, relative: Path) -> bytes:
        """What a v3 document is built from: its resources and the definitions they publish."""
        infos = [info for info in self._served() if v3_document(v3_group_version(info.group, info.version)) == relative]
        return orjson.dumps([[repr(info), self._published(info.definition)] for info in infos])

    def v3_discovery(self, now: datetime) -> Document:
        if self._index is None:
            self._index = self._v3_discovery(now)
        return self._index

    def _v3_discovery(self, now: datetime) -> Document:
        named = {group_version: self._name(v3_document(group_version), now) for group_version in self.group_versions}
        body = orjson.dumps({"paths": {
            group_version: {"serverRelativeURL": _server_relative_url(group_version, etag)}
            for group_version, (_source, etag, _modified) in named.items()}})
        return Document.of(body, max(modified for _source, _etag, modified in named.values()))


openapi_key = web.AppKey("openapi", OpenApiDocuments)


def served_documents(app: web.Application) -> dict[Path, JSON]:
    """Every document the server serves now, by its path under the committed documents' directory."""
    return build_documents(served_resources(app), KUBERNETES_1_32.raw, KUBERNETES_1_32.kubernetes_version)


def _server_relative_url(group_version: str, etag: str) -> str:
    return f"/openapi/v3/{group_version}?hash={etag}"


def _now(request: web.Request) -> datetime:
    return request.app[api_key].clock.now()


def go_rfc1123(when: datetime) -> str:
    """Go's time.RFC1123 layout for a UTC time, independent of the process locale."""
    return (
        f"{_DAYS[when.weekday()]}, {when.day:02d} {_MONTHS[when.month - 1]} {when.year} {when:%H:%M:%S} UTC"
    )


def _not_modified(request: web.Request, document: Document) -> bool:
    """net/http's checkPreconditions for GET: If-None-Match wins; else If-Modified-Since."""
    none_match = request.headers.get("If-None-Match")
    if none_match is not None:
        tags = {tag.strip().removeprefix("W/") for tag in none_match.split(",")}
        return "*" in tags or f'"{document.etag}"' in tags
    since = request.headers.get("If-Modified-Since")
    if since:
        try:
            return document.modified <= parsedate_to_datetime(since)
        except (TypeError, ValueError):
            return False
    return False


def _serve(request: web.Request, document: Document, headers: dict[str, str],
           body: bytes | None = None, content_type: str = JSON_TYPE) -> web.Response:
    """http.ServeContent: Last-Modified, and 304 when the client's copy is current. `body` is another form
    of the document (its ETag stays the JSON's, as kube-openapi's does)."""
    headers["Etag"] = f'"{document.etag}"'
    if _not_modified(request, document):
        return web.Response(status=304, headers=headers)
    headers["Last-Modified"] = format_datetime(document.modified, usegmt=True)
    headers["Content-Type"] = content_type
    return web.Response(body=document.body if body is None else body, headers=headers)


def _accepts_json(accept: str) -> bool:
    """kube-openapi serves the first format the best-ranked clauses name. fakeapi has JSON only (upstream
    also has protobuf), so a clause that JSON satisfies anywhere in the header will do."""
    return any(
        media.type in ("application", "*") and media.subtype in ("json", "*")
        for media in parse_accept(accept or "*/*")
    )


def _redirect(location: str, headers: dict[str, str]) -> web.Response:
    """net/http's Redirect for a GET: the Location plus a one-link HTML body."""
    return web.Response(
        status=301,
        headers={**headers, "Location": location},
        text=f'<a href="{location}">Moved Permanently</a>.\n\n',
        content_type="text/html",
    )


def _a_year_after(when: datetime) -> datetime:
    """Go's AddDate(1, 0, 0): the same day next year, 29 February becoming 1 March."""
    try:
        return when.replace(year=when.year + 1)
    except ValueError:
        return when.replace(year=when.year + 1, month=3, day=1)


async def openapi_v3_root(request: web.Request) -> web.Response:
    """GET /openapi/v3"""
    return _serve(request, request.app[openapi_key].v3_discovery(_now(request)), {})


async def openapi_v3_group_version(request: web.Request) -> web.Response:
    """GET /openapi/v3/{group version}"""
    headers = {"Vary": "Accept"}
    if not _accepts_json(request.headers.get("Accept", "")):
        return web.Response(status=406, headers=headers)
    group_version = request.match_info["group_version"]
    documents = request.app[openapi_key]
    if group_version not in documents.group_versions:
        return web.Response(headers=headers)  # upstream writes nothing for an unknown group version
    document = documents.get(v3_document(group_version), _now(request))
    wanted = request.query.get("hash", "")
    if wanted:
        if wanted != document.etag:
            return _redirect(_server_relative_url(group_version, document.etag), headers)
        headers["Cache-Control"] = "public, immutable"
        headers["Expires"] = go_rfc1123(_a_year_after(_now(request)))
    return _serve(request, document, headers)


def _v2_form(accept: str) -> str | None:
    """kube-openapi's choice: the first clause (best first) that JSON or a protobuf form matches, JSON
    before protobuf for a wildcard; None when nothing matches."""
    for media in parse_accept(accept or "*/*"):
        if media.type not in ("application", "*"):
            continue
        if media.subtype in ("json", "*"):
            return JSON_TYPE
        if media.subtype in V2_PROTOBUF_TYPES:
            return V2_PROTOBUF_TYPE
    return None


async def openapi_v2(request: web.Request) -> web.Response:
    """GET /openapi/v2"""
    headers = {"Vary": "Accept"}
    form = _v2_form(request.headers.get("Accept", ""))
    if form is None:
        return web.Response(status=406, headers=headers)
    document = request.app[openapi_key].get(V2_DOCUMENT, _now(request))
    if form == V2_PROTOBUF_TYPE:
        return _serve(request, document, headers, V2_PROTOBUF, V2_PROTOBUF_TYPE)
    return _serve(request, document, headers)


def setup_openapi_routes(app: web.Application, router: GuardedRouter) -> None:
    kinds = app[api_key].kinds
    documents = app[openapi_key] = OpenApiDocuments(lambda: served_resources(app), KUBERNETES_1_32, kinds.published)
    app[api_key].kinds.listen(documents.forget)
    # kube-openapi's handlers write the documents as they are: no pretty printing
    router.add_get("/openapi/v2", openapi_v2, negotiated=False)
    router.add_get("/openapi/v3", openapi_v3_root, negotiated=False)
    router.add_get("/openapi/v3/{group_version:.+}", openapi_v3_group_version, negotiated=False)
