"""An HTTP session on the test's in-process server, for the fakeapi.testing tests."""

from __future__ import annotations

from collections.abc import AsyncIterator

import aiohttp
import pytest

from fakeapi.testing import FakeAPIServer


@pytest.fixture
async def http(async_fakeapi: FakeAPIServer) -> AsyncIterator[aiohttp.ClientSession]:
    """A client session whose relative URLs go to the test's async server (with the header the control
    API asks of requests that change state)."""
    async with aiohttp.ClientSession(base_url=async_fakeapi.url, headers={"X-Fakeapi-Control": "1"}) as session:
        yield session
