"""aiohttp resources that match paths in code rather than by a pattern.

`ApiPaths` serves every path under a group version (`/api/v1/...`, `/apis/{group}/{version}/...`): it reads
the path's segments once, as upstream's RequestInfoFactory does, and picks the handler by the path's shape
(collection, object, subresource, legacy watch) and the method. Handlers find `group`, `version`,
`namespace` (namespaced paths only), `resource`, `name` and `subresource` in `match_info`.

`Unmatched` is tried last and takes every path no route serves, so that it too gets a Status.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from aiohttp import web
from aiohttp.typedefs import Handler
from yarl import URL

if TYPE_CHECKING:
    from aiohttp.web_urldispatcher import _InfoDict

CORE_PREFIX = "/api/v1"
GROUPS_PREFIX = "/apis"
# `namespaces/{name}/{x}` is a namespace's subresource, not a resource in the namespace, for these x
_NAMESPACE_SUBRESOURCES = frozenset({"status", "finalize"})

Methods = Mapping[str, Handler]
ANY_METHOD = "*"  # a Methods key: the handler of every method


@dataclass(frozen=True)
class ApiHandlers:
    """The handlers of the API paths, by shape and method (GET also serves HEAD)."""

    group: Handler  # GET /apis/{group}: the APIGroup
    resources: Handler  # GET /api/v1, /apis/{group}/{version}: the APIResourceList
    collection: Methods
    object: Methods
    subresource: Methods  # subresources written like their object (status, resize...)
    watch_collection: Handler  # GET .../watch/{resource}: the legacy watch paths
    watch_object: Handler
    # subresources with handlers of their own (pods/binding, pods/log), by (group, resource, subresource)
    special_subresources: Mapping[tuple[str, str, str], Methods] = field(default_factory=dict)
    # whether `subresource` serves a subresource, by (group, version, resource, subresource) (kinds come and
    # go); any other is 404 whatever the method, as upstream answers a path nothing serves
    serves_subresource: Callable[[str, str, str, str], bool] | None = None
    not_found: Handler | None = None
    # create-only resources that are not stored (bindings, selfsubjectaccessreviews...), by (group, resource)
    create_only: Mapping[tuple[str, str], CreateOnly] = field(default_factory=dict)


class CreateOnly(NamedTuple):
    """A create-only resource's handler, served under its scope's path only."""

    namespaced: bool
    handler: Handler


class _CodedResource(web.AbstractResource):
    """A resource under one fixed path (aiohttp's index key), never mounted under a prefix."""

    def __init__(self, path: str) -> None:
        super().__init__()
        self._path = path
        self._routes: dict[object, web.ResourceRoute] = {}

    @property
    def canonical(self) -> str:
        return self._path  # aiohttp tries this resource for every path under it

    def url_for(self, **parts: str) -> URL:
        return URL.build(path=self._path)

    def add_prefix(self, prefix: str) -> None:
        raise NotImplementedError(f"{type(self).__name__} is not mounted under a prefix")

    def get_info(self) -> _InfoDict:
        return {"prefix": self._path}

    def raw_match(self, path: str) -> bool:
        return False  # no single path string names this resource

    def __len__(self) -> int:
        return len(self._routes)

    def __iter__(self) -> Iterator[web.AbstractRoute]:
        return iter(self._routes.values())

    def _route(self, key: object, method: str, handler: Handler) -> web.ResourceRoute:
        route = self._routes.get(key)
        if route is None:
            route = self._routes[key] = web.ResourceRoute(method, handler, self)
        return route


class ApiPaths(_CodedResource):
    """Every path under `/api/v1` (the core group) or under `/apis` (the named groups)."""

    def __init__(self, prefix: str, handlers: ApiHandlers) -> None:
        super().__init__(prefix)
        self._handlers = handlers
        self._core = prefix == CORE_PREFIX

    async def resolve(self, request: web.Request) -> tuple[web.UrlMappingMatchInfo | None, set[str]]:
        path = request.rel_url.path_safe
        if path != self._path and not path.startswith(self._path + "/"):
            return None, set()
        parts = path[len(self._path) + 1:].split("/")
        if parts and parts[-1] == "":
            parts.pop()  # discovery paths answer with a trailing slash as without
        match: dict[str, str] = {"group": "", "version": "v1"}
        if not self._core:
            if not parts:
                return None, set()
            match["group"] = _unquote(parts.pop(0))
            if not parts:
                return self._match(request, {"GET": self._handlers.group}, match)
            match["version"] = _unquote(parts.pop(0))
        if not parts:
            return self._match(request, {"GET": self._handlers.resources}, match)
        if "" in parts:
            return None, set()
        watch = parts[0] == "watch"
        if watch:
            parts = parts[1:]
        if len(parts) > 2 and parts[0] == "namespaces" and parts[2] not in _NAMESPACE_SUBRESOURCES:
            match["namespace"] = _unquote(parts[1])
            parts = parts[2:]
        if not parts or len(parts) > (2 if watch else 3):
            return None, set()
        for name, part in zip(("resource", "name", "subresource"), parts, strict=False):
            match[name] = _unquote(part)
        return self._match(request, self._methods(match, len(parts), watch), match)

    def _methods(self, match: Mapping[str, str], depth: int, watch: bool) -> Methods:
        handlers = self._handlers
        if watch:
            return {"GET": handlers.watch_collection if depth == 1 else handlers.watch_object}
        if depth == 1:
            create_only = handlers.create_only.get((match["group"], match["resource"]))
            if create_only is None:
                return handlers.collection
            return {"POST": create_only.handler} if create_only.namespaced == ("namespace" in match) else {}
        if depth == 2:
            return handlers.object
        special = (match["group"], match["resource"], match["subresource"])
        methods = handlers.special_subresources.get(special)
        if methods is not None:
            return methods
        serves = handlers.serves_subresource
        if serves is None or handlers.not_found is None or serves(match["group"], match["version"], *special[1:]):
            return handlers.subresource
        return {ANY_METHOD: handlers.not_found}

    def _match(self, request: web.Request, methods: Methods,
               match: dict[str, str]) -> tuple[web.UrlMappingMatchInfo | None, set[str]]:
        allowed = set(methods)
        if "GET" in allowed:
            allowed.add("HEAD")
        method = "GET" if request.method == "HEAD" else request.method
        handler = methods.get(method) or methods.get(ANY_METHOD)
        if handler is None:
            return None, allowed
        route = self._route((request.method, handler), request.method, handler)
        return web.UrlMappingMatchInfo(match, route), allowed


class Unmatched(_CodedResource):
    """Matches every path, but is tried last: aiohttp walks a path's prefixes down to "/"."""

    def __init__(self, handler: Handler) -> None:
        super().__init__("/")
        self._route_all = self._route("*", "*", handler)

    async def resolve(self, request: web.Request) -> tuple[web.UrlMappingMatchInfo | None, set[str]]:
        return web.UrlMappingMatchInfo({}, self._route_all), set()


def _unquote(part: str) -> str:
    """As aiohttp unquotes a matched segment of the path (which keeps %2F encoded)."""
    if "%" not in part:
        return part
    return part.replace("%2F", "/").replace("%25", "%")
