"""Pretty-printed JSON, as upstream's negotiation decides it (negotiate.go `isPrettyPrint` and the
`pretty` media-type parameter): every JSON answer of the API leaves through `indent_if_asked`.

A request is answered indented when its `pretty` query value parses as true (Go's strconv.ParseBool;
a value that does not parse means compact), or, without one, when the User-Agent starts with `curl`,
`Wget` or `Mozilla/5.0`, or when its JSON media range says `pretty=1`. Indented is Go's
`json.MarshalIndent(obj, "", "  ")`: two spaces, `"key": value`, `{}` and `[]` for empty ones. Watch
streams are never indented (upstream's stream serializer has no pretty form).
"""

from __future__ import annotations

import orjson
from aiohttp import web

from fakeapi.http.accept import parse_accept

_TRUE = frozenset(("1", "t", "T", "TRUE", "true", "True"))
_HUMAN_AGENTS = ("curl", "Wget", "Mozilla/5.0")


def indented(body: object) -> bytes:
    """JSON as upstream's pretty serializer and `/version` write it."""
    return orjson.dumps(body, option=orjson.OPT_INDENT_2)


def wants_pretty(request: web.Request) -> bool:
    if "pretty" in request.query_string:
        value = request.query.get("pretty", "")
        if value:
            return value in _TRUE
    if request.headers.get("User-Agent", "").startswith(_HUMAN_AGENTS):
        return True
    accept = request.headers.get("Accept", "")
    return "pretty" in accept and _accept_asks_pretty(accept)


def _accept_asks_pretty(accept: str) -> bool:
    """The first range that JSON answers decides (the range negotiation picks, in all but odd headers)."""
    for media in parse_accept(accept):
        if media.type in ("application", "*") and media.subtype in ("json", "*"):
            return media.params.get("pretty") == "1"
    return False


def indent_if_asked(request: web.Request, response: web.StreamResponse) -> web.StreamResponse:
    """A whole JSON answer re-indented when the request asks for it; streams and other types as they are."""
    if not isinstance(response, web.Response) or not wants_pretty(request):
        return response
    body = response.body
    if not isinstance(body, bytes | bytearray | memoryview) or not body:
        return response
    if not response.headers.get("Content-Type", "").startswith("application/json"):
        return response
    response.body = indented(orjson.loads(body))
    return response
