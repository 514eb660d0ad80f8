"""API discovery: /, /api, /apis, /apis/{group} and each group version, aggregated (v2, v2beta1) or legacy,
generated from the ResourceInfo of what the server serves.

The format is chosen as upstream's discovery wrapper does: the first Accept media range the server can
serve decides. A range asking for `as=APIGroupDiscoveryList;g=apidiscovery.k8s.io;v=v2|v2beta1` gets
the aggregated document, with that Content-Type (kubectl picks the parser from it) and upstream's
ETag / `Vary: Accept` / `Cache-Control: public` caching headers; a plain range gets the legacy
APIVersions, APIGroupList or APIResourceList.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterable
from typing import NamedTuple

import orjson
from aiohttp import web

from fakeapi.http.accept import parse_accept
from fakeapi.http.health import health_paths
from fakeapi.http.keys import api_key
from fakeapi.http.pretty import indented
from fakeapi.http.served import served_resources
from fakeapi.kinds.kind import ResourceInfo, SubresourceInfo
from fakeapi.machinery.errors import NotAcceptable, NotFound
from fakeapi.machinery.types import JSON
from fakeapi.machinery.versions import version_priority

AGGREGATED_GROUP = "apidiscovery.k8s.io"
AGGREGATED_KIND = "APIGroupDiscoveryList"
AGGREGATED_VERSIONS = ("v2", "v2beta1")
JSON_TYPE = "application/json"
YAML_TYPE = "application/yaml"
# what this server can write; upstream adds protobuf, which fakeapi never answers in
SERVED_TYPES = (JSON_TYPE, YAML_TYPE)


class Negotiated(NamedTuple):
    media_type: str  # application/json or application/yaml
    aggregated: str | None  # "v2" / "v2beta1" when the aggregated document was asked for

    @property
    def content_type(self) -> str:
        if self.aggregated is None:
            return self.media_type
        return f"{self.media_type};g={AGGREGATED_GROUP};v={self.aggregated};as={AGGREGATED_KIND}"


def negotiate(accept: str, aggregation: bool = True) -> Negotiated:
    """Upstream's NegotiateMediaTypeOptions with the discovery endpoint restrictions (`aggregation`: /api
    and /apis), or with the default ones that allow no conversion at all (/api/v1)."""
    if not accept.strip():
        return Negotiated(JSON_TYPE, None)
    for media in parse_accept(accept):
        if media.type == "application" and media.subtype in ("json", "yaml"):
            media_type = f"application/{media.subtype}"
        elif media.subtype == "*" and media.type in ("application", "*"):
            media_type = JSON_TYPE
        else:
            continue
        params = media.params
        stream = params.get("stream")
        if params.get("sv") or (stream and stream != "watch"):
            continue
        if {"as", "g", "v"} & params.keys():
            if (
                aggregation
                and params.get("g") == AGGREGATED_GROUP
                and params.get("v") in AGGREGATED_VERSIONS
                and params.get("as") == AGGREGATED_KIND
            ):
                return Negotiated(media_type, params["v"])
            continue  # a conversion discovery cannot do: try the next range
        return Negotiated(media_type, None)
    raise NotAcceptable("only the following media types are accepted: " + ", ".join(SERVED_TYPES))


def storage_version_hash(group: str, version: str, kind: str) -> str:
    """Upstream's discovery.StorageVersionHash: 8 bytes of sha256 over `group/version/kind`, base64."""
    digest = hashlib.sha256(f"{group}/{version}/{kind}".encode()).digest()
    return base64.b64encode(digest[:8]).decode()


def _kind(info: ResourceInfo, kind: str) -> JSON:
    return {"group": info.group, "version": info.version, "kind": kind}


def _sub_kind(info: ResourceInfo, sub: SubresourceInfo) -> JSON:
    if sub.group is None:
        return _kind(info, sub.kind)
    return {"group": sub.group, "version": sub.version, "kind": sub.kind}


def _by_name(infos: Iterable[ResourceInfo]) -> list[ResourceInfo]:
    return sorted(infos, key=lambda info: info.resource)


def group_versions(infos: Iterable[ResourceInfo]) -> dict[str, list[str]]:
    """The named groups served (not the core group) and their versions, in order."""
    groups: dict[str, list[str]] = {}
    for info in sorted(infos, key=lambda info: info.group):
        if info.group:
            versions = groups.setdefault(info.group, [])
            if info.version not in versions:
                versions.append(info.version)
    for versions in groups.values():
        versions.sort(key=version_priority)  # the preferred version first
    return groups


def _in(infos: Iterable[ResourceInfo], group: str, version: str) -> list[ResourceInfo]:
    return [info for info in infos if info.group == group and info.version == version]


# ---- aggregated (apidiscovery.k8s.io)


def resource_discovery(info: ResourceInfo) -> JSON:
    """One APIResourceDiscovery entry."""
    entry: JSON = {
        "resource": info.resource,
        "responseKind": _kind(info, info.kind),
        "scope": "Namespaced" if info.namespaced else "Cluster",
        "singularResource": info.singular,
        "verbs": sorted(info.verbs),
    }
    if info.short_names:
        entry["shortNames"] = list(info.short_names)
    if info.categories:
        entry["categories"] = list(info.categories)
    if info.subresources:
        entry["subresources"] = [
            {"subresource": sub.name, "responseKind": _sub_kind(info, sub), "verbs": sorted(sub.verbs)}
            for sub in sorted(info.subresources, key=lambda sub: sub.name)
        ]
    return entry


def group_discovery(group: str, versions: list[str], infos: Iterable[ResourceInfo]) -> JSON:
    """One APIGroupDiscovery (the core group's metadata.name is empty)."""
    metadata: JSON = {"name": group, "creationTimestamp": None} if group else {"creationTimestamp": None}
    return {
        "metadata": metadata,
        "versions": [
            {
                "version": version,
                "resources": [resource_discovery(info) for info in _by_name(_in(infos, group, version))],
                "freshness": "Current",
            }
            for version in versions
        ],
    }


def core_group_discovery(infos: Iterable[ResourceInfo]) -> JSON:
    return group_discovery("", ["v1"], infos)


def discovery_list(version: str, items: list[JSON]) -> JSON:
    return {
        "kind": AGGREGATED_KIND,
        "apiVersion": f"{AGGREGATED_GROUP}/{version}",
        "metadata": {},
        "items": items,
    }


def discovery_etag(items: list[JSON]) -> str:
    """Upstream hashes the version-independent document: sha512, upper-case hex."""
    return hashlib.sha512(orjson.dumps({"metadata": {}, "items": items})).hexdigest().upper()


# ---- legacy (meta/v1)


def api_versions(server_address: str) -> JSON:
    return {
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": server_address}],
    }


def group_entry(group: str, versions: list[str]) -> JSON:
    """One APIGroup: its versions, the first preferred."""
    listed = [{"groupVersion": f"{group}/{version}", "version": version} for version in versions]
    return {"name": group, "versions": listed, "preferredVersion": listed[0]}


def api_group_list(infos: Iterable[ResourceInfo]) -> JSON:
    """The named groups (/apis never lists the core group)."""
    groups = [group_entry(group, versions) for group, versions in group_versions(infos).items()]
    return {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}


def resource_list(infos: Iterable[ResourceInfo], group: str = "", version: str = "v1") -> JSON:
    """An APIResourceList: resources and `resource/subresource` entries, sorted by name."""
    resources: list[JSON] = []
    for info in _in(infos, group, version):
        entry: JSON = {
            "name": info.resource,
            "singularName": info.singular,
            "namespaced": info.namespaced,
            "kind": info.kind,
            "verbs": sorted(info.verbs),
        }
        if info.short_names:
            entry["shortNames"] = list(info.short_names)
        if info.categories:
            entry["categories"] = list(info.categories)
        if "get" in info.verbs:  # stored resources only
            entry["storageVersionHash"] = storage_version_hash(group, version, info.kind)
        resources.append(entry)
        resources.extend(_subresource_entry(info, sub) for sub in info.subresources)
    resources.sort(key=lambda entry: entry["name"])
    if not group:
        return {"kind": "APIResourceList", "groupVersion": version, "resources": resources}
    return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": f"{group}/{version}",
            "resources": resources}


def _subresource_entry(info: ResourceInfo, sub: SubresourceInfo) -> JSON:
    entry: JSON = {"name": f"{info.resource}/{sub.name}", "singularName": "", "namespaced": info.namespaced}
    if sub.group is not None:  # kubectl drain looks for pods/eviction with its group and version
        entry["group"], entry["version"] = sub.group, sub.version
    entry["kind"], entry["verbs"] = sub.kind, sorted(sub.verbs)
    return entry


def root_path_list(infos: Iterable[ResourceInfo], health_paths: Iterable[str]) -> JSON:
    """What GET / lists: every path prefix the server serves, sorted."""
    paths = ["/.well-known/openid-configuration", "/api", "/api/v1", "/apis", "/apis/", "/openapi/v2", "/openapi/v3",
             "/openid/v1/jwks", "/version", *health_paths]
    for group, versions in group_versions(infos).items():
        paths.append(f"/apis/{group}")
        paths.extend(f"/apis/{group}/{version}" for version in versions)
    return {"paths": sorted(paths)}


# ---- HTTP


def _infos(request: web.Request) -> list[ResourceInfo]:
    return served_resources(request.app)


def _encode(body: JSON, media_type: str) -> bytes:
    if media_type == YAML_TYPE:
        import yaml  # on first use: most clients ask for JSON

        return yaml.safe_dump(body, sort_keys=False).encode()
    return orjson.dumps(body)


def _answer(request: web.Request, legacy: JSON, aggregated_items: list[JSON]) -> web.Response:
    negotiated = negotiate(request.headers.get("Accept", ""))
    if negotiated.aggregated is None:
        return web.Response(
            body=_encode(legacy, negotiated.media_type), headers={"Content-Type": negotiated.content_type}
        )
    etag = f'"{discovery_etag(aggregated_items)}"'
    headers = {"ETag": etag, "Vary": "Accept", "Cache-Control": "public"}
    if request.headers.get("If-None-Match") == etag:
        return web.Response(status=304, headers=headers)
    body = discovery_list(negotiated.aggregated, aggregated_items)
    headers["Content-Type"] = negotiated.content_type
    return web.Response(body=_encode(body, negotiated.media_type), headers=headers)


def _plain(request: web.Request, body: JSON) -> web.Response:
    """A document upstream has no aggregated form of: JSON or YAML only."""
    media_type = negotiate(request.headers.get("Accept", ""), aggregation=False).media_type
    return web.Response(body=_encode(body, media_type), headers={"Content-Type": media_type})


async def root_paths(request: web.Request) -> web.Response:
    """GET / and /index.html: always indented JSON, whatever the Accept (upstream's WriteRawJSON)."""
    body = root_path_list(_infos(request), health_paths(request.app[api_key].store.shared))
    return web.Response(body=indented(body), headers={"Content-Type": JSON_TYPE})


async def core_api(request: web.Request) -> web.Response:
    """GET /api"""
    return _answer(request, api_versions(request.host), [core_group_discovery(_infos(request))])


async def api_groups(request: web.Request) -> web.Response:
    """GET /apis"""
    infos = _infos(request)
    items = [group_discovery(group, versions, infos) for group, versions in group_versions(infos).items()]
    return _answer(request, api_group_list(infos), items)


async def api_group(request: web.Request) -> web.Response:
    """GET /apis/{group}"""
    group = request.match_info["group"]
    versions = group_versions(_infos(request)).get(group)
    if versions is None:
        raise NotFound.path()
    return _plain(request, {"kind": "APIGroup", "apiVersion": "v1", **group_entry(group, versions)})


async def group_version_resources(request: web.Request) -> web.Response:
    """GET /api/v1 and /apis/{group}/{version}: always the legacy APIResourceList (upstream has no
    aggregated form of it)."""
    group, version = request.match_info["group"], request.match_info["version"]
    infos = _infos(request)
    if not _in(infos, group, version) and (group or version != "v1"):
        raise NotFound.path()
    return _plain(request, resource_list(infos, group, version))
