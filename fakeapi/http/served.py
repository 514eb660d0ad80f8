"""What the server serves right now: what discovery lists and the OpenAPI documents describe."""

from __future__ import annotations

from aiohttp import web

from fakeapi.http.keys import api_key, create_only_key
from fakeapi.kinds.kind import ResourceInfo


def served_resources(app: web.Application) -> list[ResourceInfo]:
    """The kinds served (they can change while the server runs), then the create-only resources."""
    return app[api_key].kinds.infos() + app[create_only_key]
