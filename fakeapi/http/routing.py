"""aiohttp resources that match paths in code rather than by a pattern.

`NamespacedPaths` serves the busiest API paths: namespaced collections, objects and subresources.
aiohttp tries the patterns registered under one prefix in turn, each a coroutine and a regular
expression; a GET of one pod used to fail two patterns before it matched the third. This resource
reads the path's segments once instead, and gives the handlers the same match_info as the patterns.

`Unmatched` is tried last and takes every path no route serves, so that it too gets a Status.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from aiohttp import web
from aiohttp.typedefs import Handler
from yarl import URL

if TYPE_CHECKING:
    from aiohttp.web_urldispatcher import _InfoDict

PREFIX = "/api/v1/namespaces"
_SEGMENTS_NAMES = {  # segments after the prefix -> what they are called in match_info
    2: ("namespace", "resource"),
    3: ("namespace", "resource", "name"),
    4: ("namespace", "resource", "name", "subresource"),
}
# paths of the same shape that other routes serve: a namespace's status, a pod's binding and log
_NOT_A_RESOURCE = "status"
_OTHER_SUBRESOURCES = ("binding", "log")


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


class NamespacedPaths(_CodedResource):
    """`/api/v1/namespaces/{namespace}/{resource}[/{name}[/{subresource}]]`, one route per depth and
    method. Paths it does not serve fall through to the routes registered after it."""

    def __init__(self) -> None:
        super().__init__(PREFIX)
        self._allowed: dict[int, set[str]] = {segments: set() for segments in _SEGMENTS_NAMES}

    def add(self, segments: int, method: str, handler: Handler) -> None:
        """Serve `method` on paths with this many segments after the prefix (2: a collection, 3: an
        object, 4: a subresource). GET also serves HEAD, as aiohttp's add_get does."""
        for each in (method, "HEAD") if method == "GET" else (method,):
            self._routes[segments, each] = web.ResourceRoute(each, handler, self)
            self._allowed[segments].add(each)

    async def resolve(self, request: web.Request) -> tuple[web.UrlMappingMatchInfo | None, set[str]]:
        path = request.rel_url.path_safe
        if not path.startswith(PREFIX + "/"):
            return None, set()
        parts = path[len(PREFIX) + 1:].split("/")
        names = _SEGMENTS_NAMES.get(len(parts))
        if (names is None or "" in parts or parts[1] == _NOT_A_RESOURCE
                or (len(parts) == 4 and parts[3] in _OTHER_SUBRESOURCES)):
            return None, set()
        segments = len(parts)
        route = self._routes.get((segments, request.method))
        if route is None:
            return None, self._allowed[segments]
        match = {name: _unquote(part) for name, part in zip(names, parts, strict=True)}
        return web.UrlMappingMatchInfo(match, route), self._allowed[segments]

    def url_for(self, **parts: str) -> URL:
        names = _SEGMENTS_NAMES[len(parts)]
        return URL.build(path="/".join([PREFIX, *(parts[name] for name in names)]))


class Unmatched(_CodedResource):
    """Matches every path, but is tried last: aiohttp walks a path's prefixes down to "/"."""

    def __init__(self, handler: Handler) -> None:
        super().__init__("/")
        self._route = self._routes["*"] = web.ResourceRoute("*", handler, self)

    async def resolve(self, request: web.Request) -> tuple[web.UrlMappingMatchInfo | None, set[str]]:
        return web.UrlMappingMatchInfo({}, self._route), set()


def _unquote(part: str) -> str:
    """As aiohttp unquotes a matched segment of the path (which keeps %2F encoded)."""
    if "%" not in part:
        return part
    return part.replace("%2F", "/").replace("%25", "%")
