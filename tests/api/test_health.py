"""/healthz, /livez and /readyz as upstream's healthz handlers answer them: `ok`, the checks with
`?verbose`, excluded checks, and each check on its own path."""

from __future__ import annotations

from typing import Any

import pytest

TEXT = "text/plain; charset=utf-8"


@pytest.mark.parametrize("path", ["/healthz", "/livez", "/readyz"])
async def test_each_endpoint_answers_ok(client: Any, path: str) -> None:
    response = await client.get(path)
    assert response.status == 200
    assert response.headers["Content-Type"] == TEXT
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert await response.text() == "ok"


async def test_verbose_lists_the_checks(client: Any) -> None:
    assert await (await client.get("/livez?verbose")).text() == "[+]ping ok\n[+]log ok\nlivez check passed\n"
    assert await (await client.get("/readyz?verbose=1")).text() == (
        "[+]ping ok\n[+]log ok\n[+]shutdown ok\nreadyz check passed\n")


async def test_excluded_checks_are_named_and_unknown_ones_warned_about(client: Any) -> None:
    response = await client.get("/healthz?verbose&exclude=log&exclude=etcd&exclude=bogus")
    assert await response.text() == (
        "[+]ping ok\n[+]log excluded: ok\n"
        'warn: some health checks cannot be excluded: no matches for "bogus","etcd"\n'
        "healthz check passed\n"
    )
    assert await (await client.get("/healthz?exclude=log")).text() == "ok"


@pytest.mark.parametrize("path", ["/healthz/ping", "/livez/log", "/readyz/ping", "/readyz/shutdown"])
async def test_each_check_answers_on_its_own_path(client: Any, path: str) -> None:
    response = await client.get(path)
    assert response.status == 200
    assert response.headers["Content-Type"] == TEXT
    assert await response.text() == "ok"


async def test_a_check_that_does_not_exist_is_not_found(client: Any) -> None:
    assert (await client.get("/livez/shutdown")).status == 404
