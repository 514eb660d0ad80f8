"""Raw requests through the official client's ApiClient (its typed methods refuse the invalid bodies these
tests send): status, decoded body and headers."""

from __future__ import annotations

import json
from typing import Any

from fakeapi.testing import FakeAPIServer


def call(fakeapi: FakeAPIServer, method: str, path: str, body: Any = None,
         headers: dict[str, str] | None = None) -> tuple[int, Any, dict[str, str]]:
    api_client = fakeapi.kubernetes_client()
    header_params = {"Content-Type": "application/json", "Accept": "application/json", **(headers or {})}
    _, url, header_params, body, _ = api_client.param_serialize(method, path, header_params=header_params, body=body)
    response = api_client.call_api(method, url, header_params=header_params, body=body)
    data = response.read()
    return response.status, json.loads(data) if data else None, dict(response.getheaders())
