"""Building HTTP answers: JSON bodies from dicts or stored bytes, Status answers, and Warning headers."""

from __future__ import annotations

import orjson
from aiohttp import web

from fakeapi.machinery.errors import StatusError
from fakeapi.machinery.types import JSON

JSON_TYPE = "application/json"
_JSON_HEADERS = {"Content-Type": JSON_TYPE}


def json_response(body: JSON | bytes, status: int = 200, warnings: list[str] | None = None) -> web.Response:
    data = body if isinstance(body, bytes) else orjson.dumps(body)
    # a plain header costs aiohttp less than content_type=, which it parses into a media type first
    response = web.Response(body=data, status=status, headers=_JSON_HEADERS)
    if warnings:
        for warning in _unique(warnings):
            response.headers.add("Warning", warning_header(warning))
    return response


KIND_WARNINGS = web.RequestKey("fakeapi_kind_warnings", tuple)


async def add_kind_warnings(request: web.BaseRequest, response: web.StreamResponse) -> None:
    """(on_response_prepare) Every answer about a deprecated kind warns so (a deprecated custom resource
    version), as upstream's deprecation filter does, first."""
    for warning in request.get(KIND_WARNINGS, ()):
        header = warning_header(warning)
        if header not in response.headers.getall("Warning", ()):
            response.headers.add("Warning", header)


def status_response(error: StatusError) -> web.Response:
    response = json_response(error.to_status(), status=error.code)
    response.headers.update(error.headers)
    return response


def warning_header(text: str) -> str:
    """RFC 7234 warn-code 299 with the text quoted, as upstream's warning recorder writes it (a line
    break becomes a space, as Go's HTTP server writes header values)."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\r", " ").replace("\n", " ")
    return f'299 - "{escaped}"'


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))
